#include "block_cache.h"

#include <pthread.h>

#include <bit>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "loom/codec/tensor.h"

#if defined(__linux__)
#include <sys/mman.h>
#endif

#if defined(__SANITIZE_ADDRESS__)
#define LOOM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LOOM_ASAN 1
#endif
#endif

namespace loom::detail {
namespace {

// Blocks that hold a whole 2 MiB page are advised to use transparent huge pages (where the system
// leaves them to madvise). Faults: 4 KiB faults were 40% of a 100-frame 720p video batch (276 MB) in
// perf, and huge pages fault 2 MiB at a time (1.6x faster batches). Reads: decoding a 12 MP JPEG from
// a file's bytes in 4 KiB pages took 7% longer than in 2 MiB pages (TLB misses; docs/PERFORMANCE.md).
// Advice only: an error (no THP) changes nothing.
constexpr size_t kHugePage = size_t{2} << 20;

size_t size_class(size_t bytes) {
  if (bytes < kMinCachedBytes) return bytes;
  const size_t step = std::bit_floor(bytes - 1) / 8;  // eighths of the power of two below
  return (bytes + step - 1) / step * step;
}

size_t limit_from_environment() {
#if defined(LOOM_ASAN)
  return 0;
#else
  const char* text = std::getenv("LOOM_TENSOR_CACHE_MB");
  if (text == nullptr || *text == '\0') return size_t{256} << 20;
  char* end = nullptr;
  const unsigned long long mb = std::strtoull(text, &end, 10);
  return *end == '\0' ? static_cast<size_t>(mb) << 20 : size_t{256} << 20;
#endif
}

struct Cache {
  std::mutex mutex;
  std::map<size_t, std::vector<Block>> free;  // by capacity
  size_t bytes = 0;
  const size_t limit = limit_from_environment();
};

Cache& cache() {
  static Cache* const kCache = new Cache;  // never destroyed: tensors may be freed during exit
  return *kCache;
}

// fork() while another thread holds the mutex would leave it locked for ever in the child (whose
// first large tensor would then wait for ever): the forking thread holds it across fork() instead.
// Installed at load time, before any loader installs its own handlers: prepare handlers run in the
// reverse order of installation, so a loader's (which stops threads that may free tensors) runs
// before this lock is taken.
void lock_for_fork() {
  cache().mutex.lock();
}
void unlock_after_fork() {
  cache().mutex.unlock();
}
[[maybe_unused]] const int kForkHandlers = pthread_atfork(lock_for_fork, unlock_after_fork, unlock_after_fork);

Block fresh_block(size_t capacity) {
  // malloc with room to align by hand rather than aligned_alloc: glibc leaves aligned_alloc's slack as
  // free fragments that small allocations take, so a freed large tensor cannot serve the next one of
  // the same size.
  void* raw = std::malloc(capacity + kTensorAlignment);
  if (raw == nullptr) throw std::bad_alloc();
  const auto address = reinterpret_cast<uintptr_t>(raw);
  void* data = reinterpret_cast<void*>((address + kTensorAlignment - 1) & ~uintptr_t{kTensorAlignment - 1});
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const uintptr_t begin = (address + kHugePage - 1) & ~uintptr_t{kHugePage - 1};
  const uintptr_t end = (address + capacity + kTensorAlignment) & ~uintptr_t{kHugePage - 1};
  if (end > begin) (void)::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#endif
  return {raw, data, capacity};
}

}  // namespace

size_t cache_limit() {
  return cache().limit;
}

Block allocate_block(size_t bytes) {
  const size_t capacity = size_class(bytes);
  Cache& c = cache();
  if (capacity >= kMinCachedBytes && c.limit > 0) {
    // The smallest cached block of this class or a larger one up to twice the size: random sizes (a
    // loader's crops) then share blocks instead of each class keeping its own.
    std::lock_guard lock(c.mutex);
    for (auto it = c.free.lower_bound(capacity); it != c.free.end() && it->first <= 2 * capacity; ++it) {
      if (it->second.empty()) continue;
      const Block block = it->second.back();
      it->second.pop_back();
      c.bytes -= block.capacity;
      return block;
    }
  }
  return fresh_block(capacity);
}

void release_block(const Block& block) noexcept {
  Cache& c = cache();
  if (block.capacity >= kMinCachedBytes && block.capacity <= c.limit / 4) {
    try {
      std::lock_guard lock(c.mutex);
      if (c.bytes + block.capacity <= c.limit) {
        c.free[block.capacity].push_back(block);
        c.bytes += block.capacity;
        return;
      }
    } catch (...) {  // no memory for the list: free the block instead
    }
  }
  std::free(block.raw);
}

size_t trim_block_cache() noexcept {
  Cache& c = cache();
  std::map<size_t, std::vector<Block>> blocks;
  size_t bytes = 0;
  {
    std::lock_guard lock(c.mutex);
    blocks.swap(c.free);
    bytes = c.bytes;
    c.bytes = 0;
  }
  for (const auto& [capacity, list] : blocks)
    for (const Block& b : list) std::free(b.raw);
  return bytes;
}

}  // namespace loom::detail
