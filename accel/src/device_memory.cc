// CUDA implementation of loom/accel/device_memory.h: one BlockPool per device over cudaMalloc, one over
// cudaHostAlloc for pinned memory (compiled only with CUDA).
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <cstdlib>
#include <memory>
#include <mutex>
#include <vector>

#include "block_pool.h"
#include "loom/accel/cuda.h"
#include "loom/accel/device_memory.h"
#include "loom/accel/stream.h"
#include "loom/codec/error.h"

namespace loom::accel {
namespace {

using detail::BlockPool;
using detail::PoolBackend;

size_t megabytes_from_environment(const char* name, size_t fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback << 20;
  char* end = nullptr;
  const unsigned long long mb = std::strtoull(text, &end, 10);
  return *end == '\0' ? static_cast<size_t>(mb) << 20 : fallback << 20;
}

PoolBackend device_backend(int device) {
  PoolBackend b;
  b.allocate = [device](size_t bytes) -> void* {
    const DeviceGuard on(device);
    void* p = nullptr;
    if (cudaMalloc(&p, bytes) != cudaSuccess) {
      cudaGetLastError();  // out of memory is not sticky: clear it for the next call
      return nullptr;
    }
    return p;
  };
  b.free = [device](void* p) {
    if (forked_after_cuda_init()) return;  // the child cannot call CUDA: its parent's memory stays as it is
    const DeviceGuard on(device);
    cudaFree(p);
  };
  b.record = [device](uintptr_t stream) -> void* {
    const DeviceGuard on(device);
    cudaEvent_t e = nullptr;
    check_cuda(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreateWithFlags");
    const cudaError_t status = cudaEventRecord(e, reinterpret_cast<cudaStream_t>(stream));
    if (status != cudaSuccess) {
      cudaEventDestroy(e);
      check_cuda(status, "cudaEventRecord");
    }
    return e;
  };
  b.ready = [](void* e) { return cudaEventQuery(static_cast<cudaEvent_t>(e)) != cudaErrorNotReady; };
  b.destroy = [](void* e) { cudaEventDestroy(static_cast<cudaEvent_t>(e)); };
  return b;
}

PoolBackend pinned_backend() {
  PoolBackend b;
  b.allocate = [](size_t bytes) -> void* {
    void* p = nullptr;
    if (cudaHostAlloc(&p, bytes, cudaHostAllocPortable) != cudaSuccess) {
      cudaGetLastError();
      return nullptr;
    }
    return p;
  };
  b.free = [](void* p) {
    if (!forked_after_cuda_init()) cudaFreeHost(p);
  };
  return b;  // pinned blocks belong to no stream: no events
}

// Pools live for the whole process (tensors may be freed during exit).
struct Pools {
  std::mutex mutex;
  std::vector<BlockPool*> devices;
  BlockPool* pinned = nullptr;
};

Pools& pools() {
  static Pools* const kPools = new Pools;
  return *kPools;
}

BlockPool* device_pool_if_made(int device) {
  Pools& p = pools();
  std::lock_guard lock(p.mutex);
  return device >= 0 && static_cast<size_t>(device) < p.devices.size() ? p.devices[device] : nullptr;
}

BlockPool& device_pool(int device) {
  Pools& p = pools();
  std::lock_guard lock(p.mutex);
  if (p.devices.size() <= static_cast<size_t>(device)) p.devices.resize(device + 1, nullptr);
  if (p.devices[device] == nullptr) {
    p.devices[device] = new BlockPool(device_backend(device), megabytes_from_environment("LOOM_CUDA_CACHE_MB", 4096));
  }
  return *p.devices[device];
}

BlockPool& pinned_pool() {
  Pools& p = pools();
  std::lock_guard lock(p.mutex);
  if (p.pinned == nullptr)
    p.pinned = new BlockPool(pinned_backend(), megabytes_from_environment("LOOM_PINNED_CACHE_MB", 1024));
  return *p.pinned;
}

void check_device(Device device, const char* what) {
  if (device.is_cpu()) throw Error(ErrorCode::kUnsupported, what, "needs a CUDA device, not the CPU");
  check_cuda_device(device.index, what);
}

size_t byte_count(std::span<const int64_t> shape, DType dtype) {
  size_t n = element_size(dtype);
  for (const int64_t d : shape) {
    if (d < 0) throw Error(ErrorCode::kInvalidInput, "cuda", "a tensor size cannot be negative");
    n *= static_cast<size_t>(d);
  }
  return n;
}

[[noreturn]] void out_of_memory(const char* what, size_t bytes, const MemoryStats& s) {
  throw Error(ErrorCode::kLimitExceeded, "cuda",
              fmt::format("{}: out of memory allocating {} bytes ({} bytes in use by loom's tensors)", what, bytes,
                          s.in_use_bytes));
}

}  // namespace

Tensor empty_device(std::span<const int64_t> shape, DType dtype, Device device, const Stream& stream) {
  check_device(device, "empty_device");
  if (stream.device() != device.index) {
    throw Error(ErrorCode::kInvalidInput, "cuda",
                fmt::format("empty_device: a tensor on CUDA device {} cannot be made for a stream of device {}",
                            device.index, stream.device()));
  }
  const size_t bytes = byte_count(shape, dtype);
  BlockPool& pool = device_pool(device.index);
  const BlockPool::Block block = pool.allocate(bytes, reinterpret_cast<uintptr_t>(stream.handle()));
  if (block.data == nullptr) out_of_memory("empty_device", bytes, pool.stats());
  return Tensor::from_blob(block.data, shape, {}, dtype, device, [&pool](void* p) { pool.release(p); });
}

Tensor empty_device(std::initializer_list<int64_t> shape, DType dtype, Device device, const Stream& stream) {
  return empty_device(std::span<const int64_t>(shape.begin(), shape.size()), dtype, device, stream);
}

void record_stream(const Tensor& tensor, const Stream& stream) {
  if (!tensor.defined() || tensor.device().is_cpu() || tensor.device().index != stream.device()) return;
  if (BlockPool* pool = device_pool_if_made(tensor.device().index)) {
    pool->record_use(tensor.data(), reinterpret_cast<uintptr_t>(stream.handle()));
  }
}

Tensor empty_pinned(std::span<const int64_t> shape, DType dtype) {
  check_device(Device::cuda(0), "empty_pinned");
  const size_t bytes = byte_count(shape, dtype);
  BlockPool& pool = pinned_pool();
  const BlockPool::Block block = pool.allocate(bytes, 0);
  if (block.data == nullptr) out_of_memory("empty_pinned", bytes, pool.stats());
  return Tensor::from_blob(block.data, shape, {}, dtype, Device::cpu(), [&pool](void* p) { pool.release(p); });
}

Tensor empty_pinned(std::initializer_list<int64_t> shape, DType dtype) {
  return empty_pinned(std::span<const int64_t>(shape.begin(), shape.size()), dtype);
}

MemoryStats device_memory_stats(int device) {
  BlockPool* pool = device_pool_if_made(device);
  return pool == nullptr ? MemoryStats{} : pool->stats();
}

MemoryStats pinned_memory_stats() {
  Pools& p = pools();
  std::lock_guard lock(p.mutex);
  return p.pinned == nullptr ? MemoryStats{} : p.pinned->stats();
}

size_t release_cached_device_memory() {
  size_t bytes = 0;
  for (int d = 0; d < cuda_device_count(); ++d) {
    if (BlockPool* pool = device_pool_if_made(d)) bytes += pool->trim();
  }
  return bytes;
}

size_t release_cached_pinned_memory() {
  Pools& p = pools();
  BlockPool* pinned = nullptr;
  {
    std::lock_guard lock(p.mutex);
    pinned = p.pinned;
  }
  return pinned == nullptr ? 0 : pinned->trim();
}

}  // namespace loom::accel
