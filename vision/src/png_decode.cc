// PNG decode through libpng with loom's limits: every bit depth and color type, tRNS, interlacing,
// 16-bit kept as uint16.
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "exif.h"
#include "image_codecs.h"
#include "loom/codec/error.h"
#include "pixel_rows.h"
#include "png_handles.h"
#include "whole_image.h"

namespace loom::vision {
namespace {

[[noreturn]] void fail(const ByteSource& src, const PngErrorState& err) {
  // A refused allocation (PngReader::max_chunk_bytes) is a chunk declaring more than the file holds.
  const std::string refused = err.refused_bytes == 0
                                  ? ""
                                  : fmt::format(
                                        " (a chunk needs {} bytes, more than the file holds and than "
                                        "Limits::max_png_chunk_bytes; not allocated)",
                                        err.refused_bytes);
  if (err.truncated) {
    throw Error(ErrorCode::kInvalidInput, src.name(), "truncated PNG: the data ends before the image" + refused);
  }
  const std::string msg = err.message;
  ErrorCode code = ErrorCode::kInvalidInput;
  if (msg.find("exceeds") != std::string::npos || msg.find("too large") != std::string::npos ||
      msg.find("out of memory") != std::string::npos || msg.find("chunk data is too large") != std::string::npos) {
    code = ErrorCode::kLimitExceeded;
  }
  throw Error(code, src.name(), "PNG: " + msg + refused);
}

// Header fields of an opened PNG.
struct Header {
  png_uint_32 width = 0, height = 0;
  int bit_depth = 0, color_type = 0, interlace = 0;
  bool trns = false;
};

// Starts reading `src` into `r` with loom's limits and reads the header chunks.
Header open(PngReader& r, const ByteSource& src, const Limits& limits) {
  check_input_size(src, limits);
  Header h;
  const bool ok = png_guarded(r.err, [&] {
    // libpng's own dimension cap; loom's pixel limit is checked separately with 64-bit arithmetic.
    png_set_user_limits(r.png, PNG_UINT_31_MAX, PNG_UINT_31_MAX);
    png_set_chunk_cache_max(r.png, limits.max_png_chunks);
    png_set_chunk_malloc_max(r.png, static_cast<png_alloc_size_t>(limits.max_png_chunk_bytes));
    r.max_chunk_bytes = limits.max_png_chunk_bytes;
    png_read_info(r.png, r.info);
    png_get_IHDR(r.png, r.info, &h.width, &h.height, &h.bit_depth, &h.color_type, &h.interlace, nullptr, nullptr);
    h.trns = png_get_valid(r.png, r.info, PNG_INFO_tRNS) != 0;
  });
  if (!ok) fail(src, r.err);
  return h;
}

int unchanged_channels(const Header& h) {
  switch (h.color_type) {
    case PNG_COLOR_TYPE_GRAY: return 1;
    case PNG_COLOR_TYPE_GRAY_ALPHA: return 2;
    case PNG_COLOR_TYPE_PALETTE: return h.trns ? 4 : 3;
    case PNG_COLOR_TYPE_RGB: return 3;
    default: return 4;
  }
}

int orientation_of(const PngReader& r) {
  png_uint_32 size = 0;
  png_bytep exif = nullptr;
  if (png_get_eXIf_1(r.png, r.info, &size, &exif) == 0 || exif == nullptr) return 1;
  return exif_orientation({exif, size});
}

// Sets libpng's transforms so that rows come out with `channels` channels of `bit_depth` bits
// (8 or 16, 16 in host byte order).
void set_transforms(png_structp png, const Header& h, int channels, bool to_uint8) {
  const bool color_in = (h.color_type & PNG_COLOR_MASK_COLOR) != 0;
  const bool want_alpha = channels == 2 || channels == 4;
  bool alpha = (h.color_type & PNG_COLOR_MASK_ALPHA) != 0;
  if (h.color_type == PNG_COLOR_TYPE_PALETTE) {
    png_set_palette_to_rgb(png);  // also turns tRNS into alpha
    alpha = h.trns;
  } else if (h.trns && want_alpha) {
    png_set_tRNS_to_alpha(png);
    alpha = true;
  }
  if (h.color_type == PNG_COLOR_TYPE_GRAY && h.bit_depth < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (h.bit_depth == 16) {
    if (to_uint8) {
      png_set_strip_16(png);  // keeps the high byte, as Pillow
    } else {
      png_set_swap(png);  // PNG is big-endian; tensors hold native uint16
    }
  }
  const bool color_out = channels >= 3;
  // torchvision's weights (0.2989, 0.587; blue gets the rest), in libpng's 1e-5 fixed point.
  if (color_in && !color_out) png_set_rgb_to_gray_fixed(png, /*error_action=*/1, 29890, 58700);
  if (!color_in && color_out) png_set_gray_to_rgb(png);
  if (alpha && !want_alpha) png_set_strip_alpha(png);
  if (!alpha && want_alpha) png_set_add_alpha(png, h.bit_depth == 16 && !to_uint8 ? 0xFFFF : 0xFF, PNG_FILLER_AFTER);
}

template <typename T>
Tensor read_pixels(PngReader& r, const ByteSource& src, const Header& h, const DecodeOptions& opt, int channels,
                   int passes, DType dtype, const Tensor* into) {
  const int width = static_cast<int>(h.width), height = static_cast<int>(h.height);
  const Rect area = opt.crop ? clip_crop(*opt.crop, width, height, src.name()) : Rect{0, 0, width, height};
  const int x0 = area.x, y0 = area.y, out_w = area.width, out_h = area.height;
  Tensor out = output_tensor(into, image_shape(opt.layout, out_h, out_w, channels), dtype, src.name());
  const RowSink<T> sink(out, opt.layout, out_h, out_w, channels);
  const bool full = out_w == width && out_h == height;
  const size_t row_samples = static_cast<size_t>(width) * channels;

  if (passes > 1) {
    // Interlaced: every pass revisits every row, so all rows must stay in memory. The output itself
    // serves when it has the file's row layout.
    const bool in_place = full && sink.interleaved();
    std::vector<T> image(in_place ? 0 : row_samples * height);
    std::vector<png_bytep> rows(height);
    for (int y = 0; y < height; ++y) {
      rows[y] = reinterpret_cast<png_bytep>(in_place ? sink.row(y) : image.data() + y * row_samples);
    }
    if (!png_guarded(r.err, [&] { png_read_image(r.png, rows.data()); })) fail(src, r.err);
    if (!in_place) {
      for (int y = 0; y < out_h; ++y) sink.write(y, reinterpret_cast<const T*>(rows[y0 + y]) + x0 * channels);
    }
    return out;
  }

  const bool direct = full && sink.interleaved();
  std::vector<T> row(direct ? 0 : row_samples);
  const int last = y0 + out_h;
  const bool ok = png_guarded(r.err, [&] {
    for (int y = 0; y < last; ++y) {
      if (direct) {
        png_read_row(r.png, reinterpret_cast<png_bytep>(sink.row(y)), nullptr);
        continue;
      }
      png_read_row(r.png, reinterpret_cast<png_bytep>(row.data()), nullptr);
      if (y >= y0) sink.write(y - y0, row.data() + x0 * channels);
    }
  });
  if (!ok) fail(src, r.err);
  return out;
}

}  // namespace

ImageInfo png_info(const ByteSource& src, const Limits& limits) {
  PngReadCursor cursor{src.data(), src.size()};
  PngReader r(cursor);
  const Header h = open(r, src, limits);
  ImageInfo info;
  info.format = Format::kPng;
  info.width = static_cast<int>(h.width);
  info.height = static_cast<int>(h.height);
  info.channels = unchanged_channels(h);
  info.bit_depth = h.bit_depth;
  info.orientation = orientation_of(r);
  info.progressive = h.interlace != PNG_INTERLACE_NONE;
  return info;
}

Tensor decode_png_to(const ByteSource& src, const DecodeOptions& opt, const Tensor* into) {
  PngReadCursor cursor{src.data(), src.size()};
  PngReader r(cursor);
  const Header h = open(r, src, opt.limits);
  const int channels = mode_channels(opt.mode, unchanged_channels(h));
  const bool wide = h.bit_depth == 16 && !opt.to_uint8;
  check_image_size(opt.limits, src.name(), h.width, h.height, channels, wide ? 2 : 1);
  int passes = 1;
  const bool ok = png_guarded(r.err, [&] {
    set_transforms(r.png, h, channels, opt.to_uint8);
    passes = png_set_interlace_handling(r.png);
    png_read_update_info(r.png, r.info);
  });
  if (!ok) fail(src, r.err);
  if (static_cast<int>(png_get_channels(r.png, r.info)) != channels) {
    throw Error(ErrorCode::kInternal, src.name(), "PNG transforms gave an unexpected channel count");
  }
  // Read before the pixels: an eXIf chunk after IDAT does not count (as in png_info).
  const int orientation = opt.apply_exif_orientation ? orientation_of(r) : 1;
  const Tensor* direct = orientation == 1 ? into : nullptr;
  Tensor out = wide ? read_pixels<uint16_t>(r, src, h, opt, channels, passes, DType::kUInt16, direct)
                    : read_pixels<uint8_t>(r, src, h, opt, channels, passes, DType::kUInt8, direct);
  return apply_orientation(out, opt.layout, orientation);
}

Tensor decode_png(const ByteSource& src, const DecodeOptions& opt) {
  return decode_png_to(src, opt, nullptr);
}

}  // namespace loom::vision
