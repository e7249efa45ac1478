// Clamping of boxes and keypoints (box_clamp.cc): boxes partly outside (axis-aligned and rotated, soft
// and hard), rotated boxes entirely outside, keypoints into [0, W - 1] x [0, H - 1].
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <vector>

#include "box_test_util.h"
#include "loom/transforms/annotations.h"

namespace loom::transforms {
namespace {

using test_util::at;
using test_util::expect_invalid;
using test_util::expect_row_near;
using test_util::kAxisFormats;
using test_util::kRotatedFormats;
using test_util::make;
using test_util::row;

// ---------------------------------------------------------------------------------------------------
// Clamping

TEST(BoxClamp, AxisAlignedBoxesPartlyOutside) {
  const Size canvas{100, 80};  // height 100, width 80
  const Tensor xyxy = make({{-10, 5, 50, 200}, {70, -3, 90, 40}, {10, 10, 20, 20}, {-30, -30, -10, -10}});
  for (Clamping mode : {Clamping::kSoft, Clamping::kHard}) {
    const Tensor out = clamp_boxes(xyxy, BoxFormat::kXYXY, canvas, mode);
    expect_row_near(out, 0, {0, 5, 50, 100});
    expect_row_near(out, 1, {70, 0, 80, 40});
    expect_row_near(out, 2, {10, 10, 20, 20});
    expect_row_near(out, 3, {0, 0, 0, 0});
  }
  // Other formats clamp through XYXY.
  expect_row_near(clamp_boxes(make({{70, 90, 20, 20}}), BoxFormat::kXYWH, canvas, Clamping::kSoft), 0,
                  {70, 90, 10, 10});
  expect_row_near(clamp_boxes(make({{0, 50, 20, 20}}), BoxFormat::kCXCYWH, canvas, Clamping::kSoft), 0,
                  {5, 50, 10, 20});
  // kNone leaves them as they are.
  expect_row_near(clamp_boxes(xyxy, BoxFormat::kXYXY, canvas, Clamping::kNone), 0, {-10, 5, 50, 200});
}

TEST(BoxClamp, RotatedAxisAlignedBoxesCutLikeAxisAligned) {
  const Size canvas{100, 100};
  const Tensor boxes = make({{-10, 10, 40, 20, 0}, {90, 80, 30, 40, 0}, {20, 30, 10, 10, 0}});
  for (Clamping mode : {Clamping::kSoft, Clamping::kHard}) {
    const Tensor out = clamp_boxes(boxes, BoxFormat::kXYWHR, canvas, mode);
    expect_row_near(out, 0, {0, 10, 30, 20, 0}, 1e-9);
    expect_row_near(out, 1, {90, 80, 10, 20, 0}, 1e-9);
    expect_row_near(out, 2, {20, 30, 10, 10, 0}, 1e-9);
  }
}

// Corners of an XYXYXYXY row as points.
std::array<std::array<double, 2>, 4> corners_of(const Tensor& xyxyxyxy, int64_t r) {
  std::array<std::array<double, 2>, 4> p;
  for (int k = 0; k < 4; ++k) p[k] = {at(xyxyxyxy, r * 8 + 2 * k), at(xyxyxyxy, r * 8 + 2 * k + 1)};
  return p;
}

// Whether point q lies inside the convex quad p (either orientation), with a tolerance.
bool inside_quad(const std::array<std::array<double, 2>, 4>& p, std::array<double, 2> q, double eps = 1e-6) {
  int sign = 0;
  for (int k = 0; k < 4; ++k) {
    const auto& a = p[k];
    const auto& b = p[(k + 1) % 4];
    const double len = std::hypot(b[0] - a[0], b[1] - a[1]);
    const double cross = ((b[0] - a[0]) * (q[1] - a[1]) - (b[1] - a[1]) * (q[0] - a[0])) / len;
    if (std::fabs(cross) <= eps) continue;
    const int s = cross > 0 ? 1 : -1;
    if (sign != 0 && s != sign) return false;
    sign = s;
  }
  return true;
}

TEST(BoxClamp, RotatedBoxCrossingAnEdgeSoftEnclosesHardFits) {
  const Size canvas{100, 120};
  // A 45-degree square whose left corner is outside (x < 0), and a 30-degree box over the bottom-right
  // corner of the canvas.
  const Tensor boxes = make({{-10, 50, 40, 40, 45}, {100, 80, 40, 30, 30}});
  const Tensor original = convert_box_format(boxes, BoxFormat::kXYWHR, BoxFormat::kXYXYXYXY);
  const Tensor soft = convert_box_format(clamp_boxes(boxes, BoxFormat::kXYWHR, canvas, Clamping::kSoft),
                                         BoxFormat::kXYWHR, BoxFormat::kXYXYXYXY);
  const Tensor hard = convert_box_format(clamp_boxes(boxes, BoxFormat::kXYWHR, canvas, Clamping::kHard),
                                         BoxFormat::kXYWHR, BoxFormat::kXYXYXYXY);
  for (int64_t r = 0; r < 2; ++r) {
    const auto orig = corners_of(original, r), s = corners_of(soft, r), h = corners_of(hard, r);
    // The angle is kept (XYWHR angle modulo 90).
    const Tensor hard_r = convert_box_format(hard, BoxFormat::kXYXYXYXY, BoxFormat::kXYWHR);
    const double angle = at(boxes, r * 5 + 4), got = at(hard_r, r * 5 + 4);
    EXPECT_NEAR(std::remainder(got - angle, 90.0), 0.0, 1e-6) << r;
    // Hard: every corner inside the canvas and inside the original box.
    for (const auto& q : h) {
      EXPECT_GE(q[0], -1e-6) << r;
      EXPECT_LE(q[0], canvas.width + 1e-6) << r;
      EXPECT_GE(q[1], -1e-6) << r;
      EXPECT_LE(q[1], canvas.height + 1e-6) << r;
      EXPECT_TRUE(inside_quad(orig, q)) << r << " hard corner " << q[0] << "," << q[1];
    }
    // Soft: inside the original box, and every original corner inside the canvas is kept in it; some
    // corner of the soft box is outside the canvas (it is smallest enclosing, not fitted).
    bool soft_outside = false;
    for (const auto& q : s) {
      EXPECT_TRUE(inside_quad(orig, q)) << r << " soft corner " << q[0] << "," << q[1];
      soft_outside =
          soft_outside || q[0] < -1e-6 || q[1] < -1e-6 || q[0] > canvas.width + 1e-6 || q[1] > canvas.height + 1e-6;
    }
    EXPECT_TRUE(soft_outside) << r;
    for (const auto& q : orig) {
      if (q[0] >= 0 && q[0] <= canvas.width && q[1] >= 0 && q[1] <= canvas.height) {
        EXPECT_TRUE(inside_quad(s, q)) << r << " original corner " << q[0] << "," << q[1];
      }
    }
    // Hard fits inside soft.
    for (const auto& q : h) EXPECT_TRUE(inside_quad(s, q, 1e-5)) << r;
  }
  // The 45-degree square clamped softly against x = 0: its left corner (-10, 50) is cut along the
  // canvas edge, so the two corners next to it slide along their sides to x = 0 -> enclosing box of the
  // part x >= 0 keeps the two far corners.
  const auto s0 = corners_of(soft, 0), o0 = corners_of(original, 0);
  int kept = 0;
  for (const auto& q : o0) {
    for (const auto& p : s0) kept += std::hypot(p[0] - q[0], p[1] - q[1]) < 1e-6;
  }
  EXPECT_GE(kept, 2);
}

TEST(BoxClamp, RotatedBoxEntirelyOutsideCollapses) {
  // torchvision zeroes a box whose corners are all left of the edge (then turns the canvas, so the
  // final XYXYXYXY corners all sit at (0, height)).
  const Tensor out = clamp_boxes(make({{-50, 10, 20, 20, 30}}), BoxFormat::kXYWHR, Size{100, 120}, Clamping::kSoft);
  expect_row_near(out, 0, {0, 100, 0, 0, 0});
}

TEST(BoxClamp, StructFormUsesItsModeAndKeepsDtype) {
  BoundingBoxes boxes{make({{-10, 5, 50, 200}}, DType::kFloat32), BoxFormat::kXYXY, Size{100, 80}, Clamping::kNone};
  EXPECT_EQ(clamp_boxes(boxes).data.dtype(), DType::kFloat32);
  expect_row_near(clamp_boxes(boxes).data, 0, {-10, 5, 50, 200});
  boxes.clamping = Clamping::kSoft;
  expect_row_near(clamp_boxes(boxes).data, 0, {0, 5, 50, 100});
  expect_row_near(boxes.data, 0, {-10, 5, 50, 200});
}

TEST(KeyPointClamp, IntoWidthMinusOneHeightMinusOne) {
  const KeyPoints points{make({{-1, 5}, {80, 100}, {79.5, 99.5}, {3, 4}}, DType::kFloat32), Size{100, 80}};
  const KeyPoints out = clamp_keypoints(points);
  expect_row_near(out.data, 0, {0, 5});
  expect_row_near(out.data, 1, {79, 99});
  expect_row_near(out.data, 2, {79, 99});
  expect_row_near(out.data, 3, {3, 4});
  // Groups [N, P, 2] clamp the same way.
  Tensor groups = Tensor::empty({1, 2, 2}, DType::kFloat64);
  const double v[] = {-5, 200, 10, 10};
  std::copy(v, v + 4, groups.data<double>());
  const KeyPoints g = clamp_keypoints(KeyPoints{groups, Size{100, 80}});
  ASSERT_EQ(g.data.ndim(), 3);
  EXPECT_EQ(g.data.data<double>()[0], 0);
  EXPECT_EQ(g.data.data<double>()[1], 99);
  EXPECT_EQ(g.data.data<double>()[2], 10);
}

}  // namespace
}  // namespace loom::transforms
