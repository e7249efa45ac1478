// A sample: an image and the annotations that must move with its pixels.
//
// The geometric transforms (geometry.h) change the image and every annotation present together; the
// color transforms change the image only. `labels` (and any other per-box tensor a caller keeps in
// `labels`) has one row per box and is filtered together with the boxes by sanitize.
// Ownership: tensors are shared handles (see Tensor); transforms return new tensors and never write
// into their inputs.
#pragma once

#include <optional>

#include "loom/codec/api.h"
#include "loom/codec/layout.h"
#include "loom/codec/size.h"
#include "loom/codec/tensor.h"
#include "loom/transforms/annotations.h"

LOOM_API_BEGIN

namespace loom::transforms {

struct Sample {
  Tensor image;  // uint8 or float32 (some transforms accept more; each header says), C x H x W or H x W x C
  Layout layout = Layout::kCHW;
  std::optional<BoundingBoxes> boxes;
  std::optional<KeyPoints> keypoints;
  Tensor labels;  // optional: [N] or [N, ...], one row per box
};

// The image's height and width; Error(kInvalidInput) when it is not a 3-D tensor.
Size image_size(const Tensor& image, Layout layout);
inline Size image_size(const Sample& sample) {
  return image_size(sample.image, sample.layout);
}
int64_t image_channels(const Tensor& image, Layout layout);

}  // namespace loom::transforms

LOOM_API_END
