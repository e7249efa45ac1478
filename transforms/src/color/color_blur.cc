// gaussian_blur: torchvision's Gaussian kernel applied as two separable float32 passes (horizontal
// then vertical) over reflect-padded planes; uint8 is rounded to nearest even at the end.
#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "color/planar.h"
#include "core/image_check.h"
#include "loom/codec/error.h"
#include "loom/transforms/color.h"

namespace loom::transforms {
namespace {

// torchvision's _get_gaussian_kernel1d: exp(-0.5 (x / sigma)^2) at x = -(k-1)/2 .. (k-1)/2, normalised
// (computed in double, rounded to float32 once).
std::vector<float> gaussian_kernel(int k, double sigma) {
  std::vector<double> pdf(static_cast<size_t>(k));
  double sum = 0.0;
  const double half = (k - 1) * 0.5;
  for (int i = 0; i < k; ++i) {
    const double x = (-half + i) / sigma;
    sum += pdf[i] = std::exp(-0.5 * x * x);
  }
  std::vector<float> kernel(static_cast<size_t>(k));
  for (int i = 0; i < k; ++i) kernel[i] = static_cast<float>(pdf[i] / sum);
  return kernel;
}

// torch's "reflect" padding: index -1 reads 1, index n reads n - 2 (valid for pad < n).
inline int64_t reflect(int64_t i, int64_t n) {
  if (i < 0) return -i;
  if (i >= n) return 2 * (n - 1) - i;
  return i;
}

// Blurs one h x w plane of float values in place of `out` (may not alias `in`).
void blur_plane(const float* in, float* out, int64_t h, int64_t w, const std::vector<float>& kx,
                const std::vector<float>& ky) {
  const int64_t px = static_cast<int64_t>(kx.size()) / 2, py = static_cast<int64_t>(ky.size()) / 2;
  std::vector<float> row(static_cast<size_t>(w + 2 * px));
  std::vector<float> tmp(static_cast<size_t>(h * w));
  for (int64_t y = 0; y < h; ++y) {  // horizontal: rows padded by reflection
    const float* src = in + y * w;
    for (int64_t x = -px; x < w + px; ++x) row[x + px] = src[reflect(x, w)];
    float* dst = tmp.data() + y * w;
    std::fill(dst, dst + w, 0.0f);
    for (size_t t = 0; t < kx.size(); ++t) {
      const float k = kx[t];
      const float* r = row.data() + t;
      for (int64_t x = 0; x < w; ++x) dst[x] += k * r[x];
    }
  }
  for (int64_t y = 0; y < h; ++y) {  // vertical: whole rows at a time
    float* dst = out + y * w;
    std::fill(dst, dst + w, 0.0f);
    for (size_t t = 0; t < ky.size(); ++t) {
      const float k = ky[t];
      const float* r = tmp.data() + reflect(y + static_cast<int64_t>(t) - py, h) * w;
      for (int64_t x = 0; x < w; ++x) dst[x] += k * r[x];
    }
  }
}

}  // namespace

Tensor gaussian_blur(const Tensor& image, std::array<int, 2> kernel_size, std::array<double, 2> sigma, Layout layout) {
  const char* op = "gaussian_blur";
  check_image(image, layout, op, {DType::kUInt8, DType::kFloat32});
  for (int k : kernel_size) {
    if (k <= 0 || k % 2 == 0) {
      throw Error(ErrorCode::kInvalidInput, op,
                  fmt::format("kernel sizes must be odd and positive, got {}x{}", kernel_size[0], kernel_size[1]));
    }
  }
  for (double s : sigma) {
    if (!(s > 0.0) || !std::isfinite(s)) {
      throw Error(ErrorCode::kInvalidInput, op,
                  fmt::format("sigma must be positive, got ({}, {})", sigma[0], sigma[1]));
    }
  }
  const Tensor planar = to_planar(image, layout);
  const int64_t c = planar.size(0), h = planar.size(1), w = planar.size(2), hw = h * w;
  if (hw == 0 || c == 0) return from_planar(planar.clone(), layout);
  if (kernel_size[0] / 2 >= w || kernel_size[1] / 2 >= h) {
    throw Error(ErrorCode::kInvalidInput, op,
                fmt::format("a {}x{} kernel needs an image larger than half the kernel (reflect padding), got {}x{}",
                            kernel_size[0], kernel_size[1], w, h));
  }
  const std::vector<float> kx = gaussian_kernel(kernel_size[0], sigma[0]);
  const std::vector<float> ky = gaussian_kernel(kernel_size[1], sigma[1]);
  Tensor out = Tensor::empty(planar.shape(), planar.dtype());
  if (planar.dtype() == DType::kFloat32) {
    for (int64_t ch = 0; ch < c; ++ch)
      blur_plane(planar.data<float>() + ch * hw, out.data<float>() + ch * hw, h, w, kx, ky);
  } else {
    std::vector<float> in(static_cast<size_t>(hw)), res(static_cast<size_t>(hw));
    for (int64_t ch = 0; ch < c; ++ch) {
      const uint8_t* src = planar.data<uint8_t>() + ch * hw;
      for (int64_t i = 0; i < hw; ++i) in[i] = src[i];
      blur_plane(in.data(), res.data(), h, w, kx, ky);
      uint8_t* dst = out.data<uint8_t>() + ch * hw;
      for (int64_t i = 0; i < hw; ++i) dst[i] = static_cast<uint8_t>(std::clamp(std::nearbyint(res[i]), 0.0f, 255.0f));
    }
  }
  return from_planar(out, layout);
}

}  // namespace loom::transforms
