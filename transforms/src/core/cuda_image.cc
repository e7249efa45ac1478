// The ops' device helpers (core/cuda_image.h), built with LOOM_WITH_CUDA only.
#include "core/cuda_image.h"

#include "geometry/geometry_kernels.h"
#include "loom/accel/cuda.h"
#include "loom/accel/device_memory.h"

namespace loom::transforms {

Tensor DeviceUpload::upload(Device device, const accel::Stream& stream) {
  const int64_t n = static_cast<int64_t>(bytes_.size());
  // A borrowed view of the host bytes: accel::copy returns once a pageable source may change.
  const Tensor host = Tensor::from_blob(bytes_.data(), {&n, 1}, {}, DType::kUInt8);
  Tensor device_bytes = accel::copy(host, device, stream);
  base_ = static_cast<const uint8_t*>(device_bytes.data());
  return device_bytes;
}

Tensor contiguous_on_device(const Tensor& image, const accel::Stream& stream) {
  if (image.is_contiguous()) return image;
  Tensor out = accel::empty_device(image.shape(), image.dtype(), image.device(), stream);
  detail::GatherPlan plan;
  plan.planes = image.size(0);
  plan.out_height = image.size(1);
  plan.out_width = image.size(2);
  plan.stride_plane = image.stride(0);
  plan.stride_row = image.stride(1);
  plan.stride_col = image.stride(2);
  plan.elem_bytes = element_size(image.dtype());
  detail::gather_cuda(image.data(), out.data(), plan, stream.handle());
  return out;
}

}  // namespace loom::transforms
