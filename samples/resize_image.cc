// Decode a JPEG straight to a reduced size (DCT scaling), then resize so that the shorter side is 224,
// as torchvision's Resize(224) does, and save a JPEG.
//   sample_resize_image INPUT.jpg OUTPUT.jpg
#include <cstdio>

#include "loom/codec/error.h"
#include "loom/transforms/resize.h"
#include "loom/vision/image.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s INPUT OUTPUT.jpg\n", argv[0]);
    return 2;
  }
  using namespace loom;
  try {
    const ByteSource bytes = ByteSource::from_file(argv[1]);
    const vision::ImageInfo info = vision::read_image_info(bytes);
    const Size target = transforms::size_for_shorter_side({info.height, info.width}, 224);

    vision::DecodeOptions decode;
    decode.layout = Layout::kHWC;  // the layout codecs produce natively
    decode.mode = vision::ImageReadMode::kRGB;
    decode.min_width = static_cast<int>(target.width);  // JPEG: decode at the smallest M/8 scale that covers it
    decode.min_height = static_cast<int>(target.height);
    const Tensor scaled = vision::decode_image(bytes, decode);

    transforms::ResizeOptions resize;
    resize.layout = Layout::kHWC;
    const Tensor out = transforms::resize(scaled, target, resize);  // antialiased bilinear
    std::printf("%dx%d -> decoded %lldx%lld -> %lldx%lld\n", info.width, info.height,
                static_cast<long long>(scaled.size(1)), static_cast<long long>(scaled.size(0)),
                static_cast<long long>(out.size(1)), static_cast<long long>(out.size(0)));

    vision::WriteOptions write;
    write.jpeg.layout = Layout::kHWC;
    write.jpeg.quality = 90;
    vision::write_image(out, argv[2], write);
  } catch (const Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
