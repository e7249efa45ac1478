// Separable resize: per output index a window [start, start + count) of input indices with weights
// that sum to 1, from Pillow's Resample.c filters (antialias, and kBox), torch's interpolate index
// rules (bilinear and bicubic without antialias) or torch's nearest rules. uint8 runs the Highway
// kernels of resize_hwy.cc; uint16 and float32 the scalar passes of resize_kernels.h.
#include "loom/transforms/resize.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <cmath>
#include <vector>

#include "core/image_check.h"
#include "loom/codec/error.h"
#include "resize/resize_kernels.h"

namespace loom::transforms {
namespace {

double filter_value(Interpolation interp, double x) {
  if (interp == Interpolation::kBox) return x > -0.5 && x <= 0.5 ? 1.0 : 0.0;  // Pillow's half-open box
  x = std::fabs(x);
  switch (interp) {
    case Interpolation::kBilinear: return x < 1.0 ? 1.0 - x : 0.0;
    case Interpolation::kBicubic: {
      constexpr double a = -0.5;
      if (x < 1.0) return ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0;
      if (x < 2.0) return (((x - 5.0) * x + 8.0) * x - 4.0) * a;
      return 0.0;
    }
    default: return 0.0;
  }
  return 0.0;
}

double filter_support(Interpolation interp) {
  switch (interp) {
    case Interpolation::kBilinear: return 1.0;
    case Interpolation::kBicubic: return 2.0;
    default: return 0.5;
  }
}

// Nearest and nearest-exact: one tap of weight 1 at torch's source index, computed in float as torch
// 1.13 does (scale = float(in) / out; floor(i * scale) or floor((i + 0.5) * scale), at most in - 1):
// double arithmetic picks a different index for some size pairs.
Coefficients make_nearest(int64_t in_size, int64_t out_size, bool exact) {
  Coefficients c;
  c.taps = 1;
  c.start.resize(out_size);
  c.count.assign(out_size, 1);
  c.w.assign(out_size, 1.0);
  c.fixed.assign(out_size, 1 << kPrecisionBits);
  const float scale = static_cast<float>(in_size) / static_cast<float>(out_size);
  for (int64_t i = 0; i < out_size; ++i) {
    const float src = exact ? (static_cast<float>(i) + 0.5f) * scale : static_cast<float>(i) * scale;
    c.start[i] = static_cast<int>(std::min<int64_t>(static_cast<int64_t>(std::floor(src)), in_size - 1));
  }
  return c;
}

// torch's interpolate(antialias=False, align_corners=False) for bilinear and bicubic: output i reads
// around src = (i + 0.5) * scale - 0.5 (clamped at 0 for bilinear), at floor(src) + {0, 1} for bilinear
// and floor(src) + {-1, 0, 1, 2} with Keys a = -0.75 weights for bicubic; indices outside the image
// are clamped to it (border replicated), which here folds their weights onto the border sample.
Coefficients make_interpolate_coefficients(int64_t in_size, int64_t out_size, Interpolation interp) {
  const bool cubic = interp == Interpolation::kBicubic;
  Coefficients c;
  c.taps = cubic ? 4 : 2;
  c.start.resize(out_size);
  c.count.resize(out_size);
  c.w.assign(static_cast<size_t>(out_size) * c.taps, 0.0);
  c.fixed.assign(c.w.size(), 0);
  const double scale = static_cast<double>(in_size) / static_cast<double>(out_size);
  for (int64_t i = 0; i < out_size; ++i) {
    double src = scale * (static_cast<double>(i) + 0.5) - 0.5;
    if (!cubic) src = std::max(src, 0.0);
    const double x0 = std::floor(src), t = src - x0;
    double weights[4];
    int64_t first;
    if (cubic) {
      constexpr double a = -0.75;
      auto near = [](double x) { return ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0; };    // |x| <= 1
      auto far = [](double x) { return ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a; };  // 1 < |x| < 2
      weights[0] = far(t + 1.0), weights[1] = near(t), weights[2] = near(1.0 - t), weights[3] = far(2.0 - t);
      first = static_cast<int64_t>(x0) - 1;
    } else {
      weights[0] = 1.0 - t, weights[1] = t;
      first = static_cast<int64_t>(x0);
    }
    auto clamped = [&](int k) { return std::clamp<int64_t>(first + k, 0, in_size - 1); };
    const int64_t lo = clamped(0), hi = clamped(c.taps - 1);
    double* w = &c.w[i * c.taps];
    for (int k = 0; k < c.taps; ++k) w[clamped(k) - lo] += weights[k];
    c.start[i] = static_cast<int>(lo);
    c.count[i] = static_cast<int>(hi - lo + 1);
    for (int k = 0; k < c.count[i]; ++k) {
      c.fixed[i * c.taps + k] = static_cast<int32_t>(std::lround(w[k] * (1 << kPrecisionBits)));
    }
  }
  return c;
}

// Resizes a contiguous H x W x C (channels interleaved) image.
template <typename T>
void resize_interleaved(const T* src, int64_t in_h, int64_t in_w, T* dst, int64_t out_h, int64_t out_w, int channels,
                        const ResizeOptions& opt) {
  auto coeffs = [&](int64_t in, int64_t out) { return axis_coefficients(in, out, opt); };
  // A pass whose size does not change is skipped (an unchanged axis is an identity with every filter).
  const bool horizontal_pass = in_w != out_w, vertical_pass = in_h != out_h;
  const size_t row = static_cast<size_t>(out_w) * channels;
  if (!horizontal_pass && !vertical_pass) {
    std::copy(src, src + row * out_h, dst);
    return;
  }
  Coefficients vertical = coeffs(in_h, out_h);
  if constexpr (!std::is_same_v<T, uint8_t>) {
    // Not uint8, so the order of the passes is free (uint8 keeps Pillow's, whose intermediate rounding
    // its results depend on): vertical first when that multiplies less, e.g. on a downscale of both
    // axes, where it leaves the horizontal pass only the output rows.
    if (horizontal_pass && vertical_pass) {
      const Coefficients horizontal = coeffs(in_w, out_w);
      const auto taps = [](const Coefficients& c) { return std::accumulate(c.count.begin(), c.count.end(), int64_t{0}); };
      const int64_t rows_read = vertical.start.back() + vertical.count.back() - vertical.start.front();
      const int64_t horizontal_first = rows_read * taps(horizontal) + out_w * taps(vertical);
      const int64_t vertical_first = in_w * taps(vertical) + out_h * taps(horizontal);
      if (vertical_first < horizontal_first) {
        std::vector<T> tmp(static_cast<size_t>(out_h * in_w * channels));
        resample_columns(src, tmp.data(), in_w * channels, vertical);
        resample_rows(tmp.data(), in_w, dst, out_w, out_h, channels, horizontal);
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
    const Coefficients horizontal = coeffs(in_w, out_w);
    T* out = vertical_pass ? (tmp.resize(row * (row_hi - row_lo)), tmp.data()) : dst;
    if constexpr (std::is_same_v<T, uint8_t>) {
      resample_rows_u8(rows, in_w, out, out_w, row_hi - row_lo, channels, horizontal);
    } else {
      resample_rows(rows, in_w, out, out_w, row_hi - row_lo, channels, horizontal);
    }
    if (!vertical_pass) return;
    rows = tmp.data();
  }
  for (int& s : vertical.start) s -= static_cast<int>(row_lo);
  if constexpr (std::is_same_v<T, uint8_t>) {
    resample_columns_u8(rows, dst, static_cast<int64_t>(row), vertical);
  } else {
    resample_columns(rows, dst, static_cast<int64_t>(row), vertical);
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
  if (hwc || channels == 1) {
    resize_interleaved(in, in_h, in_w, dst, size.height, size.width, static_cast<int>(channels), opt);
  } else {
    for (int64_t c = 0; c < channels; ++c) {
      resize_interleaved(in + c * in_h * in_w, in_h, in_w, dst + c * size.height * size.width, size.height, size.width,
                         1, opt);
    }
  }
  return out;
}

}  // namespace

Coefficients make_coefficients(int64_t in_size, int64_t out_size, Interpolation interp, bool antialias) {
  Coefficients c;
  const double scale = static_cast<double>(in_size) / static_cast<double>(out_size);
  const double filter_scale = antialias ? std::max(scale, 1.0) : 1.0;
  const double support = filter_support(interp) * filter_scale;
  c.taps = static_cast<int>(std::ceil(support)) * 2 + 1;
  c.start.resize(out_size);
  c.count.resize(out_size);
  c.w.assign(static_cast<size_t>(out_size) * c.taps, 0.0);
  c.fixed.assign(c.w.size(), 0);
  for (int64_t i = 0; i < out_size; ++i) {
    const double center = (static_cast<double>(i) + 0.5) * scale;
    const int64_t lo = std::max<int64_t>(static_cast<int64_t>(center - support + 0.5), 0);
    const int64_t hi = std::min<int64_t>(static_cast<int64_t>(center + support + 0.5), in_size);
    const int n = static_cast<int>(std::min<int64_t>(hi - lo, c.taps));
    double* w = &c.w[i * c.taps];
    double total = 0.0;
    for (int k = 0; k < n; ++k) {
      w[k] = filter_value(interp, (static_cast<double>(k + lo) - center + 0.5) / filter_scale);
      total += w[k];
    }
    for (int k = 0; k < n; ++k) {
      if (total != 0.0) w[k] /= total;
      c.fixed[i * c.taps + k] = static_cast<int32_t>(std::lround(w[k] * (1 << kPrecisionBits)));
    }
    c.start[i] = static_cast<int>(lo);
    c.count[i] = n;
  }
  return c;
}

Coefficients axis_coefficients(int64_t in_size, int64_t out_size, const ResizeOptions& opt) {
  switch (opt.interpolation) {
    case Interpolation::kNearest: return make_nearest(in_size, out_size, /*exact=*/false);
    case Interpolation::kNearestExact: return make_nearest(in_size, out_size, /*exact=*/true);
    case Interpolation::kBilinear:
    case Interpolation::kBicubic:
      if (!opt.antialias) return make_interpolate_coefficients(in_size, out_size, opt.interpolation);
      return make_coefficients(in_size, out_size, opt.interpolation, /*antialias=*/true);
    case Interpolation::kBox: return make_coefficients(in_size, out_size, opt.interpolation, opt.antialias);
  }
  throw Error(ErrorCode::kInvalidInput, "resize", "unknown interpolation");
}

Size size_for_shorter_side(Size in, int64_t shorter) {
  if (in.height <= 0 || in.width <= 0 || shorter <= 0) {
    throw Error(ErrorCode::kInvalidInput, "resize", fmt::format("cannot fit {}x{} to a shorter side of {}", in.width, in.height, shorter));
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
