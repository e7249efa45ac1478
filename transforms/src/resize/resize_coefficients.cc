// The weights of a resize axis: Pillow's Resample.c filters (antialias, and kBox), torch's interpolate
// index rules (bilinear and bicubic without antialias) and torch's nearest rules.
#include "resize/resize_coefficients.h"

#include <algorithm>
#include <cmath>

#include "loom/codec/error.h"

namespace loom::transforms {
namespace {

// v rounded half away from zero as Pillow writes it, (int)(v + 0.5) or (int)(v - 0.5): the same as
// std::lround but where v + 0.5 rounds up to the next integer (v = 0.49999999999999994), and inline.
int64_t round_half_away(double v) {
  return static_cast<int64_t>(v < 0.0 ? v - 0.5 : v + 0.5);
}

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
  const double scale = static_cast<double>(in_size) / static_cast<double>(out_size);
  for (int64_t i = 0; i < out_size; ++i) {
    double src = scale * (static_cast<double>(i) + 0.5) - 0.5;
    if (!cubic) src = std::max(src, 0.0);
    const double x0 = std::floor(src), t = src - x0;
    double weights[4];
    int64_t first;
    if (cubic) {
      constexpr double a = -0.75;
      auto near = [](double x) { return ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0; };       // |x| <= 1
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
  }
  return c;
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
    if (total != 0.0) {
      for (int k = 0; k < n; ++k) w[k] /= total;
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

void add_fixed_weights(Coefficients& c) {
  c.fixed.resize(c.w.size());
  std::transform(c.w.begin(), c.w.end(), c.fixed.begin(),
                 [](double w) { return static_cast<int32_t>(round_half_away(w * (1 << kPrecisionBits))); });
}

void add_fast_column_weights(Coefficients& c) {
  c.u16.resize(c.w.size());
  std::transform(c.w.begin(), c.w.end(), c.u16.begin(), [](double w) {
    return static_cast<uint16_t>(std::clamp<int64_t>(round_half_away(w * 65536), 0, 65535));
  });
}

void add_fast_row_weights(Coefficients& c) {
  double largest = 0.0;
  for (double w : c.w) largest = std::max(largest, std::abs(w));
  c.w16_bits = kPrecisionBits;
  while (c.w16_bits > 0 && round_half_away(largest * (1 << c.w16_bits)) > 32767) --c.w16_bits;
  c.w16.resize(c.w.size());
  std::transform(c.w.begin(), c.w.end(), c.w16.begin(), [&](double w) {
    return static_cast<int16_t>(std::clamp<int64_t>(round_half_away(w * (1 << c.w16_bits)), -32768, 32767));
  });
}

}  // namespace loom::transforms
