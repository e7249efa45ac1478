// What the ops need around their CUDA twins (private to loom::transforms; cuda_image.cc, built only
// with LOOM_WITH_CUDA): small host arrays (weights, index maps, fills) uploaded in one copy, and a
// contiguous copy of a strided device image. No CUDA header: streams are accel::Stream.
//
// Every op on a CUDA tensor follows one pattern: check_image(..., Devices::kCpuOrCuda), then
// accel::DeviceGuard on the tensor's device, the stream accel::current_stream(device), device
// memory from accel::empty_device(..., stream), the kernel queued on that stream (its launcher
// checks the launch with accel::check_cuda). The op returns once the work is queued: the result is
// ready for work queued later on the same stream (Stream::synchronize or accel::to_device, which
// queues on the current stream, wait for it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "loom/accel/stream.h"
#include "loom/codec/tensor.h"

namespace loom::transforms {

inline bool on_cuda(const Tensor& t) {
  return !t.device().is_cpu();
}

// Host arrays gathered into one buffer and uploaded with one copy. add() returns an array's offset
// (16-byte aligned); after upload(), at<T>(offset) is its device address, valid while the returned
// tensor lives (the device memory is stream-ordered: work queued on `stream` may use it even after
// the tensor is gone, accel's allocator reuses it only for later work on that stream).
class DeviceUpload {
 public:
  template <typename T>
  size_t add(const T* data, size_t count) {
    const size_t offset = (bytes_.size() + 15) / 16 * 16;
    bytes_.resize(offset + count * sizeof(T));
    if (count > 0) std::memcpy(bytes_.data() + offset, data, count * sizeof(T));
    return offset;
  }
  template <typename T>
  size_t add(const std::vector<T>& v) {
    return add(v.data(), v.size());
  }
  // Copies the gathered bytes to `device` on `stream`; the host buffer may change once it returns.
  Tensor upload(Device device, const accel::Stream& stream);
  template <typename T>
  const T* at(size_t offset) const {
    return reinterpret_cast<const T*>(base_ + offset);
  }

 private:
  std::vector<uint8_t> bytes_;
  const uint8_t* base_ = nullptr;
};

// `image` (a 3-D CUDA tensor) when it is contiguous, else a contiguous copy of it made on `stream`
// (the gather kernel of geometry.cu).
Tensor contiguous_on_device(const Tensor& image, const accel::Stream& stream);

}  // namespace loom::transforms
