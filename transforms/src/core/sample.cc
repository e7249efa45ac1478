#include "loom/transforms/sample.h"

#include "core/image_check.h"

namespace loom::transforms {

Size image_size(const Tensor& image, Layout layout) {
  const ImageShape shape = image_shape(image, layout, "image");
  return {shape.height, shape.width};
}

int64_t image_channels(const Tensor& image, Layout layout) {
  return image_shape(image, layout, "image").channels;
}

}  // namespace loom::transforms
