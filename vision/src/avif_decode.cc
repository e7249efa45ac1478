// AVIF decode through libavif (AV1 through dav1d or libaom, as Debian builds it): 8, 10 and 12-bit,
// with alpha, converted to RGB by libavif as avifdec does. The first image of a sequence.
// Orientation: AVIF carries it as the irot/imir boxes (EXIF's orientation is not used); they are
// reported as the matching EXIF orientation and applied when asked, as EXIF is for JPEG.
#include <avif/avif.h>
#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "image_codecs.h"
#include "loom/codec/error.h"
#include "whole_image.h"

namespace loom::vision {
namespace {

struct DecoderDeleter {
  void operator()(avifDecoder* d) const { avifDecoderDestroy(d); }
};
using Decoder = std::unique_ptr<avifDecoder, DecoderDeleter>;

[[noreturn]] void fail(const ByteSource& src, avifResult result, std::string_view stage) {
  ErrorCode code = ErrorCode::kInvalidInput;
  std::string text = fmt::format("AVIF: {} ({})", avifResultToString(result), stage);
  if (result == AVIF_RESULT_TRUNCATED_DATA) text = "truncated AVIF: the data ends before the image";
  if (result == AVIF_RESULT_NO_CODEC_AVAILABLE || result == AVIF_RESULT_NOT_IMPLEMENTED) {
    code = ErrorCode::kUnsupported;
  }
  throw Error(code, src.name(), text);
}

// Parsed (header read, nothing decoded) with loom's limits.
Decoder open(const ByteSource& src, const Limits& limits) {
  check_input_size(src, limits);
  Decoder d(avifDecoderCreate());
  if (!d) throw Error(ErrorCode::kInternal, src.name(), "AVIF: cannot create a decoder");
  d->maxThreads = 1;
  // libavif keeps its own size guard (AVIF_DEFAULT_IMAGE_SIZE_LIMIT, 16384 x 16384), reported as a
  // parse failure; loom's limits are checked after parsing, before any pixel is decoded.
  d->ignoreExif = AVIF_TRUE;
  d->ignoreXMP = AVIF_TRUE;
  avifResult r = avifDecoderSetIOMemory(d.get(), src.data(), src.size());
  if (r != AVIF_RESULT_OK) fail(src, r, "reading");
  r = avifDecoderParse(d.get());
  if (r != AVIF_RESULT_OK) fail(src, r, "parsing the container");
  return d;
}

// irot (angle x 90 degrees anti-clockwise) then imir (mode 0: top-bottom, 1: left-right), as the EXIF
// orientation that turns the stored image upright.
int orientation_of(const avifImage& image) {
  const bool rotate = (image.transformFlags & AVIF_TRANSFORM_IROT) != 0;
  const bool mirror = (image.transformFlags & AVIF_TRANSFORM_IMIR) != 0;
  const int angle = rotate ? image.irot.angle & 3 : 0;
  static constexpr int kPlain[4] = {1, 8, 3, 6};
  static constexpr int kTopBottom[4] = {4, 5, 2, 7};
  static constexpr int kLeftRight[4] = {2, 7, 4, 5};
  if (!mirror) return kPlain[angle];
  return image.imir.mode == 0 ? kTopBottom[angle] : kLeftRight[angle];
}

int channels_of(const avifDecoder& d) {
  const bool gray = d.image->yuvFormat == AVIF_PIXEL_FORMAT_YUV400;
  return (gray ? 1 : 3) + (d.alphaPresent ? 1 : 0);
}

}  // namespace

ImageInfo avif_info(const ByteSource& src, const Limits& limits) {
  const Decoder d = open(src, limits);
  ImageInfo info;
  info.format = Format::kAvif;
  info.width = static_cast<int>(std::min<uint32_t>(d->image->width, INT32_MAX));
  info.height = static_cast<int>(std::min<uint32_t>(d->image->height, INT32_MAX));
  info.channels = channels_of(*d);
  info.bit_depth = static_cast<int>(d->image->depth);
  info.orientation = orientation_of(*d->image);
  info.frames = std::max(1, d->imageCount);
  return info;
}

Tensor decode_avif(const ByteSource& src, const DecodeOptions& options) {
  const Decoder d = open(src, options.limits);
  const bool wide = d->image->depth > 8 && !options.to_uint8;
  // libavif converts gray (4:0:0) to RGB with equal samples.
  const int channels = channels_of(*d), rgb_channels = channels == 1 || channels == 3 ? 3 : 4;
  check_image_size(options.limits, src.name(), d->image->width, d->image->height, rgb_channels, wide ? 2 : 1);
  const avifResult r = avifDecoderNextImage(d.get());
  if (r != AVIF_RESULT_OK) fail(src, r, "decoding the image");

  WholeImage rgb;
  rgb.allocate(static_cast<int>(d->image->width), static_cast<int>(d->image->height), rgb_channels, wide);
  avifRGBImage out;
  avifRGBImageSetDefaults(&out, d->image);
  out.format = rgb_channels == 4 ? AVIF_RGB_FORMAT_RGBA : AVIF_RGB_FORMAT_RGB;
  out.depth = wide ? 16 : 8;
  out.pixels = rgb.samples.data();
  out.rowBytes = static_cast<uint32_t>(rgb.row_bytes());
  const avifResult converted = avifImageYUVToRGB(d->image, &out);
  if (converted != AVIF_RESULT_OK) fail(src, converted, "converting to RGB");

  rgb.unchanged = channels;
  return finish_image(rgb, options, orientation_of(*d->image), src.name());
}

}  // namespace loom::vision
