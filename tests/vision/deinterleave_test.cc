// The SIMD deinterleave equals its scalar reference on every Highway target this CPU supports.
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <vector>

#include "deinterleave.h"

namespace loom::vision {
namespace {

template <typename T>
void check_all_targets() {
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    for (int channels = 2; channels <= 4; ++channels) {
      for (int width : {0, 1, 7, 31, 64, 65, 200, 1023}) {
        std::vector<T> src(static_cast<size_t>(width) * channels);
        for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<T>(i * 2654435761u >> 7);
        std::vector<T> got(src.size() + 1, T{7}), want(src.size() + 1, T{7});  // +1: no write past the end
        T* got_planes[4];
        T* want_planes[4];
        for (int c = 0; c < channels; ++c) {
          got_planes[c] = got.data() + c * width;
          want_planes[c] = want.data() + c * width;
        }
        deinterleave(src.data(), width, channels, got_planes);
        deinterleave_scalar(src.data(), width, channels, want_planes);
        ASSERT_EQ(got, want) << hwy::TargetName(target) << " channels " << channels << " width " << width;
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);  // back to the real CPU
}

TEST(Deinterleave, EveryTargetMatchesScalarUint8) { check_all_targets<uint8_t>(); }
TEST(Deinterleave, EveryTargetMatchesScalarUint16) { check_all_targets<uint16_t>(); }

}  // namespace
}  // namespace loom::vision
