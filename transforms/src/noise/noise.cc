// gaussian_noise: argument checks, the ziggurat tables and the scalar fallback of the generator; the
// per-element work is in noise_hwy.cc.
#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

#include "core/image_check.h"
#include "loom/codec/error.h"
#include "loom/transforms/noise.h"
#include "noise/noise_kernels.h"
#include "core/splitmix64.h"

namespace loom::transforms {
namespace {

constexpr double kR = 3.442619855899;  // start of the tail (Marsaglia and Tsang's 128-layer constants)
constexpr double kV = 9.91256303526217e-3;  // area of each layer

Ziggurat build_ziggurat() {
  Ziggurat z{};
  const double m1 = 2147483648.0;
  double dn = kR, tn = kR;
  const double q = kV / std::exp(-0.5 * dn * dn);
  z.k[0] = static_cast<int32_t>((dn / q) * m1);
  z.k[1] = 0;
  z.w[0] = q / m1;
  z.w[127] = dn / m1;
  z.f[0] = 1.0;
  z.f[127] = std::exp(-0.5 * dn * dn);
  for (int i = 126; i >= 1; --i) {
    dn = std::sqrt(-2.0 * std::log(kV / dn + std::exp(-0.5 * dn * dn)));
    z.k[i + 1] = static_cast<int32_t>((dn / tn) * m1);
    tn = dn;
    z.f[i] = std::exp(-0.5 * dn * dn);
    z.w[i] = dn / m1;
  }
  return z;
}

}  // namespace

const Ziggurat& ziggurat() {
  static const Ziggurat table = build_ziggurat();
  return table;
}

void prepare_noise_job(NoiseJob& job, uint64_t key, double mean, double sigma, bool clip) {
  job.key = key;
  job.first = 0;
  job.mean = static_cast<float>(mean);
  job.sigma = sigma;
  job.clip = clip;
  const Ziggurat& z = ziggurat();
  for (int l = 0; l < 128; ++l) job.scaled_w[l] = static_cast<float>(z.w[l] * sigma);
}

float ziggurat_fallback(const NoiseJob& job, uint32_t index, int32_t h) {
  const Ziggurat& z = ziggurat();
  // A private stream for this element: splitmix64 seeded from the key and the index.
  uint64_t state = job.key ^ (static_cast<uint64_t>(index) * 0xd1342543de82ef95ull + 0x2545f4914f6cdd1dull);
  auto uniform = [&] { return (static_cast<double>(detail::splitmix64(state) >> 11) + 0.5) * 0x1.0p-53; };  // (0, 1)
  int layer = static_cast<int>(static_cast<uint32_t>(h) & 127u);
  for (;;) {
    double x = h * z.w[layer];
    if (layer == 0) {  // the tail beyond kR (Marsaglia's method)
      double y;
      do {
        x = -std::log(uniform()) / kR;
        y = -std::log(uniform());
      } while (y + y < x * x);
      x = h > 0 ? kR + x : -kR - x;
      return static_cast<float>(x * job.sigma);
    }
    if (z.f[layer] + uniform() * (z.f[layer - 1] - z.f[layer]) < std::exp(-0.5 * x * x)) {
      return static_cast<float>(x * job.sigma);
    }
    h = static_cast<int32_t>(static_cast<uint32_t>(detail::splitmix64(state) >> 32));
    layer = static_cast<int>(static_cast<uint32_t>(h) & 127u);
    if (std::abs(static_cast<int64_t>(h)) < z.k[layer]) return static_cast<float>(h * z.w[layer] * job.sigma);
  }
}

Tensor gaussian_noise(const Tensor& image, Rng& rng, double mean, double sigma, bool clip) {
  const char* op = "gaussian_noise";
  check_image(image, Layout::kCHW, op, {DType::kUInt8, DType::kFloat32});  // element-wise: any layout
  if (!std::isfinite(mean) || !std::isfinite(sigma) || sigma < 0.0) {
    throw Error(ErrorCode::kInvalidInput, op,
                fmt::format("mean must be finite and sigma finite and >= 0, got mean {} sigma {}", mean, sigma));
  }
  const bool u8 = image.dtype() == DType::kUInt8;
  const Tensor src = image.contiguous();
  Tensor out = Tensor::empty(src.shape(), src.dtype());
  // torchvision: uint8 noise is (mean * 255) + randn * (sigma * 255) in float32.
  NoiseJob job;
  prepare_noise_job(job, rng.next(), u8 ? static_cast<double>(static_cast<float>(mean * 255.0)) : mean,
                    u8 ? static_cast<double>(static_cast<float>(sigma * 255.0)) : static_cast<double>(static_cast<float>(sigma)),
                    clip);
  const uint64_t base_key = job.key;
  const int64_t n = src.numel();
  constexpr int64_t kChunk = int64_t{1} << 32;  // the hash indexes 2^32 elements per key
  for (int64_t start = 0; start < n; start += kChunk) {
    const int64_t count = std::min(kChunk, n - start);
    job.key = base_key ^ (static_cast<uint64_t>(start / kChunk) * 0x9e3779b97f4a7c15ull);
    if (u8) {
      gaussian_noise_u8(src.data<uint8_t>() + start, out.data<uint8_t>() + start, count, job);
    } else {
      gaussian_noise_f32(src.data<float>() + start, out.data<float>() + start, count, job);
    }
  }
  return out;
}

}  // namespace loom::transforms
