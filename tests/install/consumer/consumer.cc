// Uses an installed loom as an application would: encodes a generated image to PNG and WebP, decodes
// both back, resizes, and checks the pixels; prints the version it was built against. Exit status 0
// when every check holds.
#include <cstdio>
#include <cstring>
#include <vector>

#include "loom/transforms/resize.h"
#include "loom/version.h"
#include "loom/vision/image.h"

int main() {
  loom::Tensor image = loom::Tensor::empty({3, 24, 32}, loom::DType::kUInt8);
  auto* p = static_cast<uint8_t*>(image.data());
  for (int64_t i = 0; i < image.numel(); ++i) p[i] = static_cast<uint8_t>(i * 7 % 251);

  loom::vision::WebpEncodeOptions lossless;
  lossless.lossless = true;
  for (const std::vector<uint8_t>& bytes :
       {loom::vision::encode_png(image), loom::vision::encode_webp(image, lossless)}) {
    const loom::Tensor back = loom::vision::decode_image(loom::ByteSource::from_vector(bytes, "consumer"));
    if (back.nbytes() != image.nbytes() || std::memcmp(back.data(), image.data(), image.nbytes()) != 0) {
      std::fprintf(stderr, "a round trip changed the pixels\n");
      return 1;
    }
  }
  const loom::Tensor small = loom::transforms::resize(image, loom::Size{12, 16});
  if (small.size(1) != 12 || small.size(2) != 16) return 1;
  std::printf("loom %s (%d.%d.%d): ok\n", LOOM_VERSION_STRING, LOOM_VERSION_MAJOR, LOOM_VERSION_MINOR,
              LOOM_VERSION_PATCH);
  return 0;
}
