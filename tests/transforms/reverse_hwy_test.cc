// The remap's mirrored runs (transforms/src/geometry/reverse_hwy.cc): every Highway target copies
// pixels of 1 to 6 bytes in reverse order, as the one-pixel-at-a-time loop does, without touching a
// byte outside the run.
#include <gtest/gtest.h>
#include <hwy/highway.h>
#include <hwy/targets.h>

#include <cstring>
#include <random>
#include <vector>

#include "geometry/geometry_kernels.h"

namespace loom::transforms::detail {
namespace {

TEST(ReverseHwy, EveryTargetReversesLikeTheScalarLoop) {
  std::mt19937 rng(3);
  int checked = 0;
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    for (int64_t pixel = 1; pixel <= 6; ++pixel) {
      for (int64_t n : {0, 1, 2, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 257}) {
        // The run reads source pixels n .. 1 of `src` (ending at its end; pixel 0 keeps in_first inside it
        // for n = 0) and writes between guards.
        std::vector<uint8_t> src(static_cast<size_t>((n + 1) * pixel));
        for (uint8_t& b : src) b = static_cast<uint8_t>(rng());
        const int64_t guard = 64;
        std::vector<uint8_t> got(src.size() + 2 * guard, 0xA5), want(got.size(), 0xA5);
        const uint8_t* in_first = src.data() + n * pixel;
        reverse_pixels(got.data() + guard, in_first, n, pixel);
        for (int64_t i = 0; i < n; ++i) {
          std::memcpy(want.data() + guard + i * pixel, in_first - i * pixel, static_cast<size_t>(pixel));
        }
        ASSERT_EQ(got, want) << hwy::TargetName(target) << " pixel " << pixel << " n " << n;
        ++checked;
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  EXPECT_GE(checked, 6 * 14);
}

}  // namespace
}  // namespace loom::transforms::detail
