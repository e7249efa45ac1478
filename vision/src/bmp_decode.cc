// BMP decode (Windows and OS/2 bitmaps): 1, 2, 4 and 8-bit palettes (RLE4 and RLE8 too), 16 and 32-bit
// with or without bit fields, 24-bit; bottom-up or top-down. Written for loom (no Debian library
// reads BMP alone) to give Pillow's pixels: bit fields scale to 8 bits as value * 255 / max with
// truncation, 32-bit pixels without an alpha mask are opaque, a palette of gray levels reads as gray,
// and pixels an RLE stream skips are palette index 0. Every read is bounds-checked.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>

#include "image_codecs.h"
#include "loom/codec/error.h"
#include "whole_image.h"

namespace loom::vision {
namespace {

enum Compression : uint32_t {
  kRgb = 0,
  kRle8 = 1,
  kRle4 = 2,
  kBitfields = 3,
  kJpeg = 4,
  kPng = 5,
  kAlphaBitfields = 6
};

uint32_t u16(const uint8_t* p) {
  return p[0] | (p[1] << 8);
}
uint32_t u32(const uint8_t* p) {
  return u16(p) | (u16(p + 2) << 16);
}

struct Mask {
  uint32_t mask = 0;
  int shift = 0;
  uint32_t max = 0;  // mask >> shift
  Mask() = default;
  explicit Mask(uint32_t m) : mask(m), shift(m ? std::countr_zero(m) : 0), max(m >> (m ? std::countr_zero(m) : 0)) {}
  uint8_t operator()(uint32_t v) const { return max ? static_cast<uint8_t>(((v & mask) >> shift) * 255 / max) : 0; }
};

struct Header {
  int width = 0, height = 0;
  bool top_down = false;
  int bits = 0;
  uint32_t compression = kRgb;
  uint32_t data_offset = 0;
  std::array<Mask, 4> masks;                    // R, G, B, A
  std::vector<std::array<uint8_t, 3>> palette;  // RGB
  bool gray = false;                            // the palette holds gray levels (Pillow's "L"/"1")
  int channels = 3;                             // unchanged channels
};

[[noreturn]] void invalid(const ByteSource& src, std::string_view what) {
  throw Error(ErrorCode::kInvalidInput, src.name(), fmt::format("BMP: {}", what));
}

Header read_header(const ByteSource& src, const Limits& limits) {
  check_input_size(src, limits);
  const uint8_t* b = src.data();
  const size_t size = src.size();
  if (size < 26) throw Error(ErrorCode::kInvalidInput, src.name(), "truncated BMP: the data ends in the header");
  Header h;
  h.data_offset = u32(b + 10);
  const uint32_t dib = u32(b + 14);
  if (dib != 12 && dib != 16 && dib != 40 && dib != 52 && dib != 56 && dib != 64 && dib != 108 && dib != 124) {
    invalid(src, fmt::format("unknown header size {}", dib));
  }
  if (14 + size_t{dib} > size)
    throw Error(ErrorCode::kInvalidInput, src.name(), "truncated BMP: the data ends in the header");
  const uint8_t* d = b + 14;
  int64_t height = 0;
  if (dib == 12) {
    h.width = static_cast<int>(u16(d + 4));
    height = static_cast<int16_t>(u16(d + 6));
    h.bits = static_cast<int>(u16(d + 10));
  } else {
    h.width = static_cast<int32_t>(u32(d + 4));
    height = static_cast<int32_t>(u32(d + 8));
    h.bits = static_cast<int>(u16(d + 14));
    h.compression = dib >= 20 ? u32(d + 16) : kRgb;
  }
  h.top_down = height < 0;
  if (height == INT32_MIN || h.width <= 0 || height == 0) invalid(src, "the image has no pixels");
  h.height = static_cast<int>(height < 0 ? -height : height);
  if (h.compression == kJpeg || h.compression == kPng) {
    throw Error(ErrorCode::kUnsupported, src.name(), "BMP with embedded JPEG or PNG data is not supported");
  }
  const bool rle = h.compression == kRle8 || h.compression == kRle4;
  if ((h.compression == kRle8 && h.bits != 8) || (h.compression == kRle4 && h.bits != 4) ||
      h.compression > kAlphaBitfields) {
    invalid(src, fmt::format("compression {} with {} bits per pixel", h.compression, h.bits));
  }
  if (rle && h.top_down) invalid(src, "a top-down image cannot be run-length encoded");
  switch (h.bits) {
    case 1:
    case 2:
    case 4:
    case 8:
    case 16:
    case 24:
    case 32: break;
    default: invalid(src, fmt::format("{} bits per pixel", h.bits));
  }

  // Bit fields: in the header from version 2 on, else just after a 40-byte header.
  const bool fields = h.compression == kBitfields || h.compression == kAlphaBitfields;
  if (h.bits == 16 || h.bits == 32) {
    if (fields) {
      const size_t at = 14 + 40, count = dib >= 56 || h.compression == kAlphaBitfields ? 4 : 3;
      if (dib < 40 || at + 4 * count > size)
        throw Error(ErrorCode::kInvalidInput, src.name(), "truncated BMP: no bit fields");
      for (size_t i = 0; i < count; ++i) h.masks[i] = Mask(u32(b + at + 4 * i));
    } else if (h.bits == 16) {
      h.masks = {Mask(0x7C00), Mask(0x03E0), Mask(0x001F), Mask(0)};
    } else {
      h.masks = {Mask(0xFF0000), Mask(0xFF00), Mask(0xFF), Mask(0)};
    }
    h.channels = h.masks[3].mask != 0 ? 4 : 3;
  } else if (h.bits == 24) {
    h.channels = 3;
  } else {
    // Palette after the header (and the masks a 40-byte header is followed by).
    const size_t entry = dib == 12 ? 3 : 4;
    const size_t at = 14 + dib + (dib == 40 && fields ? 12 : 0);
    const uint32_t used = dib >= 36 ? u32(d + 32) : 0;
    const size_t colors = used != 0 && used <= (1u << h.bits) ? used : size_t{1} << h.bits;
    const size_t available = at < h.data_offset && h.data_offset <= size ? (h.data_offset - at) / entry : 0;
    const size_t n = std::min(colors, available);
    if (n == 0) invalid(src, "the palette is missing");
    h.palette.resize(n);
    for (size_t i = 0; i < n; ++i) h.palette[i] = {b[at + i * entry + 2], b[at + i * entry + 1], b[at + i * entry]};
    h.gray = true;
    for (size_t i = 0; i < n && h.gray; ++i) {
      const uint8_t level = n == 2 ? static_cast<uint8_t>(i * 255) : static_cast<uint8_t>(i);
      h.gray = h.palette[i] == std::array<uint8_t, 3>{level, level, level};
    }
    h.channels = h.gray ? 1 : 3;
  }
  if (h.data_offset >= size) throw Error(ErrorCode::kInvalidInput, src.name(), "truncated BMP: no pixel data");
  return h;
}

// Palette indices of an RLE4 or RLE8 stream, rows in stored (bottom-up) order, skipped pixels 0.
std::vector<uint8_t> read_rle(const ByteSource& src, const Header& h) {
  std::vector<uint8_t> indices(static_cast<size_t>(h.width) * h.height, 0);
  const uint8_t* p = src.data() + h.data_offset;
  const uint8_t* end = src.data() + src.size();
  int x = 0, y = 0;
  auto put = [&](uint8_t v) {
    if (x < h.width && y < h.height) indices[size_t(y) * h.width + x] = v;
    ++x;
  };
  const bool four = h.compression == kRle4;
  while (y < h.height) {
    if (end - p < 2) throw Error(ErrorCode::kInvalidInput, src.name(), "truncated BMP: the data ends in the pixels");
    const int count = p[0], value = p[1];
    p += 2;
    if (count > 0) {  // a run
      for (int i = 0; i < count; ++i)
        put(four ? static_cast<uint8_t>(i & 1 ? value & 15 : value >> 4) : static_cast<uint8_t>(value));
      continue;
    }
    if (value == 0) {  // end of line
      x = 0;
      ++y;
    } else if (value == 1) {  // end of bitmap
      break;
    } else if (value == 2) {  // delta
      if (end - p < 2) throw Error(ErrorCode::kInvalidInput, src.name(), "truncated BMP: the data ends in the pixels");
      x += p[0];
      y += p[1];
      p += 2;
    } else {  // `value` literal pixels, padded to 16 bits
      const size_t bytes = four ? (value + 1) / 2 : value;
      const size_t padded = (bytes + 1) & ~size_t{1};
      if (static_cast<size_t>(end - p) < bytes)
        throw Error(ErrorCode::kInvalidInput, src.name(), "truncated BMP: the data ends in the pixels");
      for (int i = 0; i < value; ++i) put(four ? static_cast<uint8_t>(i & 1 ? p[i / 2] & 15 : p[i / 2] >> 4) : p[i]);
      p += std::min(padded, static_cast<size_t>(end - p));
    }
  }
  return indices;
}

}  // namespace

ImageInfo bmp_info(const ByteSource& src, const Limits& limits) {
  const Header h = read_header(src, limits);
  ImageInfo info;
  info.format = Format::kBmp;
  info.width = h.width;
  info.height = h.height;
  info.channels = h.channels;
  info.bit_depth = h.bits <= 8 ? h.bits : 8;
  return info;
}

Tensor decode_bmp(const ByteSource& src, const DecodeOptions& options) {
  const Header h = read_header(src, options.limits);
  check_image_size(options.limits, src.name(), h.width, h.height, 4, 1);
  WholeImage image;
  const bool palette = !h.palette.empty();
  image.allocate(h.width, h.height, palette ? 3 : h.channels, false);
  if (palette && h.gray) image.unchanged = 1;
  auto color = [&](uint32_t i, uint8_t* out) {
    static constexpr std::array<uint8_t, 3> kBlack{};
    std::memcpy(out, i < h.palette.size() ? h.palette[i].data() : kBlack.data(), 3);
  };
  auto target_row = [&](int stored) { return image.row(h.top_down ? stored : h.height - 1 - stored); };

  if (h.compression == kRle8 || h.compression == kRle4) {
    const std::vector<uint8_t> indices = read_rle(src, h);
    for (int y = 0; y < h.height; ++y) {
      uint8_t* out = target_row(y);
      for (int x = 0; x < h.width; ++x) color(indices[size_t(y) * h.width + x], out + 3 * x);
    }
    return finish_image(image, options, 1, src.name());
  }

  const size_t stride = ((static_cast<size_t>(h.width) * h.bits + 31) / 32) * 4;
  const size_t available = src.size() - h.data_offset;
  if (stride * h.height > available) {
    // Pillow, too, refuses a bitmap whose rows are not all there.
    throw Error(ErrorCode::kInvalidInput, src.name(),
                fmt::format("truncated BMP: {} bytes of pixels, {} needed", available, stride * h.height));
  }
  const int c = image.channels;
  for (int y = 0; y < h.height; ++y) {
    const uint8_t* in = src.data() + h.data_offset + stride * y;
    uint8_t* out = target_row(y);
    for (int x = 0; x < h.width; ++x, out += c) {
      switch (h.bits) {
        case 1:
        case 2:
        case 4: {
          const int per_byte = 8 / h.bits, shift = 8 - h.bits * (1 + x % per_byte);
          color((in[x / per_byte] >> shift) & ((1u << h.bits) - 1), out);
          break;
        }
        case 8: color(in[x], out); break;
        case 24:
          out[0] = in[3 * x + 2];
          out[1] = in[3 * x + 1];
          out[2] = in[3 * x];
          break;
        default: {
          const uint32_t v = h.bits == 16 ? u16(in + 2 * x) : u32(in + 4 * x);
          for (int k = 0; k < c; ++k) out[k] = h.masks[k](v);
        }
      }
    }
  }
  return finish_image(image, options, 1, src.name());
}

}  // namespace loom::vision
