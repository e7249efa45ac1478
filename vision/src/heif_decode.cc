// HEIF/HEIC decode through libheif (HEVC through libde265, as Debian builds it; AVIF files go to
// libavif), the primary image, 8 to 16 bits, with alpha. libheif applies the image's geometric
// transforms (clean aperture, irot, imir), which HEIF makes part of the image, as heif-convert does;
// orientation is then always 1.
#include <fmt/format.h>
#include <libheif/heif.h>

#include <algorithm>
#include <cstring>
#include <memory>

#include "image_codecs.h"
#include "loom/codec/error.h"
#include "whole_image.h"

namespace loom::vision {
namespace {

struct ContextDeleter {
  void operator()(heif_context* c) const { heif_context_free(c); }
};
struct HandleDeleter {
  void operator()(const heif_image_handle* h) const { heif_image_handle_release(h); }
};
struct ImageDeleter {
  void operator()(const heif_image* i) const { heif_image_release(i); }
};
struct OptionsDeleter {
  void operator()(heif_decoding_options* o) const { heif_decoding_options_free(o); }
};

void check(const ByteSource& src, const heif_error& e) {
  if (e.code == heif_error_Ok) return;
  const std::string detail = e.message && *e.message ? e.message : "corrupt data";
  ErrorCode code = ErrorCode::kInvalidInput;
  if (e.code == heif_error_Unsupported_feature || e.code == heif_error_Unsupported_filetype) {
    code = ErrorCode::kUnsupported;
  }
  if (e.code == heif_error_Memory_allocation_error) code = ErrorCode::kLimitExceeded;
  if (e.subcode == heif_suberror_End_of_data) {
    throw Error(code, src.name(), fmt::format("truncated HEIF: the data ends before the image ({})", detail));
  }
  throw Error(code, src.name(), fmt::format("HEIF: {}", detail));
}

// The primary image of `src`, parsed; `context` keeps it alive.
struct Primary {
  std::unique_ptr<heif_context, ContextDeleter> context;
  std::unique_ptr<const heif_image_handle, HandleDeleter> handle;
  int width = 0, height = 0, bits = 8;
  bool alpha = false;
};

Primary open(const ByteSource& src, const Limits& limits) {
  check_input_size(src, limits);
  Primary p;
  p.context.reset(heif_context_alloc());
  if (!p.context) throw Error(ErrorCode::kInternal, src.name(), "HEIF: cannot create a context");
  check(src, heif_context_read_from_memory_without_copy(p.context.get(), src.data(), src.size(), nullptr));
  heif_image_handle* handle = nullptr;
  check(src, heif_context_get_primary_image_handle(p.context.get(), &handle));
  p.handle.reset(handle);
  p.width = heif_image_handle_get_width(handle);
  p.height = heif_image_handle_get_height(handle);
  p.bits = std::max(8, heif_image_handle_get_luma_bits_per_pixel(handle));
  p.alpha = heif_image_handle_has_alpha_channel(handle) != 0;
  return p;
}

}  // namespace

ImageInfo heif_info(const ByteSource& src, const Limits& limits) {
  const Primary p = open(src, limits);
  ImageInfo info;
  info.format = Format::kHeif;
  info.width = p.width;
  info.height = p.height;
  info.channels = p.alpha ? 4 : 3;
  info.bit_depth = p.bits;
  return info;
}

Tensor decode_heif(const ByteSource& src, const DecodeOptions& options) {
  const Primary p = open(src, options.limits);
  const bool wide = p.bits > 8 && !options.to_uint8;
  const int channels = p.alpha ? 4 : 3;
  check_image_size(options.limits, src.name(), p.width, p.height, channels, wide ? 2 : 1);
  std::unique_ptr<heif_decoding_options, OptionsDeleter> decoding(heif_decoding_options_alloc());
  decoding->convert_hdr_to_8bit = options.to_uint8 ? 1 : 0;
  const heif_chroma chroma = wide ? (p.alpha ? heif_chroma_interleaved_RRGGBBAA_LE : heif_chroma_interleaved_RRGGBB_LE)
                                  : (p.alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB);
  heif_image* decoded = nullptr;
  check(src, heif_decode_image(p.handle.get(), &decoded, heif_colorspace_RGB, chroma, decoding.get()));
  const std::unique_ptr<const heif_image, ImageDeleter> image(decoded);
  const int width = heif_image_get_width(decoded, heif_channel_interleaved);
  const int height = heif_image_get_height(decoded, heif_channel_interleaved);
  int stride = 0;
  const uint8_t* plane = heif_image_get_plane_readonly(decoded, heif_channel_interleaved, &stride);
  if (plane == nullptr || width != p.width || height != p.height) {
    throw Error(ErrorCode::kInvalidInput, src.name(), "HEIF: the decoded image does not match its header");
  }
  WholeImage out;
  out.allocate(width, height, channels, wide);
  for (int y = 0; y < height; ++y) std::memcpy(out.row(y), plane + static_cast<size_t>(y) * stride, out.row_bytes());
  if (wide) {
    // libheif gives `bits`-bit values; uint16 images use the 16-bit scale: shifted up, as heif-convert
    // and pillow-heif store them (1023 becomes 65472).
    const int bits = heif_image_get_bits_per_pixel_range(decoded, heif_channel_interleaved);
    auto* s = reinterpret_cast<uint16_t*>(out.samples.data());
    if (bits > 8 && bits < 16) {
      for (size_t i = 0, n = out.samples.size() / 2; i < n; ++i) s[i] = static_cast<uint16_t>(s[i] << (16 - bits));
    }
  }
  return finish_image(out, options, 1, src.name());
}

}  // namespace loom::vision
