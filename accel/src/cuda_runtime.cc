// CUDA implementation of loom/accel/cuda.h (compiled only when LOOM_WITH_CUDA is on).
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <mutex>

#include "loom/accel/cuda.h"
#include "loom/accel/device_memory.h"
#include "loom/codec/error.h"

namespace loom::accel {
namespace {

void check_contiguous(const Tensor& t, const char* what) {
  if (!t.is_contiguous()) {
    throw Error(ErrorCode::kUnsupported, "cuda",
                fmt::format("{}: the tensor must be contiguous (make a CPU tensor contiguous first)", what));
  }
}

// The device whose stream runs a copy between `a` and `b`: the CUDA side (the source's when both are).
int copy_device(Device from, Device to) {
  return from.is_cpu() ? to.index : from.index;
}

void check_copy_stream(Device from, Device to, const Stream& stream) {
  if (from.is_cpu() && to.is_cpu()) return;
  const bool fits = (!from.is_cpu() && from.index == stream.device()) || (!to.is_cpu() && to.index == stream.device());
  if (!fits) {
    throw Error(ErrorCode::kInvalidInput, "cuda",
                fmt::format("a copy between {} and {} cannot run on a stream of CUDA device {}",
                            from.is_cpu() ? "the CPU" : fmt::format("CUDA device {}", from.index),
                            to.is_cpu() ? "the CPU" : fmt::format("CUDA device {}", to.index), stream.device()));
  }
}

void check_usable(Device device, const char* what) {
  if (!device.is_cpu()) check_cuda_device(device.index, what);
}

// Queues the copy of src's bytes into dst (both contiguous, same size) on `stream`.
void queue_copy(const Tensor& src, const Tensor& dst, const Stream& stream) {
  if (src.nbytes() == 0) return;
  const DeviceGuard on(stream.device());
  check_cuda(cudaMemcpyAsync(dst.data(), src.data(), src.nbytes(), cudaMemcpyDefault,
                             static_cast<cudaStream_t>(stream.handle())),
             "cudaMemcpyAsync");
  // Device memory of the allocator that another stream owns must outlive this copy there too.
  if (!src.device().is_cpu()) record_stream(src, stream);
  if (!dst.device().is_cpu()) record_stream(dst, stream);
}

}  // namespace

bool built_with_cuda() {
  return true;
}

int cuda_device_count() {
  if (forked_after_cuda_init()) return 0;
  static int count = -1;
  static std::once_flag once;
  std::call_once(once, [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      cudaGetLastError();  // clear the "no device" status
      n = 0;
    }
    // With no usable device nothing of CUDA can be used, in this process or a forked one: only a
    // runtime that found devices makes a forked child unsafe.
    if (n > 0) note_cuda_initialized();
    count = n;
  });
  return count;
}

void check_cuda_device(int index, const char* input) {
  check_cuda_fork_safety(input);
  const int count = cuda_device_count();
  if (count == 0) {
    throw Error(ErrorCode::kUnsupported, input,
                fmt::format("device cuda:{} is not usable: no CUDA device (no GPU, or no driver)", index));
  }
  if (index < 0 || index >= count) {
    throw Error(ErrorCode::kUnsupported, input,
                fmt::format("device cuda:{} does not exist ({} CUDA device{})", index, count, count == 1 ? "" : "s"));
  }
}

void check_cuda(int status, const char* what) {
  if (status == cudaSuccess) return;
  const auto error = static_cast<cudaError_t>(status);
  cudaGetLastError();  // a status that is not sticky must not fail the next call too
  const std::string text = fmt::format("{}: {} ({})", what, cudaGetErrorString(error), cudaGetErrorName(error));
  switch (error) {
    case cudaErrorMemoryAllocation: throw Error(ErrorCode::kLimitExceeded, "cuda", text);
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorInvalidDevice:
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorUnsupportedPtxVersion:
    case cudaErrorDevicesUnavailable:
    case cudaErrorNotSupported: throw Error(ErrorCode::kUnsupported, "cuda", text);
    default: throw Error(ErrorCode::kIo, "cuda", text);
  }
}

Tensor copy(const Tensor& src, Device device, const Stream& stream) {
  check_contiguous(src, "copy");
  if (src.device().is_cpu() && device.is_cpu()) return src.clone();
  check_usable(src.device(), "copy");
  check_usable(device, "copy");
  check_copy_stream(src.device(), device, stream);
  const Tensor dst =
      device.is_cpu() ? empty_pinned(src.shape(), src.dtype()) : empty_device(src.shape(), src.dtype(), device, stream);
  queue_copy(src, dst, stream);
  return dst;
}

void copy_into(const Tensor& src, const Tensor& dst, const Stream& stream) {
  if (src.dtype() != dst.dtype() ||
      !std::equal(src.shape().begin(), src.shape().end(), dst.shape().begin(), dst.shape().end())) {
    throw Error(ErrorCode::kInvalidInput, "cuda", "copy_into: the tensors differ in shape or dtype");
  }
  check_contiguous(src, "copy_into");
  check_contiguous(dst, "copy_into");
  if (src.device().is_cpu() && dst.device().is_cpu()) {
    dst.copy_from(src);
    return;
  }
  check_usable(src.device(), "copy_into");
  check_usable(dst.device(), "copy_into");
  check_copy_stream(src.device(), dst.device(), stream);
  queue_copy(src, dst, stream);
}

Tensor to_device(const Tensor& src, Device device) {
  const Tensor in = src.device().is_cpu() ? src.contiguous() : src;
  check_contiguous(in, "to_device");
  if (in.device().is_cpu() && device.is_cpu()) return in.clone();
  check_usable(in.device(), "to_device");
  check_usable(device, "to_device");
  const Stream stream = current_stream(copy_device(in.device(), device));
  // A CPU result is ordinary memory (pinned memory is kept for the asynchronous copies).
  const Tensor out =
      device.is_cpu() ? Tensor::empty(in.shape(), in.dtype()) : empty_device(in.shape(), in.dtype(), device, stream);
  queue_copy(in, out, stream);
  stream.synchronize();
  return out;
}

}  // namespace loom::accel
