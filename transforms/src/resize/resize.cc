// The resize op: checks the image, builds the plan (per axis a window [start, start + count) of input
// indices with weights that sum to 1, resize_coefficients.h), picks the order of the two separable
// passes and runs them: the Highway kernels of resize_hwy.cc for uint8, the scalar passes of
// resize_kernels.h for uint16 and float32.
#include "loom/transforms/resize.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "core/image_check.h"
#include "loom/codec/error.h"
#include "resize/resize_coefficients.h"
#include "resize/resize_kernels.h"

namespace loom::transforms {
namespace {

// Resizes a contiguous H x W x C (channels interleaved) image with the weights of each axis (built
// once per image: a CHW image runs this once per channel with the same weights).
template <typename T>
void resize_interleaved(const T* src, int64_t in_h, int64_t in_w, T* dst, int64_t out_h, int64_t out_w, int channels,
                        const Coefficients& vertical, const Coefficients& horizontal) {
  // A pass whose size does not change is skipped (an unchanged axis is an identity with every filter).
  const bool horizontal_pass = in_w != out_w, vertical_pass = in_h != out_h;
  const size_t row = static_cast<size_t>(out_w) * channels;
  if (!horizontal_pass && !vertical_pass) {
    std::copy(src, src + row * out_h, dst);
    return;
  }
  if constexpr (!std::is_same_v<T, uint8_t>) {
    // Not uint8, so the order of the passes is free (uint8 keeps Pillow's, whose intermediate rounding
    // its results depend on): vertical first when that multiplies less, e.g. on a downscale of both
    // axes, where it leaves the horizontal pass only the output rows.
    if (horizontal_pass && vertical_pass) {
      const auto taps = [](const Coefficients& c) {
        return std::accumulate(c.count.begin(), c.count.end(), int64_t{0});
      };
      const int64_t rows_read = vertical.start.back() + vertical.count.back() - vertical.start.front();
      const int64_t horizontal_first = rows_read * taps(horizontal) + out_w * taps(vertical);
      const int64_t vertical_first = in_w * taps(vertical) + out_h * taps(horizontal);
      if (vertical_first < horizontal_first) {
        std::vector<T> tmp(static_cast<size_t>(out_h * in_w * channels));
        resample_columns(src, tmp.data(), in_w * channels, vertical.weights());
        resample_rows(tmp.data(), in_w, dst, out_w, out_h, channels, horizontal.weights());
        return;
      }
    }
  }
  // Horizontal first, on only the rows the vertical pass will read (as Pillow).
  const int64_t row_lo = vertical_pass ? vertical.start.front() : 0;
  const int64_t row_hi = vertical_pass ? vertical.start.back() + vertical.count.back() : in_h;
  const T* rows = src + row_lo * in_w * channels;
  std::vector<T> tmp;
  if (horizontal_pass) {
    T* out = vertical_pass ? (tmp.resize(row * (row_hi - row_lo)), tmp.data()) : dst;
    if constexpr (std::is_same_v<T, uint8_t>) {
      resample_rows_u8(rows, in_w, out, out_w, row_hi - row_lo, channels, horizontal.weights());
    } else {
      resample_rows(rows, in_w, out, out_w, row_hi - row_lo, channels, horizontal.weights());
    }
    if (!vertical_pass) return;
    rows = tmp.data();
  }
  // The vertical windows, relative to the first row read.
  std::vector<int> start = vertical.start;
  for (int& s : start) s -= static_cast<int>(row_lo);
  AxisWeights rows_weights = vertical.weights();
  rows_weights.start = start.data();
  if constexpr (std::is_same_v<T, uint8_t>) {
    resample_columns_u8(rows, dst, static_cast<int64_t>(row), rows_weights);
  } else {
    resample_columns(rows, dst, static_cast<int64_t>(row), rows_weights);
  }
}

template <typename T>
Tensor resize_typed(const Tensor& image, Size size, const ResizeOptions& opt) {
  const bool hwc = opt.layout == Layout::kHWC;
  const Tensor src = image.contiguous();
  const int64_t channels = image.size(hwc ? 2 : 0);
  const int64_t in_h = image.size(hwc ? 0 : 1), in_w = image.size(hwc ? 1 : 2);
  Tensor out = hwc ? Tensor::empty({size.height, size.width, channels}, image.dtype())
                   : Tensor::empty({channels, size.height, size.width}, image.dtype());
  const T* in = src.data<T>();
  T* dst = out.data<T>();
  const Coefficients vertical = axis_coefficients(in_h, size.height, opt);
  const Coefficients horizontal = axis_coefficients(in_w, size.width, opt);
  if (hwc || channels == 1) {
    resize_interleaved(in, in_h, in_w, dst, size.height, size.width, static_cast<int>(channels), vertical, horizontal);
  } else {
    for (int64_t c = 0; c < channels; ++c) {
      resize_interleaved(in + c * in_h * in_w, in_h, in_w, dst + c * size.height * size.width, size.height, size.width,
                         1, vertical, horizontal);
    }
  }
  return out;
}

}  // namespace

Size size_for_shorter_side(Size in, int64_t shorter) {
  if (in.height <= 0 || in.width <= 0 || shorter <= 0) {
    throw Error(ErrorCode::kInvalidInput, "resize",
                fmt::format("cannot fit {}x{} to a shorter side of {}", in.width, in.height, shorter));
  }
  if (in.width <= in.height) {
    return {std::max<int64_t>(1, static_cast<int64_t>(static_cast<double>(shorter) * in.height / in.width)), shorter};
  }
  return {shorter, std::max<int64_t>(1, static_cast<int64_t>(static_cast<double>(shorter) * in.width / in.height))};
}

Tensor resize(const Tensor& image, Size size, const ResizeOptions& opt) {
  const ImageShape in =
      check_image(image, opt.layout, "resize", {DType::kUInt8, DType::kUInt16, DType::kFloat32}, {1, 2, 3, 4});
  if (in.height == 0 || in.width == 0) {
    throw Error(ErrorCode::kInvalidInput, "resize",
                fmt::format("expected a non-empty image, got {}x{}", in.width, in.height));
  }
  if (size.height <= 0 || size.width <= 0) {
    throw Error(ErrorCode::kInvalidInput, "resize",
                fmt::format("expected a positive output size, got {}x{}", size.width, size.height));
  }
  switch (image.dtype()) {
    case DType::kUInt8: return resize_typed<uint8_t>(image, size, opt);
    case DType::kUInt16: return resize_typed<uint16_t>(image, size, opt);
    default: return resize_typed<float>(image, size, opt);
  }
}

}  // namespace loom::transforms
