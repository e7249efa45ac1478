// loom's 4:2:0 to RGB kernel (video/src/yuv420_rgb.h): every Highway target gives the scalar reference's
// bytes, without writing past the output. No FFmpeg: scripts/cross_neon.sh runs it under qemu too.
#include <gtest/gtest.h>
#include <hwy/highway.h>
#include <hwy/targets.h>

#include <random>
#include <vector>

#include "yuv420_rgb.h"

namespace loom::video::detail {
namespace {

struct Planes {
  std::vector<uint8_t> y, u, v;
  int y_pitch = 0, c_pitch = 0;
};

Planes random_planes(int width, int height, std::mt19937& rng) {
  Planes p;
  p.y_pitch = width + 5;  // pitches wider than the rows, odd
  p.c_pitch = (width + 1) / 2 + 3;
  p.y.resize(static_cast<size_t>(p.y_pitch) * height);
  p.u.resize(static_cast<size_t>(p.c_pitch) * ((height + 1) / 2));
  p.v.resize(p.u.size());
  for (auto* plane : {&p.y, &p.u, &p.v}) {
    for (uint8_t& b : *plane) b = static_cast<uint8_t>(rng());
  }
  return p;
}

TEST(Yuv420Rgb, EveryTargetMatchesTheScalarReference) {
  std::mt19937 rng(420);
  const int bt709[4] = {117489, 138438, 13975, 34925};
  const Yuv420Coefficients sets[] = {
      swscale_yuv420_coefficients(bt709, false, 0, 1 << 16, 1 << 16),
      swscale_yuv420_coefficients(bt709, true, 0, 1 << 16, 1 << 16),
      swscale_yuv420_coefficients(bt709, false, -40, 3 << 16, 5 << 16),  // saturating sums
  };
  int checked = 0;
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    for (int width : {1, 2, 3, 15, 16, 17, 31, 32, 33, 63, 64, 65, 66, 127, 129, 200, 481}) {
      for (int height : {1, 2, 3, 6}) {
        const Planes p = random_planes(width, height, rng);
        for (const Yuv420Coefficients& c : sets) {
          for (bool planar : {false, true}) {
            Yuv420Plan plan;
            plan.y = p.y.data(), plan.u = p.u.data(), plan.v = p.v.data();
            plan.y_pitch = p.y_pitch, plan.u_pitch = p.c_pitch, plan.v_pitch = p.c_pitch;
            plan.width = width, plan.height = height, plan.coefficients = c, plan.planar = planar;
            // Exactly the output's size: the kernel must not write past it.
            std::vector<uint8_t> got(static_cast<size_t>(width) * height * 3), want(got.size());
            plan.dst = got.data();
            yuv420_to_rgb(plan);
            plan.dst = want.data();
            yuv420_to_rgb_reference(plan);
            ASSERT_EQ(got, want) << hwy::TargetName(target) << " " << width << "x" << height
                                 << (planar ? " planar" : " interleaved");
            ++checked;
          }
        }
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  EXPECT_GE(checked, 17 * 4 * 3 * 2);
}

}  // namespace
}  // namespace loom::video::detail
