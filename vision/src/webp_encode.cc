// WebP encode through libwebp's advanced API (as Pillow's WebP writer): lossy at a quality, or lossless.
#include <fmt/format.h>
#include <webp/encode.h>

#include <memory>

#include "loom/codec/error.h"
#include "pixel_rows.h"

namespace loom::vision {
namespace {

struct PictureDeleter {
  void operator()(WebPPicture* p) const { WebPPictureFree(p); }
};

const char* encode_error(WebPEncodingError e) {
  switch (e) {
    case VP8_ENC_ERROR_OUT_OF_MEMORY:
    case VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY: return "out of memory";
    case VP8_ENC_ERROR_BAD_DIMENSION: return "the image is larger than WebP's 16383 x 16383";
    case VP8_ENC_ERROR_FILE_TOO_BIG: return "the encoded image would exceed WebP's 4 GiB";
    default: return "the encoder failed";
  }
}

}  // namespace

std::vector<uint8_t> encode_webp(const Tensor& image, const WebpEncodeOptions& opt) {
  if (!(opt.quality >= 0 && opt.quality <= 100)) {
    throw Error(ErrorCode::kInvalidInput, "encode_webp", fmt::format("quality {} is outside 0..100", opt.quality));
  }
  if (opt.method < 0 || opt.method > 6) {
    throw Error(ErrorCode::kInvalidInput, "encode_webp", fmt::format("method {} is outside 0..6", opt.method));
  }
  if (image.dtype() != DType::kUInt8) {
    throw Error(ErrorCode::kInvalidInput, "encode_webp",
                fmt::format("needs uint8 pixels, got {}", to_string(image.dtype())));
  }
  RowSource<uint8_t> rows(image, opt.layout);
  const int channels = rows.channels(), width = rows.width(), height = rows.height();
  if (channels < 1 || channels > 4) {
    throw Error(ErrorCode::kInvalidInput, "encode_webp", fmt::format("needs 1 to 4 channels, got {}", channels));
  }
  if (width <= 0 || height <= 0) {
    throw Error(ErrorCode::kInvalidInput, "encode_webp", fmt::format("empty image {}x{}", width, height));
  }
  if (width > WEBP_MAX_DIMENSION || height > WEBP_MAX_DIMENSION) {
    throw Error(
        ErrorCode::kInvalidInput, "encode_webp",
        fmt::format("{}x{} is larger than WebP's {} x {}", width, height, WEBP_MAX_DIMENSION, WEBP_MAX_DIMENSION));
  }

  // WebP stores RGB or RGBA: gray repeats into RGB.
  const bool alpha = channels == 2 || channels == 4;
  const int packed_channels = alpha ? 4 : 3;
  std::vector<uint8_t> packed(static_cast<size_t>(width) * height * packed_channels);
  for (int y = 0; y < height; ++y) {
    const uint8_t* src = rows.row(y);
    uint8_t* dst = packed.data() + static_cast<size_t>(y) * width * packed_channels;
    for (int x = 0; x < width; ++x, src += channels, dst += packed_channels) {
      const bool gray = channels <= 2;
      dst[0] = src[0];
      dst[1] = gray ? src[0] : src[1];
      dst[2] = gray ? src[0] : src[2];
      if (alpha) dst[3] = src[channels - 1];
    }
  }

  WebPConfig config;
  if (!WebPConfigInit(&config)) throw Error(ErrorCode::kInternal, "encode_webp", "libwebp version mismatch");
  config.lossless = opt.lossless ? 1 : 0;
  config.quality = opt.quality;
  config.method = opt.method;
  config.exact = config.lossless;  // keep the color under transparent pixels too
  if (!WebPValidateConfig(&config)) throw Error(ErrorCode::kInvalidInput, "encode_webp", "invalid options");

  WebPPicture picture;
  if (!WebPPictureInit(&picture)) throw Error(ErrorCode::kInternal, "encode_webp", "libwebp version mismatch");
  const std::unique_ptr<WebPPicture, PictureDeleter> owned(&picture);
  picture.width = width;
  picture.height = height;
  picture.use_argb = config.lossless;
  const int stride = width * packed_channels;
  const int imported = alpha ? WebPPictureImportRGBA(&picture, packed.data(), stride)
                             : WebPPictureImportRGB(&picture, packed.data(), stride);
  if (!imported) throw Error(ErrorCode::kLimitExceeded, "encode_webp", "out of memory");

  WebPMemoryWriter writer;
  WebPMemoryWriterInit(&writer);
  picture.writer = WebPMemoryWrite;
  picture.custom_ptr = &writer;
  const bool ok = WebPEncode(&config, &picture) != 0;
  std::vector<uint8_t> out(writer.mem, writer.mem + writer.size);
  WebPMemoryWriterClear(&writer);
  if (!ok) throw Error(ErrorCode::kInternal, "encode_webp", encode_error(picture.error_code));
  return out;
}

}  // namespace loom::vision
