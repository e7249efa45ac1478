#include "core/image_check.h"

#include <fmt/format.h>

#include "loom/codec/error.h"

namespace loom::transforms {

int64_t checked_channels(const Tensor& image, Layout layout, const char* op) {
  if (!image.defined() || image.ndim() != 3) {
    throw Error(ErrorCode::kInvalidInput, op,
                fmt::format("expected a 3-D image tensor, got {} dimensions", image.defined() ? image.ndim() : 0));
  }
  if (!image.device().is_cpu()) throw Error(ErrorCode::kUnsupported, op, "the image is not on the CPU");
  return layout == Layout::kCHW ? image.size(0) : image.size(2);
}

void check_u8_or_f32(const Tensor& image, const char* op) {
  if (image.dtype() != DType::kUInt8 && image.dtype() != DType::kFloat32) {
    throw Error(ErrorCode::kUnsupported, op,
                fmt::format("expected a uint8 or float32 image, got {}", to_string(image.dtype())));
  }
}

}  // namespace loom::transforms
