// Lock-free, async-signal-safe registry of temporary files (fixed slots, atomic states).
#include "pending_files.h"

#include <limits.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

#include "loom/codec/atomic_file.h"

namespace loom {
namespace pending_files {
namespace {

constexpr int kSlots = 256;
// kFree -> kFilling (the path is being copied) -> kCreating (the file may exist) -> kCreated -> kFree.
enum State : int { kFree, kFilling, kCreating, kCreated };

struct Slot {
  std::atomic<int> state{kFree};
  std::atomic<pid_t> creator{0};  // the thread that registered the file
  char path[PATH_MAX];
};

Slot slots[kSlots];
std::atomic<bool> closing{false};  // remove_pending_files() has begun
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<bool>::is_always_lock_free &&
                  std::atomic<pid_t>::is_always_lock_free,
              "signal handlers need lock-free atomics");

// Unlinks every file that may exist; true if another thread than `self` may still be creating one.
bool unlink_registered(pid_t self) {
  bool others_creating = false;
  for (Slot& s : slots) {
    const int state = s.state.load();
    if (state != kCreating && state != kCreated) continue;
    ::unlink(s.path);
    if (state == kCreating && s.creator.load() != self) others_creating = true;
  }
  return others_creating;
}

double seconds_now() {
  timespec t{};
  ::clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

}  // namespace

// The order of the seq_cst operations below is what makes the registry sound: add() publishes
// kCreating before it reads `closing`, and remove_pending_files() sets `closing` before it reads the
// slots, so at least one of them sees the other. A creator that saw `closing` unset is waited for.
int add(const char* path) {
  if (closing.load()) return kClosed;
  if (std::strlen(path) >= PATH_MAX) return -1;
  for (int i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (!slots[i].state.compare_exchange_strong(expected, kFilling)) continue;
    std::strcpy(slots[i].path, path);
    slots[i].creator.store(::gettid());
    slots[i].state.store(kCreating);
    if (closing.load()) {
      slots[i].state.store(kFree);
      return kClosed;
    }
    return i;
  }
  return -1;
}

bool created(int slot) {
  if (slot < 0) return true;
  slots[slot].state.store(kCreated);
  return !closing.load();
}

void release(int slot) {
  if (slot >= 0) slots[slot].state.store(kFree);
}

}  // namespace pending_files

void remove_pending_files() noexcept {
  using namespace pending_files;
  closing.store(true);
  const pid_t self = ::gettid();
  // A file that another thread is creating right now may appear after this pass: wait until no
  // other thread is between registering and creating (a single open(); at most a second, so that a
  // stuck file system cannot hold the process), then pass again.
  const double give_up = seconds_now() + 1.0;
  while (unlink_registered(self) && seconds_now() < give_up) ::sched_yield();
  unlink_registered(self);
}

}  // namespace loom
