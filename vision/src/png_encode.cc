// PNG encode through libpng.
#include <fmt/format.h>

#include "loom/codec/error.h"
#include "pixel_rows.h"
#include "png_handles.h"

namespace loom::vision {
namespace {

template <typename T>
std::vector<uint8_t> encode(const Tensor& image, const PngEncodeOptions& opt) {
  RowSource<T> rows(image, opt.layout);
  if (rows.channels() < 1 || rows.channels() > 4) {
    throw Error(ErrorCode::kInvalidInput, "encode_png", fmt::format("needs 1 to 4 channels, got {}", rows.channels()));
  }
  if (rows.width() <= 0 || rows.height() <= 0) {
    throw Error(ErrorCode::kInvalidInput, "encode_png", fmt::format("empty image {}x{}", rows.width(), rows.height()));
  }
  static constexpr int kColorType[] = {PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                                       PNG_COLOR_TYPE_RGB_ALPHA};
  std::vector<uint8_t> out;
  PngWriter w(out);
  const bool ok = png_guarded(w.err, [&] {
    png_set_IHDR(w.png, w.info, static_cast<png_uint_32>(rows.width()), static_cast<png_uint_32>(rows.height()),
                 sizeof(T) * 8, kColorType[rows.channels() - 1], PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(w.png, opt.compression_level);
    png_write_info(w.png, w.info);
    if (sizeof(T) == 2) png_set_swap(w.png);  // native uint16 to PNG's big-endian
    for (int y = 0; y < rows.height(); ++y) {
      png_write_row(w.png, reinterpret_cast<png_const_bytep>(rows.row(y)));
    }
    png_write_end(w.png, nullptr);
  });
  if (!ok) throw Error(ErrorCode::kInternal, "encode_png", std::string("libpng: ") + w.err.message);
  return out;
}

}  // namespace

std::vector<uint8_t> encode_png(const Tensor& image, const PngEncodeOptions& opt) {
  if (opt.compression_level < 0 || opt.compression_level > 9) {
    throw Error(ErrorCode::kInvalidInput, "encode_png",
                fmt::format("compression level {} is outside 0..9", opt.compression_level));
  }
  switch (image.dtype()) {
    case DType::kUInt8: return encode<uint8_t>(image, opt);
    case DType::kUInt16: return encode<uint16_t>(image, opt);
    default:
      throw Error(ErrorCode::kInvalidInput, "encode_png",
                  fmt::format("needs uint8 or uint16 pixels, got {}", to_string(image.dtype())));
  }
}

}  // namespace loom::vision
