// Format dispatch, file reading and atomic writing for loom/vision/image.h.
#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "image_codecs.h"
#include "loom/codec/atomic_file.h"
#include "loom/codec/error.h"
#include "pixel_rows.h"
#include "whole_image.h"

namespace loom::vision {
namespace {

Format sniff_image(const ByteSource& src) {
  if (src.size() == 0) throw Error(ErrorCode::kInvalidInput, src.name(), "empty file");
  const Format format = sniff_format(src.bytes());
  switch (media_kind(format)) {
    case MediaKind::kImage: break;
    case MediaKind::kUnknown: throw Error(ErrorCode::kInvalidInput, src.name(), "not an image: unknown format");
    default:
      throw Error(ErrorCode::kInvalidInput, src.name(), fmt::format("not an image: {} data", format_name(format)));
  }
  return format;
}

// What loom reads of each image format.
struct Codec {
  ImageInfo (*info)(const ByteSource&, const Limits&);
  Tensor (*decode)(const ByteSource&, const DecodeOptions&);
  Tensor (*frames)(const ByteSource&, const DecodeOptions&);  // nullptr: one picture per file
};

template <Tensor (*Decode)(const ByteSource&, const DecodeOptions&, bool)>
Tensor first_frame(const ByteSource& src, const DecodeOptions& options) {
  return Decode(src, options, false);
}
template <Tensor (*Decode)(const ByteSource&, const DecodeOptions&, bool)>
Tensor all_frames(const ByteSource& src, const DecodeOptions& options) {
  return Decode(src, options, true);
}

// The codec of `format`; nullptr for a format loom does not decode.
const Codec* codec_of(Format format) {
  static const Codec kJpegCodec{jpeg_info, decode_jpeg, nullptr};
  static const Codec kPngCodec{png_info, decode_png, nullptr};
  static const Codec kWebpCodec{webp_info, first_frame<decode_webp>, all_frames<decode_webp>};
  static const Codec kGifCodec{gif_info, first_frame<decode_gif>, all_frames<decode_gif>};
  static const Codec kTiffCodec{tiff_info, decode_tiff, nullptr};
  static const Codec kAvifCodec{avif_info, decode_avif, nullptr};
  static const Codec kHeifCodec{heif_info, decode_heif, nullptr};
  static const Codec kBmpCodec{bmp_info, decode_bmp, nullptr};
  switch (format) {
    case Format::kJpeg: return &kJpegCodec;
    case Format::kPng: return &kPngCodec;
    case Format::kWebp: return &kWebpCodec;
    case Format::kGif: return &kGifCodec;
    case Format::kTiff: return &kTiffCodec;
    case Format::kAvif: return &kAvifCodec;
    case Format::kHeif: return &kHeifCodec;
    case Format::kBmp: return &kBmpCodec;
    default: return nullptr;
  }
}

const Codec& codec_for(const ByteSource& src) {
  const Format format = sniff_image(src);
  const Codec* codec = codec_of(format);
  if (codec == nullptr) {
    throw Error(ErrorCode::kUnsupported, src.name(),
                fmt::format("{} images are not supported (JPEG, PNG, WebP, GIF, TIFF, AVIF, HEIF and BMP are)",
                            format_name(format)));
  }
  return *codec;
}

std::string lower_extension(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext;
}

}  // namespace

void check_input_size(const ByteSource& src, const Limits& limits) {
  if (limits.max_bytes != 0 && src.size() > limits.max_bytes) {
    throw Error(ErrorCode::kLimitExceeded, src.name(),
                fmt::format("input of {} bytes exceeds the limit of {} bytes", src.size(), limits.max_bytes));
  }
}

bool decodes_format(Format format) {
  return codec_of(format) != nullptr;
}

ImageInfo read_image_info(const ByteSource& src, const Limits& limits) {
  return codec_for(src).info(src, limits);
}

Tensor decode_image(const ByteSource& src, const DecodeOptions& options) {
  return codec_for(src).decode(src, options);
}

void decode_image_into(const ByteSource& src, const Tensor& out, const DecodeOptions& options) {
  if (!out.defined() || !out.device().is_cpu()) {
    throw Error(ErrorCode::kInvalidInput, src.name(), "decode_image_into needs a defined CPU output tensor");
  }
  const Format format = sniff_image(src);
  Tensor image;
  if (format == Format::kJpeg) {
    image = decode_jpeg_to(src, options, &out);
  } else if (format == Format::kPng) {
    image = decode_png_to(src, options, &out);
  } else {
    image = codec_for(src).decode(src, options);
  }
  store_into(out, image, src.name());
}

Tensor decode_image_frames(const ByteSource& src, const DecodeOptions& options) {
  const Codec& codec = codec_for(src);
  return codec.frames ? codec.frames(src, options) : one_frame(codec.decode(src, options));
}

Tensor read_image(const std::filesystem::path& path, const DecodeOptions& options) {
  return decode_image(ByteSource::from_file(path, options.limits), options);
}

Tensor read_image_frames(const std::filesystem::path& path, const DecodeOptions& options) {
  return decode_image_frames(ByteSource::from_file(path, options.limits), options);
}

void write_image(const Tensor& image, const std::filesystem::path& path, const WriteOptions& options) {
  const std::string ext = lower_extension(path);
  std::vector<uint8_t> bytes;
  try {
    if (ext == ".jpg" || ext == ".jpeg") {
      bytes = encode_jpeg(image, options.jpeg);
    } else if (ext == ".png") {
      bytes = encode_png(image, options.png);
    } else if (ext == ".webp") {
      bytes = encode_webp(image, options.webp);
    } else {
      throw Error(ErrorCode::kUnsupported, path.string(),
                  fmt::format("cannot write images with extension '{}' (use .jpg, .jpeg, .png or .webp)", ext));
    }
  } catch (const Error& e) {
    // Encoders name themselves; the caller wants the file.
    if (e.input() == path.string()) throw;
    throw Error(e.code(), path.string(), e.message());
  }
  write_file_atomic(path, bytes, options.overwrite);
}

}  // namespace loom::vision
