// Reusable batch buffers: the loader collates into memory taken from here, and a batch's tensors give
// it back when their last view is gone, so the steady state allocates no batch memory.
// Thread safety: take() may be called from any thread; buffers return from any thread.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "loom/codec/tensor.h"

namespace loom::loader {

class BufferPool {
 public:
  // Keeps at most `max_free` returned buffers for reuse; more are freed. With `pinned`, buffers are
  // page-locked host memory (accel::empty_pinned, for asynchronous copies to a CUDA device); otherwise
  // ordinary memory.
  explicit BufferPool(size_t max_free, bool pinned = false);
  ~BufferPool();
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  // A contiguous tensor of `shape` and `dtype`, 64-byte aligned, uninitialised (or zero-filled), in a
  // reused buffer when one large enough is free. The tensor may outlive the pool.
  Tensor take(std::span<const int64_t> shape, DType dtype, bool zeroed = false);

  // Allocates free buffers of `bytes` now, touching their pages, until `total` buffers of that size
  // exist (in use or free; within the free-list limit), so that memory reaches its steady level at
  // once instead of stepping up whenever more batches than before happen to be alive.
  void reserve(size_t bytes, size_t total);

  // Buffers allocated since the pool was made (for tests of reuse).
  size_t allocations() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace loom::loader
