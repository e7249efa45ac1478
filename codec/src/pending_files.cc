// Lock-free, async-signal-safe registry of temporary files (fixed slots, atomic states).
#include "pending_files.h"

#include <limits.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

#include "loom/codec/atomic_file.h"

namespace loom {
namespace pending_files {
namespace {

constexpr int kSlots = 256;
enum State : int { kFree, kFilling, kReady };

struct Slot {
  std::atomic<int> state{kFree};
  char path[PATH_MAX];
};

Slot slots[kSlots];
static_assert(std::atomic<int>::is_always_lock_free, "signal handlers need lock-free atomics");

}  // namespace

int add(const char* path) {
  if (std::strlen(path) >= PATH_MAX) return -1;
  for (int i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (slots[i].state.compare_exchange_strong(expected, kFilling, std::memory_order_acquire)) {
      std::strcpy(slots[i].path, path);
      slots[i].state.store(kReady, std::memory_order_release);
      return i;
    }
  }
  return -1;
}

void release(int slot) {
  if (slot >= 0) slots[slot].state.store(kFree, std::memory_order_release);
}

}  // namespace pending_files

void remove_pending_files() noexcept {
  for (pending_files::Slot& s : pending_files::slots) {
    if (s.state.load(std::memory_order_acquire) == pending_files::kReady) ::unlink(s.path);
  }
}

}  // namespace loom
