// Device and pinned host memory for tensors: a caching device allocator and a pinned host pool.
//
// cudaMalloc and cudaFree synchronise the device and cost tens of microseconds to milliseconds, and
// cudaHostAlloc pins pages one by one; a loader that makes a batch of the same size every few
// milliseconds must not pay them per batch. So, as torch's caching allocators do, freed blocks are
// kept and handed out again:
//
// - Device memory (empty_device) is stream-ordered. A block belongs to the stream it was allocated for;
//   when its last tensor view is gone it is reused at once only for allocations on that stream, whose
//   queued work runs in order after the work that used it. If the memory was also used on other streams,
//   say so with record_stream(tensor, other): the block is then reused only once every such stream has
//   passed the point where the tensor was freed (an event recorded on each at that moment).
// - Pinned host memory (empty_pinned) is page-locked host memory for asynchronous copies. A freed block
//   is reused at once: keep a pinned tensor alive until every copy that reads or writes it has finished
//   (the loader keeps each batch's staging buffer until its copy's event has completed).
//
// Sizes are rounded up to a size class (512 bytes below 1 MiB, then eighths of a power of two: at most
// 12.5% unused), and a request takes a free block of its class or a larger one up to twice its size. At
// most LOOM_CUDA_CACHE_MB MiB of free device blocks (default 4096; 0 keeps none) and LOOM_PINNED_CACHE_MB
// MiB of free pinned blocks (default 1024) are kept per process; when cudaMalloc fails, the free blocks
// of that device are released and the allocation tried once more before Error(kLimitExceeded) says how
// much was asked for and how much is in use.
//
// Without CUDA (or a usable device) every allocation throws Error(kUnsupported, "cuda"); the statistics
// are zeros. Thread safety: every function may be called from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>

#include "loom/codec/api.h"
#include "loom/codec/tensor.h"

LOOM_API_BEGIN

namespace loom::accel {

class Stream;

// A contiguous, uninitialised tensor on CUDA device `device.index`, for work on `stream` (which must be
// on that device). Throws Error(kUnsupported) for a CPU device.
Tensor empty_device(std::span<const int64_t> shape, DType dtype, Device device, const Stream& stream);
Tensor empty_device(std::initializer_list<int64_t> shape, DType dtype, Device device, const Stream& stream);

// Marks the memory of `tensor` (from empty_device) as used by work on `stream` as well as on its own
// stream (see above). A no-op for tensors loom's allocator did not make (CPU tensors, foreign DLPack
// imports) and for the tensor's own stream.
void record_stream(const Tensor& tensor, const Stream& stream);

// A contiguous, uninitialised CPU tensor in page-locked memory (64-byte aligned).
Tensor empty_pinned(std::span<const int64_t> shape, DType dtype);
Tensor empty_pinned(std::initializer_list<int64_t> shape, DType dtype);

struct MemoryStats {
  size_t in_use_bytes = 0;   // held by live tensors (capacity of their blocks)
  size_t cached_bytes = 0;   // free blocks kept for reuse (including those waiting on other streams)
  uint64_t allocations = 0;  // requests served
  uint64_t reuses = 0;       // of which from a kept block (the rest called cudaMalloc/cudaHostAlloc)
};
MemoryStats device_memory_stats(int device = 0);
MemoryStats pinned_memory_stats();

// Frees every free block kept (device: those no stream still needs); returns the bytes freed.
size_t release_cached_device_memory();
size_t release_cached_pinned_memory();

}  // namespace loom::accel

LOOM_API_END
