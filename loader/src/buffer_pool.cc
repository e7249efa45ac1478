#include "buffer_pool.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

namespace loom::loader {

struct BufferPool::State {
  struct Block {
    void* data;
    size_t bytes;
  };
  std::mutex mutex;
  std::vector<Block> free;  // returned blocks, ready for reuse
  size_t max_free;
  size_t allocations = 0;
  bool closed = false;  // the pool is gone: returned blocks are freed

  void give_back(Block block) {
    {
      std::lock_guard lock(mutex);
      if (!closed && free.size() < max_free) {
        free.push_back(block);
        return;
      }
    }
    std::free(block.data);
  }
};

BufferPool::BufferPool(size_t max_free) : state_(std::make_shared<State>()) {
  state_->max_free = max_free;
}

BufferPool::~BufferPool() {
  std::vector<State::Block> blocks;
  {
    std::lock_guard lock(state_->mutex);
    state_->closed = true;
    blocks.swap(state_->free);
  }
  for (const State::Block& b : blocks) std::free(b.data);
}

Tensor BufferPool::take(std::span<const int64_t> shape, DType dtype, bool zeroed) {
  size_t bytes = element_size(dtype);
  for (int64_t s : shape) bytes *= static_cast<size_t>(s);
  State::Block block{nullptr, 0};
  {
    std::lock_guard lock(state_->mutex);
    // The smallest free block that fits, so that buffers of different fields are not mixed up.
    auto best = state_->free.end();
    for (auto it = state_->free.begin(); it != state_->free.end(); ++it)
      if (it->bytes >= bytes && (best == state_->free.end() || it->bytes < best->bytes)) best = it;
    if (best != state_->free.end()) {
      block = *best;
      state_->free.erase(best);
    } else {
      ++state_->allocations;
    }
  }
  if (!block.data) {
    const size_t rounded =
        std::max<size_t>((bytes + kTensorAlignment - 1) / kTensorAlignment * kTensorAlignment, kTensorAlignment);
    block = {std::aligned_alloc(kTensorAlignment, rounded), rounded};
    if (!block.data) throw std::bad_alloc();
  }
  if (zeroed) std::memset(block.data, 0, bytes);
  std::weak_ptr<State> owner = state_;
  return Tensor::from_blob(block.data, shape, {}, dtype, Device::cpu(), [owner, block](void*) {
    if (const auto state = owner.lock()) return state->give_back(block);
    std::free(block.data);
  });
}

size_t BufferPool::allocations() const {
  std::lock_guard lock(state_->mutex);
  return state_->allocations;
}

}  // namespace loom::loader
