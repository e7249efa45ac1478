#include "loom/transforms/sample.h"

#include <fmt/format.h>

#include "loom/codec/error.h"

namespace loom::transforms {

Size image_size(const Tensor& image, Layout layout) {
  if (image.ndim() != 3) {
    throw Error(ErrorCode::kInvalidInput, "image", fmt::format("expects a 3-D CHW or HWC image, got {} dims", image.ndim()));
  }
  return layout == Layout::kHWC ? Size{image.size(0), image.size(1)} : Size{image.size(1), image.size(2)};
}

int64_t image_channels(const Tensor& image, Layout layout) {
  image_size(image, layout);  // validates
  return image.size(layout == Layout::kHWC ? 2 : 0);
}

}  // namespace loom::transforms
