// Augment a detection sample: an image, two boxes with their labels and a few keypoints go through one
// random pipeline (torchvision.transforms.v2 style) that moves the annotations with the pixels. Prints
// the boxes before and after and saves the augmented image with the boxes and keypoints drawn.
//   sample_augment_detection INPUT OUTPUT.png [SEED]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "loom/codec/error.h"
#include "loom/transforms/color_transforms.h"
#include "loom/transforms/geometry_transforms.h"
#include "loom/transforms/transform.h"
#include "loom/vision/draw.h"
#include "loom/vision/image.h"

namespace {

void print_sample(const char* title, const loom::transforms::Sample& s) {
  const loom::transforms::BoundingBoxes& b = *s.boxes;
  std::printf("%s: image %lldx%lld, %lld boxes (%s)\n", title, static_cast<long long>(b.canvas.width),
              static_cast<long long>(b.canvas.height), static_cast<long long>(b.data.size(0)),
              std::string(loom::transforms::to_string(b.format)).c_str());
  for (int64_t i = 0; i < b.data.size(0); ++i) {
    const float* v = b.data.data<float>() + i * 4;
    std::printf("  label %lld: (%.1f, %.1f, %.1f, %.1f)\n", static_cast<long long>(s.labels.data<int64_t>()[i]), v[0],
                v[1], v[2], v[3]);
  }
  const loom::Tensor& k = s.keypoints->data;
  std::printf("  %lld keypoints:", static_cast<long long>(k.size(0)));
  for (int64_t i = 0; i < k.size(0); ++i)
    std::printf(" (%.1f, %.1f)", k.data<float>()[2 * i], k.data<float>()[2 * i + 1]);
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4) {
    std::fprintf(stderr, "usage: %s INPUT OUTPUT.png [SEED]\n", argv[0]);
    return 2;
  }
  using namespace loom;
  using namespace loom::transforms;
  try {
    vision::DecodeOptions decode;
    decode.mode = vision::ImageReadMode::kRGB;

    Sample sample;
    sample.image = vision::read_image(argv[1], decode);  // uint8, 3 x H x W (sample.layout is kCHW)
    const Size size = image_size(sample);
    const float w = static_cast<float>(size.width), h = static_cast<float>(size.height);

    // Two axis-aligned boxes (x1, y1, x2, y2) in pixels of this image, and one label per box.
    Tensor boxes = Tensor::empty({2, 4}, DType::kFloat32);
    const float xyxy[8] = {0.10f * w, 0.15f * h, 0.55f * w, 0.70f * h, 0.50f * w, 0.40f * h, 0.95f * w, 0.90f * h};
    std::copy(xyxy, xyxy + 8, boxes.data<float>());
    sample.boxes = BoundingBoxes{boxes, BoxFormat::kXYXY, size, Clamping::kSoft};
    sample.labels = Tensor::empty({2}, DType::kInt64);
    sample.labels.data<int64_t>()[0] = 1;
    sample.labels.data<int64_t>()[1] = 2;

    // Three keypoints (x, y): the boxes' centres and a point near the top-left corner.
    Tensor points = Tensor::empty({3, 2}, DType::kFloat32);
    const float xy[6] = {0.325f * w, 0.425f * h, 0.725f * w, 0.65f * h, 0.05f * w, 0.05f * h};
    std::copy(xy, xy + 6, points.data<float>());
    sample.keypoints = KeyPoints{points, size};

    // The pipeline: immutable, so one object can serve every sample and every thread.
    const Compose augment({
        std::make_shared<RandomResizedCrop>(Size{384, 384}, Range{0.3, 1.0}),
        std::make_shared<RandomHorizontalFlip>(0.5),
        std::make_shared<RandomRotation>(Range{-20.0, 20.0}, RotateOptions{.interpolation = Interpolation::kBilinear}),
        std::make_shared<ColorJitter>(0.4, 0.4, 0.4, 0.05),
        std::make_shared<SanitizeBoundingBoxes>(),  // drops boxes (and their labels) that left the image
    });
    std::printf("%s\n", augment.describe().c_str());

    // Sample i of a data set gets Rng(seed, i): the same seed gives the same result on any thread.
    const uint64_t seed = argc == 4 ? std::strtoull(argv[3], nullptr, 10) : 7;
    Rng rng(seed, /*stream=*/0);
    print_sample("before", sample);
    Sample out = sample;  // apply() replaces the tensors; `sample` keeps the originals
    augment.apply(out, rng);
    print_sample("after", out);

    // Draw the boxes (one color per label) and the keypoints, as torchvision.utils does.
    vision::BoxDrawOptions draw;
    for (int64_t i = 0; i < out.labels.numel(); ++i) {
      draw.colors.push_back(out.labels.data<int64_t>()[i] == 1 ? vision::Color{255, 64, 0}
                                                               : vision::Color{0, 160, 255});
    }
    if (draw.colors.empty()) draw.colors = {{255, 64, 0}};  // no boxes left: the color is unused
    draw.width = 3;
    Tensor drawn = vision::draw_bounding_boxes(out.image, out.boxes->data, draw);
    if (out.keypoints->data.size(0) > 0) {
      vision::KeypointDrawOptions kp;
      kp.color = {255, 255, 0};
      kp.radius = 4;
      // draw_keypoints takes [instances, points, 2]: here one instance holding every point.
      drawn =
          vision::draw_keypoints(drawn, out.keypoints->data.contiguous().view({1, out.keypoints->data.size(0), 2}), kp);
    }
    vision::write_image(drawn, argv[2]);
    std::printf("wrote %s\n", argv[2]);
  } catch (const Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
