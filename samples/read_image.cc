// Decode an image into a CHW uint8 tensor and save it as PNG.
//   sample_read_image INPUT.jpg OUTPUT.png
#include <cstdio>

#include "loom/codec/error.h"
#include "loom/vision/image.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s INPUT OUTPUT.png\n", argv[0]);
    return 2;
  }
  try {
    loom::vision::DecodeOptions options;
    options.mode = loom::vision::ImageReadMode::kRGB;  // always 3 channels
    const loom::Tensor image = loom::vision::read_image(argv[1], options);
    std::printf("%s: %lld x %lld x %lld (CHW) %s\n", argv[1], static_cast<long long>(image.size(0)),
                static_cast<long long>(image.size(1)), static_cast<long long>(image.size(2)),
                std::string(loom::to_string(image.dtype())).c_str());
    loom::vision::write_image(image, argv[2]);  // PNG by extension, written atomically
  } catch (const loom::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());  // names the file and the problem
    return 1;
  }
  return 0;
}
