// The generator's tables and its scalar fallback (noise_kernels.h): Marsaglia and Tsang's 128-layer
// ziggurat, and the rest of a rejected draw from a per-element splitmix64 stream.
#include <cmath>
#include <cstdlib>

#include "core/splitmix64.h"
#include "noise/noise_kernels.h"

namespace loom::transforms {
namespace {

constexpr double kR = 3.442619855899;       // start of the tail (Marsaglia and Tsang's 128-layer constants)
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

}  // namespace loom::transforms
