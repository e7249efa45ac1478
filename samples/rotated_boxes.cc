// Rotated bounding boxes: one box in the three rotated formats, then clamped to the image soft and hard.
//   sample_rotated_boxes
#include <algorithm>
#include <cstdio>
#include <string>

#include "loom/codec/error.h"
#include "loom/transforms/annotations.h"

namespace {

// One line per box.
void print(const char* title, const loom::Tensor& boxes, loom::transforms::BoxFormat format) {
  const int64_t k = boxes.size(1);
  for (int64_t i = 0; i < boxes.size(0); ++i) {
    std::printf("%-20s %-9s", i == 0 ? title : "", std::string(loom::transforms::to_string(format)).c_str());
    for (int64_t j = 0; j < k; ++j) std::printf(" %8.3f", boxes.data<double>()[i * k + j]);
    std::printf("\n");
  }
}

}  // namespace

int main() {
  using namespace loom;
  using namespace loom::transforms;
  try {
    // Two 40 x 20 boxes turned 30 degrees counter-clockwise on screen (y points down), on a 100 x 60
    // image (Size is height first): the first, centred at (80, 30), pokes one corner out of the right
    // edge; the second, centred at (100, 30), is half outside.
    const Size canvas{60, 100};
    Tensor cxcywhr = Tensor::empty({2, 5}, DType::kFloat64);
    const double values[10] = {80.0, 30.0, 40.0, 20.0, 30.0, 100.0, 30.0, 40.0, 20.0, 30.0};
    std::copy(values, values + 10, cxcywhr.data<double>());
    print("input", cxcywhr, BoxFormat::kCXCYWHR);

    // XYWHR: (x, y) is the first corner, the one the box turns about; XYXYXYXY: the four corners in order.
    const Tensor xywhr = convert_box_format(cxcywhr, BoxFormat::kCXCYWHR, BoxFormat::kXYWHR);
    const Tensor corners = convert_box_format(cxcywhr, BoxFormat::kCXCYWHR, BoxFormat::kXYXYXYXY);
    print("as XYWHR", xywhr, BoxFormat::kXYWHR);
    print("as XYXYXYXY", corners, BoxFormat::kXYXYXYXY);
    print("corners -> CXCYWHR", convert_box_format(corners, BoxFormat::kXYXYXYXY, BoxFormat::kCXCYWHR),
          BoxFormat::kCXCYWHR);

    // Clamping keeps the angle. Soft: the smallest box enclosing the part inside the image, so corners
    // may stay outside (the first box does not change: its cut-off corner leaves every side touching
    // the inside part). Hard: the largest box inside both the box and the image.
    for (const Clamping mode : {Clamping::kSoft, Clamping::kHard}) {
      const BoundingBoxes clamped = clamp_boxes(BoundingBoxes{cxcywhr, BoxFormat::kCXCYWHR, canvas, mode});
      const char* name = mode == Clamping::kSoft ? "soft clamp" : "hard clamp";
      print(name, clamped.data, BoxFormat::kCXCYWHR);
      print(name, convert_box_format(clamped, BoxFormat::kXYXYXYXY).data, BoxFormat::kXYXYXYXY);
    }

    // Axis-aligned and rotated formats do not convert into each other, as in torchvision.
    try {
      convert_box_format(cxcywhr, BoxFormat::kCXCYWHR, BoxFormat::kXYXY);
    } catch (const Error& e) {
      std::printf("CXCYWHR -> XYXY: %s\n", e.what());
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
