#include "whole_image.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "exif.h"
#include "loom/codec/error.h"
#include "pixel_rows.h"

namespace loom::vision {
namespace {

// One row of `width` pixels from `in_c` to `out_c` channels (see finish_image), In samples to Out
// samples (uint16 to uint8 keeps the high byte).
template <typename In, typename Out>
void convert_row(const In* src, int in_c, Out* dst, int out_c, int width) {
  constexpr int shift = sizeof(In) > sizeof(Out) ? 8 : 0;
  constexpr Out opaque = std::numeric_limits<Out>::max();
  const bool in_color = in_c >= 3, in_alpha = in_c == 2 || in_c == 4;
  const bool out_color = out_c >= 3, out_alpha = out_c == 2 || out_c == 4;
  for (int x = 0; x < width; ++x, src += in_c, dst += out_c) {
    const uint32_t r = src[0] >> shift;
    if (out_color) {
      dst[0] = static_cast<Out>(r);
      dst[1] = static_cast<Out>(in_color ? src[1] >> shift : r);
      dst[2] = static_cast<Out>(in_color ? src[2] >> shift : r);
    } else if (in_color) {
      const uint32_t g = src[1] >> shift, b = src[2] >> shift;
      dst[0] = static_cast<Out>((r * 19595 + g * 38470 + b * 7471 + 0x8000) >> 16);
    } else {
      dst[0] = static_cast<Out>(r);
    }
    if (out_alpha) dst[out_c - 1] = in_alpha ? static_cast<Out>(src[in_c - 1] >> shift) : opaque;
  }
}

template <typename In, typename Out>
Tensor finish_as(const WholeImage& image, const DecodeOptions& opt, const Rect& area, int channels, DType dtype) {
  Tensor out = Tensor::empty(image_shape(opt.layout, area.height, area.width, channels), dtype);
  const RowSink<Out> sink(out, opt.layout, area.height, area.width, channels);
  std::vector<Out> scratch(static_cast<size_t>(area.width) * channels);
  for (int y = 0; y < area.height; ++y) {
    const In* src = reinterpret_cast<const In*>(image.row(area.y + y)) + static_cast<size_t>(area.x) * image.channels;
    if constexpr (std::is_same_v<In, Out>) {
      if (channels == image.channels) {
        sink.write(y, src);
        continue;
      }
    }
    convert_row(src, image.channels, scratch.data(), channels, area.width);
    sink.write(y, scratch.data());
  }
  return out;
}

}  // namespace

void WholeImage::allocate(int w, int h, int c, bool is_wide) {
  width = w;
  height = h;
  channels = c;
  wide = is_wide;
  samples.resize(static_cast<size_t>(h) * row_bytes());
}

int mode_channels(ImageReadMode mode, int unchanged) {
  switch (mode) {
    case ImageReadMode::kUnchanged: return unchanged;
    case ImageReadMode::kGray: return 1;
    case ImageReadMode::kGrayAlpha: return 2;
    case ImageReadMode::kRGB: return 3;
    case ImageReadMode::kRGBAlpha: return 4;
  }
  return unchanged;
}

Rect clip_crop(const Rect& c, int width, int height, std::string_view input) {
  const int x0 = std::clamp(c.x, 0, width), y0 = std::clamp(c.y, 0, height);
  const int x1 = static_cast<int>(std::clamp<int64_t>(int64_t{c.x} + c.width, 0, width));
  const int y1 = static_cast<int>(std::clamp<int64_t>(int64_t{c.y} + c.height, 0, height));
  if (x1 <= x0 || y1 <= y0) {
    throw Error(
        ErrorCode::kInvalidInput, std::string(input),
        fmt::format("crop {}x{}+{}+{} lies outside the {}x{} image", c.width, c.height, c.x, c.y, width, height));
  }
  return {x0, y0, x1 - x0, y1 - y0};
}

Tensor finish_image(const WholeImage& image, const DecodeOptions& opt, int orientation, std::string_view input) {
  const Rect area =
      opt.crop ? clip_crop(*opt.crop, image.width, image.height, input) : Rect{0, 0, image.width, image.height};
  const int channels = mode_channels(opt.mode, image.unchanged != 0 ? image.unchanged : image.channels);
  Tensor out;
  if (!image.wide) {
    out = finish_as<uint8_t, uint8_t>(image, opt, area, channels, DType::kUInt8);
  } else if (opt.to_uint8) {
    out = finish_as<uint16_t, uint8_t>(image, opt, area, channels, DType::kUInt8);
  } else {
    out = finish_as<uint16_t, uint16_t>(image, opt, area, channels, DType::kUInt16);
  }
  return opt.apply_exif_orientation ? apply_orientation(out, opt.layout, orientation) : out;
}

Tensor finish_frames(const std::vector<WholeImage>& frames, const DecodeOptions& opt, int orientation,
                     std::string_view input) {
  std::vector<Tensor> finished;
  finished.reserve(frames.size());
  for (const WholeImage& frame : frames) finished.push_back(finish_image(frame, opt, orientation, input));
  const auto frame_shape = finished.front().shape();
  std::vector<int64_t> shape(frame_shape.begin(), frame_shape.end());
  shape.insert(shape.begin(), static_cast<int64_t>(finished.size()));
  Tensor out = Tensor::empty(shape, finished.front().dtype());
  const size_t frame_bytes = finished.front().nbytes();
  auto* dst = static_cast<uint8_t*>(out.data());
  for (size_t i = 0; i < finished.size(); ++i) std::memcpy(dst + i * frame_bytes, finished[i].data(), frame_bytes);
  return out;
}

Tensor one_frame(const Tensor& image) {
  std::vector<int64_t> shape(image.shape().begin(), image.shape().end());
  shape.insert(shape.begin(), 1);
  return image.view(shape);
}

}  // namespace loom::vision
