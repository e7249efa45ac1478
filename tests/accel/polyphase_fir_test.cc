// polyphase_fir (accel/src/polyphase_fir_hwy.cc) equals its scalar reference bit for bit on every SIMD
// target this CPU supports, for block counts around every vector width (the 4-vector loop, the
// 1-vector loop and the scalar tail), tap counts from 0 to 40, and offsets that overlap and repeat.
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "loom/accel/polyphase_fir.h"

namespace loom::accel {
namespace {

TEST(PolyphaseFir, EveryTargetMatchesTheScalarReference) {
  std::mt19937 rng(16);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<float> src(4096);
  for (float& v : src) v = value(rng);
  constexpr size_t kGuard = 3;
  size_t targets = 0;
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    ++targets;
    hwy::SetSupportedTargetsForTest(target);
    for (size_t count : {0, 1, 3, 13, 34, 40}) {
      std::vector<float> taps(count);
      std::vector<int64_t> offsets(count);
      for (size_t t = 0; t < count; ++t) {
        taps[t] = value(rng) * 0.3f;
        offsets[t] = static_cast<int64_t>(rng() % 2000);
      }
      for (size_t n = 0; n <= 200; n += (n < 70 ? 1 : 13)) {
        SCOPED_TRACE(std::string(hwy::TargetName(target)) + ", taps " + std::to_string(count) + ", blocks " +
                     std::to_string(n));
        std::vector<float> want(n), got(n + 2 * kGuard, -7.0f);
        polyphase_fir_scalar(src.data(), taps.data(), offsets.data(), count, n, want.data());
        polyphase_fir(src.data(), taps.data(), offsets.data(), count, n, got.data() + kGuard);
        // memcmp takes no null pointer, not even for 0 bytes.
        ASSERT_TRUE(n == 0 || std::memcmp(want.data(), got.data() + kGuard, n * sizeof(float)) == 0);
        for (size_t g = 0; g < kGuard; ++g) ASSERT_TRUE(got[g] == -7.0f && got[kGuard + n + g] == -7.0f);
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  EXPECT_GE(targets, 1u);
  RecordProperty("targets", static_cast<int>(targets));
}

TEST(PolyphaseFir, RoundsEveryProductAndSumWithoutFusedMultiplyAdd) {
  // -(1 + 2^-11) + (1 + 2^-12)^2: the product 1 + 2^-11 + 2^-24 rounds to 1 + 2^-11 in float32, so the
  // sum is 0; a fused multiply-add would keep the 2^-24. On every target, for every loop of the kernel.
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    for (size_t n : {1, 4, 16, 64, 67}) {
      std::vector<float> src(2 * n);
      for (size_t b = 0; b < n; ++b) {
        src[b] = -(1.0f + 0x1.0p-11f);
        src[n + b] = 1.0f + 0x1.0p-12f;
      }
      const float taps[2] = {1.0f, 1.0f + 0x1.0p-12f};
      const int64_t offsets[2] = {0, static_cast<int64_t>(n)};
      std::vector<float> got(n, -1.0f);
      polyphase_fir(src.data(), taps, offsets, 2, n, got.data());
      for (size_t b = 0; b < n; ++b) ASSERT_EQ(got[b], 0.0f) << hwy::TargetName(target) << " n " << n << " b " << b;
    }
  }
  hwy::SetSupportedTargetsForTest(0);
}

}  // namespace
}  // namespace loom::accel
