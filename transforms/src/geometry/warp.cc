// The warp kernels (geometry_kernels.h), fed a WarpPlan. Each output pixel maps to a source position
// (in input pixel-index units, pixel k's centre at k): nearest reads the pixel at
// round-half-even(position) when inside, bilinear blends the four neighbours with zero for the ones
// outside; the fill then blends in by the outside weight: out = mask * (sample - fill) + fill with
// mask = the inside weight, exactly torchvision's _apply_grid_transform (which attenuates the
// zero-padded sample by the mask once more, darkening edge pixels slightly; loom keeps that for
// parity). Without a fill (torchvision's fill=None) the outside reads as zero and nothing is blended.
// uint8 results are rounded half to even.
//
// Two precisions: warp_f32 (the warp template below) maps and blends in double; the uint8 warps
// (warp_u8_run, the scalar reference of warp_hwy.cc's kernel) map in float32, as torch does for uint8
// images, with the row starts of warp_row computed in double, and blend in fixed point: the four
// float weights rounded to 15 bits, each tap's product truncated to 7 fractional bits, the sum rounded
// half to even (geometry_kernels.h, round_acc); with a fill, the fill blend is in float on that sum.
// Float32 positions are off by at most a few 1e-4 pixel on a 3000-wide image (0.15 grey level on the
// steepest edge), the fixed point by under 0.05, so the uint8 results stay within 1 of torchvision,
// whose own float32 positions are as close (tests/transforms/warp_hwy_test.cc bounds them against the
// double-precision warp_f32). Built with -ffp-contract=off (transforms/CMakeLists.txt): every
// multiply and add rounds on its own, as in the Highway kernel.
#include <algorithm>
#include <array>
#include <cmath>
#include <utility>
#include <vector>

#include "geometry/geometry_kernels.h"

namespace loom::transforms::detail {
namespace {

// Adding and subtracting 1.5 * 2^52 rounds a double of magnitude below 2^51 to an integer, half to
// even (the FPU's default rounding), without a branch or a libm call (the baseline x86-64 build has
// no SSE4.1 roundsd).
inline double round_half_even(double v) {
  return (v + 0x1.8p52) - 0x1.8p52;
}

// floor without libm, valid for |v| < 2^62 (every position inside a loom-sized image).
inline int64_t floor_int(double v) {
  const auto i = static_cast<int64_t>(v);
  return i - (static_cast<double>(i) > v);
}

// Where one output pixel reads: four source pixel offsets with their weights (a tap outside the image
// has weight 0 and offset 0, so every tap can be read without a branch) and the weight inside the
// image. Nearest uses tap 0 only (and sets only its offset and the mask), with mask 0 when it falls
// outside.
struct Taps {
  int64_t offset[4];
  double weight[4];
  double mask;
};

constexpr Taps kOutside{{0, 0, 0, 0}, {0, 0, 0, 0}, 0.0};

// The taps are written in place: a Taps returned by value went through the stack and stalled on
// store forwarding.
void nearest_taps(double sx, double sy, Size in, int64_t pixel_stride, Taps& t) {
  t.offset[0] = 0, t.mask = 0.0;
  if (!(std::fabs(sx) < 0x1p51 && std::fabs(sy) < 0x1p51)) return;  // far outside, or NaN
  const auto rx = static_cast<int64_t>(round_half_even(sx)), ry = static_cast<int64_t>(round_half_even(sy));
  if (rx < 0 || ry < 0 || rx >= in.width || ry >= in.height) return;
  t.offset[0] = (ry * in.width + rx) * pixel_stride, t.mask = 1.0;
}

void bilinear_taps(double sx, double sy, Size in, int64_t pixel_stride, Taps& t) {
  if (!(sx > -1.0 && sy > -1.0 && sx < static_cast<double>(in.width) && sy < static_cast<double>(in.height))) {
    t = kOutside;  // no tap inside (also NaN)
    return;
  }
  const int64_t x0 = floor_int(sx), y0 = floor_int(sy);
  const double ax = sx - static_cast<double>(x0), ay = sy - static_cast<double>(y0);
  t.weight[0] = (1 - ax) * (1 - ay), t.weight[1] = ax * (1 - ay), t.weight[2] = (1 - ax) * ay, t.weight[3] = ax * ay;
  if (x0 >= 0 && y0 >= 0 && x0 + 1 < in.width && y0 + 1 < in.height) {  // the common case: all inside
    const int64_t o = (y0 * in.width + x0) * pixel_stride, row = in.width * pixel_stride;
    t.offset[0] = o, t.offset[1] = o + pixel_stride, t.offset[2] = o + row, t.offset[3] = o + row + pixel_stride;
    t.mask = t.weight[0] + t.weight[1] + t.weight[2] + t.weight[3];
    return;
  }
  t.mask = 0.0;
  for (int k = 0; k < 4; ++k) {
    const int64_t x = x0 + (k & 1), y = y0 + (k >> 1);
    if (x < 0 || y < 0 || x >= in.width || y >= in.height) {
      t.offset[k] = 0, t.weight[k] = 0.0;
      continue;
    }
    t.offset[k] = (y * in.width + x) * pixel_stride;
    t.mask += t.weight[k];
  }
}

// Warps every channel of a float32 image (the uint8 warps are warp_u8_run below); map(x, y) gives the source position
// of output pixel (x, y). The taps of a row are computed once and applied to each channel. `fill` null: torchvision's
// fill=None (outside reads as zero, no blending).
template <typename T, typename Map>
void warp_image(const T* src, Size in, PixelStrides in_strides, T* dst, Size out, PixelStrides out_strides,
                int64_t channels, const Map& map, bool bilinear, const double* fill) {
  std::vector<Taps> row(static_cast<size_t>(out.width));
  for (int64_t y = 0; y < out.height; ++y) {
    for (int64_t x = 0; x < out.width; ++x) {
      const auto [sx, sy] = map(x, y);
      if (bilinear) {
        bilinear_taps(sx, sy, in, in_strides.pixel, row[x]);
      } else {
        nearest_taps(sx, sy, in, in_strides.pixel, row[x]);
      }
    }
    for (int64_t k = 0; k < channels; ++k) {
      const T* s = src + k * in_strides.channel;
      T* o = dst + y * out.width * out_strides.pixel + k * out_strides.channel;
      const double f = fill ? fill[k] : 0.0;
      if (!bilinear) {
        const T outside = static_cast<T>(f);
        for (int64_t x = 0; x < out.width; ++x)
          o[x * out_strides.pixel] = row[x].mask > 0 ? s[row[x].offset[0]] : outside;
        continue;
      }
      for (int64_t x = 0; x < out.width; ++x) {
        const Taps& t = row[x];
        const double acc =
            t.weight[0] * static_cast<double>(s[t.offset[0]]) + t.weight[1] * static_cast<double>(s[t.offset[1]]) +
            t.weight[2] * static_cast<double>(s[t.offset[2]]) + t.weight[3] * static_cast<double>(s[t.offset[3]]);
        o[x * out_strides.pixel] = static_cast<T>(fill ? t.mask * (acc - f) + f : acc);
      }
    }
  }
}

// The map of `plan` as a function of the output pixel (x, y), then the warp.
template <typename T>
void warp(const T* src, T* dst, const WarpPlan& plan) {
  std::array<double, 8> c;
  std::copy(plan.coeffs, plan.coeffs + 8, c.begin());
  if (plan.map == WarpMap::kAffine) {
    // Output pixel (x, y) relative to the output centre; source position relative to the input centre,
    // then shifted to pixel-index units.
    const double ocx = 0.5 * static_cast<double>(plan.out.width), ocy = 0.5 * static_cast<double>(plan.out.height);
    const double icx = 0.5 * static_cast<double>(plan.in.width) - 0.5;
    const double icy = 0.5 * static_cast<double>(plan.in.height) - 0.5;
    auto map = [&](int64_t x, int64_t y) {
      const double px = static_cast<double>(x) + 0.5 - ocx, py = static_cast<double>(y) + 0.5 - ocy;
      return std::pair{c[0] * px + c[1] * py + c[2] + icx, c[3] * px + c[4] * py + c[5] + icy};
    };
    warp_image(src, plan.in, plan.in_strides, dst, plan.out, plan.out_strides, plan.channels, map, plan.bilinear,
               plan.fill);
  } else {
    auto map = [&](int64_t x, int64_t y) {
      const double px = static_cast<double>(x) + 0.5, py = static_cast<double>(y) + 0.5;
      const double d = c[6] * px + c[7] * py + 1.0;
      return std::pair{(c[0] * px + c[1] * py + c[2]) / d - 0.5, (c[3] * px + c[4] * py + c[5]) / d - 0.5};
    };
    warp_image(src, plan.in, plan.in_strides, dst, plan.out, plan.out_strides, plan.channels, map, plan.bilinear,
               plan.fill);
  }
}

}  // namespace

WarpRow warp_row(const WarpPlan& plan, int64_t y) {
  const double* c = plan.coeffs;
  if (plan.map == WarpMap::kAffine) {  // see warp() above: px = x + 0.5 - ocx, py = y + 0.5 - ocy
    const double px0 = 0.5 - 0.5 * static_cast<double>(plan.out.width);
    const double py = static_cast<double>(y) + 0.5 - 0.5 * static_cast<double>(plan.out.height);
    const double icx = 0.5 * static_cast<double>(plan.in.width) - 0.5;
    const double icy = 0.5 * static_cast<double>(plan.in.height) - 0.5;
    return {static_cast<float>(c[0] * px0 + c[1] * py + c[2] + icx),
            static_cast<float>(c[0]),
            static_cast<float>(c[3] * px0 + c[4] * py + c[5] + icy),
            static_cast<float>(c[3]),
            1.0f,
            0.0f};
  }
  const double py = static_cast<double>(y) + 0.5;  // px = x + 0.5
  return {static_cast<float>(c[0] * 0.5 + c[1] * py + c[2]), static_cast<float>(c[0]),
          static_cast<float>(c[3] * 0.5 + c[4] * py + c[5]), static_cast<float>(c[3]),
          static_cast<float>(c[6] * 0.5 + c[7] * py + 1.0),  static_cast<float>(c[6])};
}

namespace {

// round half to even of a float below 2^22 in magnitude, as an integer.
inline int32_t nearest_int(float v) {
  return static_cast<int32_t>((v + 0x1.8p23f) - 0x1.8p23f);
}

}  // namespace

void warp_u8_run(const uint8_t* src, uint8_t* dst, const WarpPlan& plan, const WarpRow& row, int64_t y, int64_t x_begin,
                 int64_t x_end) {
  const int64_t w = plan.in.width, h = plan.in.height, ps = plan.in_strides.pixel;
  const float wf = static_cast<float>(w), hf = static_cast<float>(h);
  const bool perspective = plan.map == WarpMap::kPerspective;
  uint8_t* out_row = dst + y * plan.out.width * plan.out_strides.pixel;
  for (int64_t x = x_begin; x < x_end; ++x) {
    const float xf = static_cast<float>(x);
    float sx = row.x0 + xf * row.dx, sy = row.y0 + xf * row.dy;
    if (perspective) {
      const float d = row.w0 + xf * row.dw;
      sx = sx / d - 0.5f, sy = sy / d - 0.5f;
    }
    uint8_t* o = out_row + x * plan.out_strides.pixel;
    if (!plan.bilinear) {
      // round_u8's rounding, valid below 2^22 (larger is outside every image loom handles).
      const float rx = (sx + 0x1.8p23f) - 0x1.8p23f, ry = (sy + 0x1.8p23f) - 0x1.8p23f;
      const bool inside =
          std::fabs(sx) < 0x1p22f && std::fabs(sy) < 0x1p22f && rx >= 0.0f && rx < wf && ry >= 0.0f && ry < hf;
      const int64_t offset = inside ? (static_cast<int64_t>(ry) * w + static_cast<int64_t>(rx)) * ps : 0;
      for (int64_t k = 0; k < plan.channels; ++k) {
        o[k * plan.out_strides.channel] = inside                 ? src[k * plan.in_strides.channel + offset]
                                          : plan.fill != nullptr ? round_u8(static_cast<float>(plan.fill[k]))
                                                                 : uint8_t{0};
      }
      continue;
    }
    const bool inside = sx > -1.0f && sx < wf && sy > -1.0f && sy < hf;  // some tap inside (false for NaN)
    if (!inside) sx = 0.0f, sy = 0.0f;
    const float fx = std::floor(sx), fy = std::floor(sy);
    const float ax = sx - fx, ay = sy - fy, bx = 1.0f - ax, by = 1.0f - ay;
    const auto x0 = static_cast<int64_t>(fx), y0 = static_cast<int64_t>(fy);
    float weight[4] = {bx * by, ax * by, bx * ay, ax * ay};
    int64_t offset[4];
    for (int k = 0; k < 4; ++k) {
      const int64_t tx = x0 + (k & 1), ty = y0 + (k >> 1);
      const bool valid = inside && tx >= 0 && ty >= 0 && tx < w && ty < h;
      offset[k] = valid ? (ty * w + tx) * ps : 0;
      if (!valid) weight[k] = 0.0f;
    }
    const float mask = ((weight[0] + weight[1]) + weight[2]) + weight[3];
    int32_t q[4];  // the weights in fixed point (kWeightBits)
    for (int k = 0; k < 4; ++k) q[k] = nearest_int(weight[k] * kWeightOne);
    for (int64_t k = 0; k < plan.channels; ++k) {
      const uint8_t* s = src + k * plan.in_strides.channel;
      int32_t acc = 0;  // kAccBits
      for (int j = 0; j < 4; ++j) acc += (s[offset[j]] * q[j]) >> (kWeightBits - kAccBits);
      uint8_t& value = o[k * plan.out_strides.channel];
      if (plan.fill == nullptr) {
        value = static_cast<uint8_t>(std::min(round_acc(acc), 255));
      } else {
        const float f = static_cast<float>(plan.fill[k]);
        value = round_u8(mask * (static_cast<float>(acc) * kAccStep - f) + f);
      }
    }
  }
}

void warp_u8_reference(const uint8_t* src, uint8_t* dst, const WarpPlan& plan) {
  for (int64_t y = 0; y < plan.out.height; ++y) warp_u8_run(src, dst, plan, warp_row(plan, y), y, 0, plan.out.width);
}

void warp_f32(const float* src, float* dst, const WarpPlan& plan) {
  warp(src, dst, plan);
}

}  // namespace loom::transforms::detail
