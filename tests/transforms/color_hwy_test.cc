// The Highway kernels of normalize (color_hwy.cc) equal their scalar reference bit for bit on every
// SIMD target this CPU supports, for every layout pair and channel count.
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <cstring>
#include <random>
#include <vector>

#include "color/color_kernels.h"

namespace loom::transforms {
namespace {

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST(NormalizeHwy, EveryTargetMatchesTheScalarReference) {
  std::mt19937 rng(5);
  const float mean[4] = {0.485f, 0.456f, 0.406f, 0.5f}, std[4] = {0.229f, 0.224f, 0.225f, 0.3f};
  int checked = 0;
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    for (int channels : {1, 2, 3, 4}) {
      for (int64_t pixels : {1, 7, 16, 33, 100, 1031}) {
        std::vector<uint8_t> u8(static_cast<size_t>(pixels * channels));
        std::vector<float> f32(u8.size());
        for (size_t i = 0; i < u8.size(); ++i) {
          u8[i] = static_cast<uint8_t>(rng());
          f32[i] = static_cast<float>(rng()) * 0x1.0p-32f * 1.5f - 0.25f;
        }
        for (bool src_i : {false, true}) {
          for (bool dst_i : {false, true}) {
            NormalizeJob job{pixels, channels, src_i, dst_i, mean, std};
            std::vector<float> got(u8.size()), want(u8.size());
            normalize_u8(u8.data(), got.data(), job);
            normalize_u8_scalar(u8.data(), want.data(), job);
            ASSERT_TRUE(same_bits(got, want)) << hwy::TargetName(target) << " u8 C=" << channels << " n=" << pixels;
            normalize_f32(f32.data(), got.data(), job);
            normalize_f32_scalar(f32.data(), want.data(), job);
            ASSERT_TRUE(same_bits(got, want)) << hwy::TargetName(target) << " f32 C=" << channels << " n=" << pixels;
            ++checked;
          }
        }
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  EXPECT_GE(checked, 96);
}

}  // namespace
}  // namespace loom::transforms
