#include "buffer_pool.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <new>

#include "loom/accel/device_memory.h"

namespace loom::loader {
namespace {

size_t rounded_size(size_t bytes) {
  return std::max<size_t>((bytes + kTensorAlignment - 1) / kTensorAlignment * kTensorAlignment, kTensorAlignment);
}

}  // namespace

struct BufferPool::State {
  struct Block {
    void* data;
    size_t bytes;   // rounded_size of what was asked
    Tensor pinned;  // owns `data` when it is pinned memory (freed by dropping it); else data is malloc's
  };
  std::mutex mutex;
  std::vector<Block> free;        // returned blocks, ready for reuse
  std::map<size_t, size_t> live;  // blocks in existence (in use or free), by size
  size_t max_free = 0;
  bool pinned = false;
  size_t allocations = 0;
  bool closed = false;  // the pool is gone: returned blocks are freed

  // A new block; the caller holds no lock.
  Block allocate(size_t bytes) {
    const size_t size = rounded_size(bytes);
    Block block{nullptr, size, {}};
    if (pinned) {
      block.pinned = accel::empty_pinned({static_cast<int64_t>(size)}, DType::kUInt8);
      block.data = block.pinned.data();
    } else {
      block.data = std::aligned_alloc(kTensorAlignment, size);
      if (!block.data) throw std::bad_alloc();
    }
    std::lock_guard lock(mutex);
    ++allocations;
    ++live[size];
    return block;
  }

  void give_back(Block block) {
    {
      std::lock_guard lock(mutex);
      if (!closed && free.size() < max_free) {
        free.push_back(block);
        return;
      }
      --live[block.bytes];
    }
    release(block);
  }

  static void release(Block& block) {
    if (block.pinned.defined()) {
      block.pinned = Tensor();
    } else {
      std::free(block.data);
    }
  }
};

BufferPool::BufferPool(size_t max_free, bool pinned) : state_(std::make_shared<State>()) {
  state_->max_free = max_free;
  state_->pinned = pinned;
}

BufferPool::~BufferPool() {
  std::vector<State::Block> blocks;
  {
    std::lock_guard lock(state_->mutex);
    state_->closed = true;
    blocks.swap(state_->free);
  }
  for (State::Block& b : blocks) State::release(b);
}

Tensor BufferPool::take(std::span<const int64_t> shape, DType dtype, bool zeroed) {
  size_t bytes = element_size(dtype);
  for (int64_t s : shape) bytes *= static_cast<size_t>(s);
  State::Block block{nullptr, 0, {}};
  {
    std::lock_guard lock(state_->mutex);
    // The smallest free block that fits and is at most twice the size, so that buffers of different
    // fields are not mixed up and a small request never holds a large block.
    auto best = state_->free.end();
    for (auto it = state_->free.begin(); it != state_->free.end(); ++it)
      if (it->bytes >= bytes && it->bytes / 2 <= bytes && (best == state_->free.end() || it->bytes < best->bytes))
        best = it;
    if (best != state_->free.end()) {
      block = *best;
      state_->free.erase(best);
    }
  }
  if (!block.data) block = state_->allocate(bytes);
  if (zeroed) std::memset(block.data, 0, bytes);
  std::weak_ptr<State> owner = state_;
  return Tensor::from_blob(block.data, shape, {}, dtype, Device::cpu(), [owner, block](void*) mutable {
    if (const auto state = owner.lock()) return state->give_back(std::move(block));
    State::release(block);
  });
}

void BufferPool::reserve(size_t bytes, size_t total) {
  const size_t size = rounded_size(bytes);
  for (;;) {
    {
      std::lock_guard lock(state_->mutex);
      if (state_->live[size] >= total || state_->free.size() >= state_->max_free) return;
    }
    State::Block block = state_->allocate(bytes);
    std::memset(block.data, 0, block.bytes);  // touch every page now, not in the middle of a later epoch
    state_->give_back(block);
  }
}

size_t BufferPool::allocations() const {
  std::lock_guard lock(state_->mutex);
  return state_->allocations;
}

}  // namespace loom::loader
