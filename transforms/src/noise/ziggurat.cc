// The generator's tables (noise_kernels.h): Marsaglia and Tsang's 128-layer ziggurat, and the CPU's
// entry to the fallback of a rejected draw (noise_plan.h), compiled here, away from the SIMD targets.
#include <cmath>
#include <cstdlib>

#include "noise/noise_kernels.h"

namespace loom::transforms {
namespace {

constexpr double kR = 3.442619855899;       // start of the tail (as ziggurat_fallback's, noise_plan.h)
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
  return ziggurat_fallback(job, ziggurat(), index, h);
}

}  // namespace loom::transforms
