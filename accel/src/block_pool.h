// The caching policy behind device_memory.h, independent of CUDA: a BlockPool hands out blocks from a
// backend (cudaMalloc, cudaHostAlloc; malloc in tests) and keeps freed ones for reuse.
//
// Blocks belong to a stream (an opaque key: a cudaStream_t's value; 0 for the pinned pool). A freed
// block goes back to its stream's free list, where only allocations for the same stream find it. A
// block marked as used on other streams (record_use) is first parked with one event recorded on each
// of them at the moment it was freed; once every event is ready it joins the free list. Free blocks
// are found by size class (size_class below), a block of the requested class or larger up to twice it.
//
// Thread safety: every member may be called from any thread (one mutex; backend calls happen under it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <vector>

#include "loom/accel/device_memory.h"

namespace loom::accel::detail {

// The memory and events a pool draws on. allocate returns nullptr when out of memory; free must be safe
// while a stream may still use the memory (cudaFree and cudaFreeHost wait for the device); record
// returns an event recorded now on `stream` (it may throw), ready() tells whether it has passed, destroy
// releases it. A pool that never sees record_use needs no events.
struct PoolBackend {
  std::function<void*(size_t bytes)> allocate;
  std::function<void(void* data)> free;
  std::function<void*(uintptr_t stream)> record;
  std::function<bool(void* event)> ready;
  std::function<void(void* event)> destroy;
};

// Bytes actually reserved for a request: 512-byte steps below 1 MiB, then eighths of a power of two.
size_t size_class(size_t bytes);

class BlockPool {
 public:
  // Keeps at most `cache_limit` bytes of free (and parked) blocks; a freed block beyond it is given
  // back to the backend at once.
  BlockPool(PoolBackend backend, size_t cache_limit);
  BlockPool(const BlockPool&) = delete;
  BlockPool& operator=(const BlockPool&) = delete;
  ~BlockPool();  // gives every free and parked block back (live ones are the caller's)

  struct Block {
    void* data = nullptr;
    size_t capacity = 0;
  };
  // A block of at least `bytes` (0 is served as 1) for `stream`. When the backend is out of memory,
  // every free block is given back and the allocation tried once more; a second failure returns a
  // Block with data == nullptr.
  Block allocate(size_t bytes, uintptr_t stream);
  // Returns the block that starts at `data` (from allocate) to the pool. Never throws.
  void release(void* data) noexcept;
  // Marks the live block that contains `address` as used on `stream` too. Returns false (and does
  // nothing) for an address in no live block of this pool.
  bool record_use(const void* address, uintptr_t stream);
  // Gives back every free block, and every parked one whose events are ready; returns their bytes.
  size_t trim();
  MemoryStats stats() const;

 private:
  struct Live {
    size_t capacity = 0;
    uintptr_t stream = 0;
    std::vector<uintptr_t> also_on;  // other streams that used it
  };
  struct Parked {
    void* data = nullptr;
    size_t capacity = 0;
    uintptr_t stream = 0;
    std::vector<void*> events;
  };

  void collect_ready_parked();                                       // mutex held
  void keep_or_free(void* data, size_t capacity, uintptr_t stream);  // mutex held
  size_t free_all_cached();                                          // mutex held

  PoolBackend backend_;
  const size_t cache_limit_;
  mutable std::mutex mutex_;
  std::map<uintptr_t, Live> live_;                                   // by start address
  std::map<std::pair<uintptr_t, size_t>, std::vector<void*>> free_;  // by (stream, capacity)
  std::vector<Parked> parked_;
  size_t in_use_bytes_ = 0, cached_bytes_ = 0;
  uint64_t allocations_ = 0, reuses_ = 0;
};

}  // namespace loom::accel::detail
