// Each output pixel maps to a source position (in input pixel-index units, pixel k's centre at k):
// nearest reads the pixel at round-half-even(position) when inside, bilinear blends the four
// neighbours with zero for the ones outside; the fill then blends in by the outside weight:
// out = mask * (sample - fill) + fill with mask = the inside weight, exactly torchvision's
// _apply_grid_transform (which attenuates the zero-padded sample by the mask once more, darkening
// edge pixels slightly; loom keeps that for parity). Without a fill (torchvision's fill=None) the
// outside reads as zero and nothing is blended. uint8 results are rounded half to even.
#include "warp.h"

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "loom/codec/error.h"

namespace loom::transforms::detail {
namespace {

struct Plane {
  int64_t height, width, channels;  // channels interleaved (1 for a CHW plane)
};

template <typename T>
T store(double v) {
  if constexpr (std::is_same_v<T, uint8_t>) {
    return static_cast<uint8_t>(std::clamp(std::nearbyint(v), 0.0, 255.0));
  } else {
    return static_cast<T>(v);
  }
}

// Samples one interleaved plane; map(x, y) gives the source position of output pixel (x, y).
// `fill` null: torchvision's fill=None (outside reads as zero, no blending).
template <typename T, typename Map>
void warp_plane(const T* src, Plane in, T* dst, Size out, const Map& map, bool bilinear, const double* fill) {
  const int64_t c = in.channels;
  for (int64_t y = 0; y < out.height; ++y) {
    for (int64_t x = 0; x < out.width; ++x) {
      const auto [sx, sy] = map(x, y);
      T* o = dst + (y * out.width + x) * c;
      if (!bilinear) {
        const double rx = std::nearbyint(sx), ry = std::nearbyint(sy);
        if (rx >= 0 && ry >= 0 && rx < static_cast<double>(in.width) && ry < static_cast<double>(in.height)) {
          const T* p = src + (static_cast<int64_t>(ry) * in.width + static_cast<int64_t>(rx)) * c;
          std::copy(p, p + c, o);
        } else {
          for (int64_t k = 0; k < c; ++k) o[k] = store<T>(fill ? fill[k] : 0.0);
        }
        continue;
      }
      const double fx0 = std::floor(sx), fy0 = std::floor(sy);
      const double ax = sx - fx0, ay = sy - fy0;
      const int64_t x0 = static_cast<int64_t>(fx0), y0 = static_cast<int64_t>(fy0);
      const double w[4] = {(1 - ax) * (1 - ay), ax * (1 - ay), (1 - ax) * ay, ax * ay};
      const int64_t xs[4] = {x0, x0 + 1, x0, x0 + 1}, ys[4] = {y0, y0, y0 + 1, y0 + 1};
      double acc[4] = {0, 0, 0, 0}, mask = 0;
      for (int t = 0; t < 4; ++t) {
        if (xs[t] < 0 || ys[t] < 0 || xs[t] >= in.width || ys[t] >= in.height || w[t] == 0) continue;
        const T* p = src + (ys[t] * in.width + xs[t]) * c;
        for (int64_t k = 0; k < c; ++k) acc[k] += w[t] * static_cast<double>(p[k]);
        mask += w[t];
      }
      for (int64_t k = 0; k < c; ++k) o[k] = store<T>(fill ? mask * (acc[k] - fill[k]) + fill[k] : acc[k]);
    }
  }
}

template <typename T, typename Map>
Tensor warp_typed(const Tensor& image, vision::Layout layout, Size out, const Map& map, const WarpOptions& opt) {
  const Tensor src = image.contiguous();
  const bool hwc = layout == vision::Layout::kHWC;
  const int64_t channels = image_channels(src, layout);
  const Size in = image_size(src, layout);
  if (!opt.fill.empty() && opt.fill.size() != 1 && static_cast<int64_t>(opt.fill.size()) != channels) {
    throw Error(ErrorCode::kInvalidInput, "fill", fmt::format("{} values for an image of {} channels", opt.fill.size(), channels));
  }
  std::vector<double> fill(static_cast<size_t>(channels), 0.0);
  for (int64_t k = 0; k < channels && !opt.fill.empty(); ++k) fill[k] = opt.fill[opt.fill.size() == 1 ? 0 : k];
  Tensor result = hwc ? Tensor::empty({out.height, out.width, channels}, src.dtype())
                      : Tensor::empty({channels, out.height, out.width}, src.dtype());
  const bool bilinear = opt.interpolation == Interpolation::kBilinear;
  if (hwc) {
    warp_plane(src.data<T>(), {in.height, in.width, channels}, result.data<T>(), out, map, bilinear,
               opt.fill.empty() ? nullptr : fill.data());
  } else {
    for (int64_t k = 0; k < channels; ++k) {
      warp_plane(src.data<T>() + k * in.height * in.width, {in.height, in.width, 1},
                 result.data<T>() + k * out.height * out.width, out, map, bilinear,
                 opt.fill.empty() ? nullptr : &fill[k]);
    }
  }
  return result;
}

template <typename Map>
Tensor warp(const Tensor& image, vision::Layout layout, Size out, const Map& map, const WarpOptions& opt,
            std::string_view what) {
  if (opt.interpolation != Interpolation::kNearest && opt.interpolation != Interpolation::kBilinear) {
    throw Error(ErrorCode::kInvalidInput, std::string(what), "supports nearest and bilinear interpolation only");
  }
  if (!image.device().is_cpu()) throw Error(ErrorCode::kUnsupported, std::string(what), "runs on CPU tensors only");
  switch (image.dtype()) {
    case DType::kUInt8: return warp_typed<uint8_t>(image, layout, out, map, opt);
    case DType::kFloat32: return warp_typed<float>(image, layout, out, map, opt);
    default:
      throw Error(ErrorCode::kInvalidInput, std::string(what),
                  fmt::format("expects uint8 or float32, got {}", to_string(image.dtype())));
  }
}

}  // namespace

Tensor warp_affine(const Tensor& image, vision::Layout layout, const AffineMatrix& m, Size out, const WarpOptions& opt) {
  const Size in = image_size(image, layout);
  // Output pixel (x, y) relative to the output centre; source position relative to the input centre,
  // then shifted to pixel-index units.
  const double ocx = 0.5 * static_cast<double>(out.width), ocy = 0.5 * static_cast<double>(out.height);
  const double icx = 0.5 * static_cast<double>(in.width) - 0.5, icy = 0.5 * static_cast<double>(in.height) - 0.5;
  auto map = [&](int64_t x, int64_t y) {
    const double px = static_cast<double>(x) + 0.5 - ocx, py = static_cast<double>(y) + 0.5 - ocy;
    return std::pair{m[0] * px + m[1] * py + m[2] + icx, m[3] * px + m[4] * py + m[5] + icy};
  };
  return warp(image, layout, out, map, opt, "affine");
}

Tensor warp_perspective(const Tensor& image, vision::Layout layout, const std::array<double, 8>& c,
                        const WarpOptions& opt) {
  const Size in = image_size(image, layout);
  auto map = [&](int64_t x, int64_t y) {
    const double px = static_cast<double>(x) + 0.5, py = static_cast<double>(y) + 0.5;
    const double d = c[6] * px + c[7] * py + 1.0;
    return std::pair{(c[0] * px + c[1] * py + c[2]) / d - 0.5, (c[3] * px + c[4] * py + c[5]) / d - 0.5};
  };
  return warp(image, layout, in, map, opt, "perspective");
}

}  // namespace loom::transforms::detail
