// Draw a labelled bounding box, as torchvision.utils.draw_bounding_boxes does, and save a PNG.
//   sample_draw_boxes INPUT OUTPUT.png
#include <cstdio>

#include "loom/codec/error.h"
#include "loom/vision/draw.h"
#include "loom/vision/image.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s INPUT OUTPUT.png\n", argv[0]);
    return 2;
  }
  using namespace loom;
  try {
    vision::DecodeOptions decode;
    decode.mode = vision::ImageReadMode::kRGB;
    const Tensor image = vision::read_image(argv[1], decode);  // uint8, 3 x H x W
    const int64_t h = image.size(1), w = image.size(2);

    // One box over the middle half of the image: (x1, y1, x2, y2), corners inclusive.
    Tensor boxes = Tensor::empty({1, 4}, DType::kFloat32);
    float* b = boxes.data<float>();
    b[0] = w / 4.0f, b[1] = h / 4.0f, b[2] = w * 3 / 4.0f, b[3] = h * 3 / 4.0f;

    vision::BoxDrawOptions options;
    options.colors = {{255, 64, 0}};
    options.width = 3;
    options.fill = true;  // 100/255 opacity under the outline
    options.labels = {"object"};
    options.fill_labels = true;  // black text on a box-colored background
    options.font_size = 16;      // DejaVu Sans (vision::kDefaultFontPath)
    const Tensor drawn = vision::draw_bounding_boxes(image, boxes, options);

    vision::write_image(drawn, argv[2]);
    std::printf("drew 1 box on %lldx%lld -> %s\n", static_cast<long long>(w), static_cast<long long>(h), argv[2]);
  } catch (const Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
