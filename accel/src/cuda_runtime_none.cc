// loom/accel/cuda.h for builds without CUDA (LOOM_WITH_CUDA off).
#include "loom/accel/cuda.h"
#include "loom/codec/error.h"

namespace loom::accel {

bool built_with_cuda() {
  return false;
}

int cuda_device_count() {
  return 0;
}

Tensor to_device(const Tensor& src, Device device) {
  if (src.device().is_cpu() && device.is_cpu()) return src.clone();
  throw Error(ErrorCode::kUnsupported, "cuda", "loom was built without CUDA support");
}

}  // namespace loom::accel
