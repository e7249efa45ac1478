// CUDA implementation of loom/accel/cuda.h (compiled only when LOOM_WITH_CUDA is on).
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "loom/accel/cuda.h"
#include "loom/codec/error.h"

namespace loom::accel {
namespace {

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    throw Error(ErrorCode::kUnsupported, "cuda", fmt::format("{}: {}", what, cudaGetErrorString(status)));
  }
}

bool fork_unsafe() {
  try {
    check_cuda_fork_safety("cuda");
    return false;
  } catch (const Error&) {
    return true;
  }
}

}  // namespace

bool built_with_cuda() {
  return true;
}

int cuda_device_count() {
  if (fork_unsafe()) return 0;
  note_cuda_initialized();
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no device" status
    return 0;
  }
  return count;
}

Tensor to_device(const Tensor& src, Device device) {
  const Tensor in = src.device().is_cpu() ? src.contiguous() : src;
  if (!in.is_contiguous()) throw Error(ErrorCode::kUnsupported, "cuda", "device tensors must be contiguous to copy");
  if (in.device().is_cpu() && device.is_cpu()) return in.clone();
  check_cuda_fork_safety("cuda");  // before the runtime is touched in a forked child
  if (device.index < 0 || device.index >= cuda_device_count()) {
    throw Error(ErrorCode::kUnsupported, "cuda", fmt::format("CUDA device {} is not available", device.index));
  }
  Tensor out;
  if (device.is_cpu()) {
    out = Tensor::empty(in.shape(), in.dtype());
  } else {
    check(cudaSetDevice(device.index), "cudaSetDevice");
    void* data = nullptr;
    check(cudaMalloc(&data, std::max<size_t>(in.nbytes(), 1)), "cudaMalloc");
    out = Tensor::from_blob(data, in.shape(), {}, in.dtype(), device, [](void* p) { cudaFree(p); });
  }
  check(cudaMemcpy(out.data(), in.data(), in.nbytes(), cudaMemcpyDefault), "cudaMemcpy");
  return out;
}

}  // namespace loom::accel
