// Format dispatch, file reading and atomic writing for loom/vision/image.h.
#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "image_codecs.h"
#include "loom/codec/atomic_file.h"
#include "loom/codec/error.h"

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
  if (format != Format::kJpeg && format != Format::kPng) {
    throw Error(ErrorCode::kUnsupported, src.name(),
                fmt::format("{} images are not supported (JPEG and PNG are)", format_name(format)));
  }
  return format;
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

ImageInfo read_image_info(const ByteSource& src, const Limits& limits) {
  return sniff_image(src) == Format::kJpeg ? jpeg_info(src, limits) : png_info(src, limits);
}

Tensor decode_image(const ByteSource& src, const DecodeOptions& options) {
  return sniff_image(src) == Format::kJpeg ? decode_jpeg(src, options) : decode_png(src, options);
}

Tensor read_image(const std::filesystem::path& path, const DecodeOptions& options) {
  return decode_image(ByteSource::from_file(path, options.limits), options);
}

void write_image(const Tensor& image, const std::filesystem::path& path, const WriteOptions& options) {
  const std::string ext = lower_extension(path);
  std::vector<uint8_t> bytes;
  try {
    if (ext == ".jpg" || ext == ".jpeg") {
      bytes = encode_jpeg(image, options.jpeg);
    } else if (ext == ".png") {
      bytes = encode_png(image, options.png);
    } else {
      throw Error(ErrorCode::kUnsupported, path.string(),
                  fmt::format("cannot write images with extension '{}' (use .jpg, .jpeg or .png)", ext));
    }
  } catch (const Error& e) {
    // Encoders name themselves; the caller wants the file.
    if (e.input() == path.string()) throw;
    throw Error(e.code(), path.string(), e.message());
  }
  write_file_atomic(path, bytes, options.overwrite);
}

}  // namespace loom::vision
