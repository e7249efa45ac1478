// The Highway kernels of gaussian_noise (noise_hwy.cc) equal their scalar reference bit for bit on every
// SIMD target this CPU supports: the generator including the rejected ziggurat draws (ziggurat.cc), the
// int16 wrap-around, clipping and the tails shorter than a vector.
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <cstdlib>
#include <cstring>
#include <random>
#include <utility>
#include <vector>

#include "noise/noise_kernels.h"

namespace loom::transforms {
namespace {

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST(NoiseHwy, EveryTargetMatchesTheScalarReference) {
  std::mt19937 rng(6);
  const int64_t n = 20011;  // odd: a tail after the last whole vector
  std::vector<uint8_t> u8(n);
  std::vector<float> f32(n);
  for (int64_t i = 0; i < n; ++i) {
    u8[i] = static_cast<uint8_t>(rng());
    f32[i] = static_cast<float>(rng()) * 0x1.0p-32f;
  }
  // Rejected draws exist in these n elements (about 1.2% of them), so the fallback path is compared too.
  NoiseJob probe;
  prepare_noise_job(probe, 0x1234, 0.0, 1.0, true);
  int rejected = 0;
  for (int64_t i = 0; i < n; ++i) {
    const auto h = static_cast<int32_t>(noise_hash(probe.key, static_cast<uint32_t>(i)));
    rejected += !(std::abs(static_cast<int64_t>(h)) < ziggurat().k[static_cast<uint32_t>(h) & 127u]);
  }
  EXPECT_GT(rejected, n / 200);
  int checked = 0;
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    // (mean, sigma) on the uint8 scale: typical, shifted, huge (saturating the int16 noise and wrapping).
    for (auto [mean, sigma] : {std::pair{0.0, 25.5}, {-30.0, 60.0}, {100.0, 40000.0}}) {
      for (bool clip : {true, false}) {
        for (uint64_t first : {uint64_t{0}, uint64_t{12345}}) {
          NoiseJob job;
          prepare_noise_job(job, 0x1234, mean, sigma, clip);
          job.first = first;
          std::vector<uint8_t> got(n), want(n);
          gaussian_noise_u8(u8.data(), got.data(), n, job);
          gaussian_noise_u8_scalar(u8.data(), want.data(), n, job);
          ASSERT_EQ(got, want) << hwy::TargetName(target) << " mean " << mean << " sigma " << sigma << " clip " << clip;
          prepare_noise_job(job, 0x1234, mean / 255, sigma / 255, clip);
          job.first = first;
          std::vector<float> fgot(n), fwant(n);
          gaussian_noise_f32(f32.data(), fgot.data(), n, job);
          gaussian_noise_f32_scalar(f32.data(), fwant.data(), n, job);
          ASSERT_TRUE(same_bits(fgot, fwant)) << hwy::TargetName(target) << " float sigma " << sigma;
          ++checked;
        }
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  EXPECT_GE(checked, 12);
}

}  // namespace
}  // namespace loom::transforms
