// libFuzzer target: image sniffing, header reading and decoding (JPEG, PNG, WebP, GIF, TIFF, AVIF,
// HEIF, BMP) from memory, and every frame of an animation.
// The last input byte picks the decode options, so that one corpus explores read modes, layouts,
// EXIF orientation, DCT scaling, crops and 16-bit reduction. Limits are set low inside the harness so
// that every report is a real bug, not an allocation the limits were meant to refuse.
#include <cstddef>
#include <cstdint>
#include <span>

#include "fuzz_util.h"
#include "loom/codec/error.h"
#include "loom/vision/image.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace loom;
  const uint8_t knobs = size > 0 ? data[size - 1] : 0;
  vision::DecodeOptions opt;
  opt.limits.max_pixels = 1 << 22;
  opt.limits.max_bytes = 64 << 20;
  opt.limits.max_jpeg_scans = 100;
  opt.mode = static_cast<vision::ImageReadMode>(knobs % 5);
  opt.layout = (knobs & 8) ? Layout::kHWC : Layout::kCHW;
  opt.apply_exif_orientation = (knobs & 16) != 0;
  if (knobs & 32) {
    opt.min_width = 17;
    opt.min_height = 9;
  }
  if (knobs & 64) opt.crop = vision::Rect{3, 5, 40, 30};
  opt.to_uint8 = (knobs & 128) != 0;

  const ByteSource src = ByteSource::from_memory(std::span<const uint8_t>(data, size), "fuzz-input");
  try {
    (void)vision::read_image_info(src, opt.limits);
  } catch (const Error&) {
  }
  try {
    fuzz::touch(vision::decode_image(src, opt));
  } catch (const Error&) {
  }
  if (knobs & 4) {
    try {
      fuzz::touch(vision::decode_image_frames(src, opt));
    } catch (const Error&) {
    }
  }
  return 0;
}
