// The Highway uint8 warp kernel equals its scalar reference bit for bit on every SIMD target this CPU
// supports (nearest and bilinear, affine and perspective, CHW and HWC, 1-5 channels, with and without
// a fill, maps that leave the image, tie positions, degenerate perspectives, images smaller than a
// vector); and the uint8 warps stay within rounding (plus 0.2) of the double-precision float warps on
// a large image, the precision that keeps them within 1 grey level of torchvision.
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "geometry/geometry_kernels.h"

namespace loom::transforms::detail {
namespace {

struct Map {
  std::string name;
  WarpMap map;
  std::vector<double> coeffs;
};

// Inverse maps: output pixel -> input (geometry_plan.h's conventions).
std::vector<Map> maps() {
  const double a = 30.0 * M_PI / 180.0, b = -40.0 * M_PI / 180.0;
  return {
      {"identity", WarpMap::kAffine, {1, 0, 0, 0, 1, 0}},
      {"rotate30", WarpMap::kAffine, {std::cos(a), -std::sin(a), 0, std::sin(a), std::cos(a), 0}},
      {"rotate-40 scaled",
       WarpMap::kAffine,
       {0.8 * std::cos(b), -0.8 * std::sin(b), 2.5, std::sin(b), std::cos(b), -1}},
      {"half-pixel ties", WarpMap::kAffine, {0.5, 0, 0.5, 0, 0.5, -0.5}},
      {"sheared", WarpMap::kAffine, {1.1, 0.3, -4, -0.2, 0.9, 3}},
      {"far outside", WarpMap::kAffine, {1, 0, 1e6, 0, 1, -3e9}},
      {"shifted", WarpMap::kAffine, {1, 0, 70, 0, 1, 0}},  // 1100 wide: rows end in a vector partly outside
      {"perspective", WarpMap::kPerspective, {1.05, 0.02, -3, 0.01, 0.97, 2, 0.002, -0.001}},
      {"perspective degenerate", WarpMap::kPerspective, {1, 0, 0, 0, 1, 0, -0.05, 0.0}},  // w = 0 at x = 20
  };
}

WarpPlan make_plan(const Map& m, Size in, Size out, int64_t channels, bool hwc, bool bilinear, const double* fill) {
  WarpPlan plan;
  plan.in = in, plan.out = out, plan.channels = channels;
  plan.in_strides = hwc ? PixelStrides{channels, 1} : PixelStrides{1, in.height * in.width};
  plan.out_strides = hwc ? PixelStrides{channels, 1} : PixelStrides{1, out.height * out.width};
  plan.map = m.map;
  std::copy(m.coeffs.begin(), m.coeffs.end(), plan.coeffs);
  plan.bilinear = bilinear;
  plan.fill = fill;
  return plan;
}

TEST(WarpHwy, EveryTargetMatchesTheScalarReference) {
  std::mt19937 rng(16);
  const double fills[5] = {10, 300, -5, 127.5, 0.25};
  int checked = 0;
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    for (auto [in, out] : {std::pair<Size, Size>{{37, 53}, {37, 53}},
                           {{48, 64}, {61, 71}},
                           {{2, 3}, {5, 40}},
                           {{1, 1}, {3, 17}},
                           {{20, 33}, {9, 16}},
                           {{20, 1100}, {11, 1040}}}) {  // nearest in tiles, bilinear in runs, 256 pixels wide
      for (int64_t channels = 1; channels <= 5; ++channels) {
        std::vector<uint8_t> src(static_cast<size_t>(in.height * in.width * channels));  // ends at the image
        for (auto& v : src) v = static_cast<uint8_t>(rng());
        for (const Map& m : maps()) {
          for (bool hwc : {false, true}) {
            for (bool bilinear : {false, true}) {
              for (const double* fill : {static_cast<const double*>(nullptr), fills}) {
                const WarpPlan plan = make_plan(m, in, out, channels, hwc, bilinear, fill);
                std::vector<uint8_t> got(static_cast<size_t>(out.height * out.width * channels)), want(got.size());
                warp_u8(src.data(), got.data(), plan);
                warp_u8_reference(src.data(), want.data(), plan);
                ASSERT_EQ(got, want) << hwy::TargetName(target) << " " << m.name << " " << in.width << "x" << in.height
                                     << "->" << out.width << "x" << out.height << " C=" << channels
                                     << (hwc ? " HWC" : " CHW") << (bilinear ? " bilinear" : " nearest")
                                     << (fill ? " fill" : "");
                ++checked;
              }
            }
          }
        }
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  EXPECT_GE(checked, 1600);
}

// A 3000x2000 RGB noise image (the steepest gradients), rotated and scaled, and in perspective: the
// uint8 bilinear warp (float32 positions, fixed-point blend) is within 0.5 + 0.2 of the
// double-precision warp_f32 of the same pixels: rounding, plus under 0.15 grey level from the float32
// positions and 0.05 from the fixed point. torch's float32 positions are as close to exact, so the
// two rounded results stay within 1 grey level. Nearest picks another pixel only where a position is
// within float32 rounding of a half-way point.
TEST(WarpHwy, StaysWithinRoundingOfTheDoubleWarpOnALargeImage) {
  const Size size{2000, 3000};
  const int64_t channels = 3, n = size.height * size.width * channels;
  std::mt19937 rng(7);
  std::vector<uint8_t> src(static_cast<size_t>(n));
  for (auto& v : src) v = static_cast<uint8_t>(rng());
  const std::vector<float> src_f(src.begin(), src.end());
  const double a = 33.0 * M_PI / 180.0;
  const double fill[3] = {20, 40, 250};
  for (const Map& m : {Map{"rotate33 scale",
                           WarpMap::kAffine,
                           {1.07 * std::cos(a), -1.07 * std::sin(a), 11.3, std::sin(a), std::cos(a), -7.9}},
                       Map{"perspective", WarpMap::kPerspective, {1.05, 0.02, -30, 0.01, 0.97, 20, 2e-5, -1e-5}}}) {
    for (bool bilinear : {true, false}) {
      const WarpPlan plan = make_plan(m, size, size, channels, true, bilinear, fill);
      std::vector<uint8_t> got(static_cast<size_t>(n));
      std::vector<float> exact(static_cast<size_t>(n));
      warp_u8(src.data(), got.data(), plan);
      warp_f32(src_f.data(), exact.data(), plan);
      double worst = 0.0;
      int64_t mismatches = 0;
      for (int64_t i = 0; i < n; ++i) {
        const double d = std::fabs(got[i] - std::clamp<double>(exact[i], 0.0, 255.0));
        worst = std::max(worst, d);
        mismatches += d > 0.0;
      }
      if (bilinear) {
        EXPECT_LE(worst, 0.7) << m.name;
        std::printf("%s bilinear: max |uint8 - double| = %.4f\n", m.name.c_str(), worst);
      } else {
        EXPECT_LE(static_cast<double>(mismatches) / static_cast<double>(n), 1e-3) << m.name;
      }
    }
  }
}

}  // namespace
}  // namespace loom::transforms::detail
