#include "block_pool.h"

#include <algorithm>
#include <bit>

namespace loom::accel::detail {

size_t size_class(size_t bytes) {
  constexpr size_t kSmallStep = 512, kLarge = size_t{1} << 20;
  bytes = std::max<size_t>(bytes, 1);
  if (bytes < kLarge) return (bytes + kSmallStep - 1) / kSmallStep * kSmallStep;
  const size_t step = std::bit_floor(bytes - 1) / 8;
  return (bytes + step - 1) / step * step;
}

BlockPool::BlockPool(PoolBackend backend, size_t cache_limit)
    : backend_(std::move(backend)), cache_limit_(cache_limit) {}

BlockPool::~BlockPool() {
  std::lock_guard lock(mutex_);
  for (Parked& p : parked_) {
    for (void* e : p.events) backend_.destroy(e);
    backend_.free(p.data);
  }
  parked_.clear();
  free_all_cached();
}

BlockPool::Block BlockPool::allocate(size_t bytes, uintptr_t stream) {
  const size_t capacity = size_class(bytes);
  std::lock_guard lock(mutex_);
  collect_ready_parked();
  ++allocations_;
  for (auto it = free_.lower_bound({stream, capacity});
       it != free_.end() && it->first.first == stream && it->first.second <= 2 * capacity; ++it) {
    if (it->second.empty()) continue;
    void* data = it->second.back();
    it->second.pop_back();
    const size_t kept = it->first.second;
    if (it->second.empty()) free_.erase(it);
    cached_bytes_ -= kept;
    in_use_bytes_ += kept;
    ++reuses_;
    live_[reinterpret_cast<uintptr_t>(data)] = {kept, stream, {}};
    return {data, kept};
  }
  void* data = backend_.allocate(capacity);
  if (data == nullptr) {  // out of memory: give back what is kept (the backend's other users may need it)
    free_all_cached();
    data = backend_.allocate(capacity);
    if (data == nullptr) {
      --allocations_;
      return {};
    }
  }
  in_use_bytes_ += capacity;
  live_[reinterpret_cast<uintptr_t>(data)] = {capacity, stream, {}};
  return {data, capacity};
}

void BlockPool::release(void* data) noexcept {
  std::lock_guard lock(mutex_);
  const auto it = live_.find(reinterpret_cast<uintptr_t>(data));
  if (it == live_.end()) return;  // not ours: nothing to do (a broken caller; never free foreign memory)
  Live block = std::move(it->second);
  live_.erase(it);
  in_use_bytes_ -= block.capacity;
  if (block.also_on.empty()) {
    keep_or_free(data, block.capacity, block.stream);
    return;
  }
  Parked parked{data, block.capacity, block.stream, {}};
  try {
    for (const uintptr_t s : block.also_on) parked.events.push_back(backend_.record(s));
    parked_.push_back(parked);
    cached_bytes_ += block.capacity;
  } catch (...) {  // no event, or no memory for the list: give it back (the backend's free waits for the device)
    for (void* e : parked.events) backend_.destroy(e);
    backend_.free(data);
  }
}

bool BlockPool::record_use(const void* address, uintptr_t stream) {
  std::lock_guard lock(mutex_);
  const uintptr_t a = reinterpret_cast<uintptr_t>(address);
  auto it = live_.upper_bound(a);
  if (it == live_.begin()) return false;
  --it;
  Live& block = it->second;
  if (a >= it->first + block.capacity) return false;
  if (stream != block.stream && std::find(block.also_on.begin(), block.also_on.end(), stream) == block.also_on.end()) {
    block.also_on.push_back(stream);
  }
  return true;
}

size_t BlockPool::trim() {
  std::lock_guard lock(mutex_);
  collect_ready_parked();
  return free_all_cached();
}

MemoryStats BlockPool::stats() const {
  std::lock_guard lock(mutex_);
  return {in_use_bytes_, cached_bytes_, allocations_, reuses_};
}

void BlockPool::collect_ready_parked() {
  for (size_t i = 0; i < parked_.size();) {
    Parked& p = parked_[i];
    if (!std::all_of(p.events.begin(), p.events.end(), [&](void* e) { return backend_.ready(e); })) {
      ++i;
      continue;
    }
    for (void* e : p.events) backend_.destroy(e);
    cached_bytes_ -= p.capacity;
    keep_or_free(p.data, p.capacity, p.stream);
    parked_[i] = std::move(parked_.back());
    parked_.pop_back();
  }
}

void BlockPool::keep_or_free(void* data, size_t capacity, uintptr_t stream) {
  if (cached_bytes_ + capacity <= cache_limit_) {
    try {
      free_[{stream, capacity}].push_back(data);
      cached_bytes_ += capacity;
      return;
    } catch (...) {  // no memory for the list: give the block back instead
    }
  }
  backend_.free(data);
}

size_t BlockPool::free_all_cached() {
  size_t bytes = 0;
  for (auto& [key, blocks] : free_) {
    for (void* data : blocks) backend_.free(data);
    bytes += key.second * blocks.size();
  }
  free_.clear();
  cached_bytes_ -= bytes;
  return bytes;
}

}  // namespace loom::accel::detail
