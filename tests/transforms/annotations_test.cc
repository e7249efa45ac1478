// Bounding boxes and keypoints (loom/transforms/annotations.h):
//  - analytic cases: format names, known conversions, round trips within each family, rotated boxes at
//    0/90/30 degrees, clamping of boxes partly outside (axis-aligned and rotated, soft and hard),
//    sanitize dropping degenerate and outside boxes, keypoint clamp and sanitize, bad inputs;
//  - parity with torchvision 0.24 (tests/reference/annotations_tv.py) on many random boxes in every
//    format, float32 (within 1e-4) and float64 (within 1e-9): convert, clamp soft and hard, sanitize
//    (with the corrected rotated height), keypoints. Needs a torchvision >= 0.23 interpreter:
//    $LOOM_TORCHVISION_PYTHON, else /work/venv-tv/bin/python; skipped when neither works.
#include "loom/transforms/annotations.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <numbers>
#include <string>
#include <vector>

#include "loom/codec/error.h"
#include "loom/transforms/random.h"
#include "python_reference.h"
#include "tensor_rows.h"

namespace loom::transforms {
namespace {

constexpr std::array<BoxFormat, 3> kAxisFormats = {BoxFormat::kXYXY, BoxFormat::kXYWH, BoxFormat::kCXCYWH};
constexpr std::array<BoxFormat, 3> kRotatedFormats = {BoxFormat::kXYWHR, BoxFormat::kCXCYWHR, BoxFormat::kXYXYXYXY};

Tensor make(const std::vector<std::vector<double>>& rows, DType dtype = DType::kFloat64) {
  return test_util::rows_tensor(rows, dtype);
}

double at(const Tensor& t, int64_t i) {
  const Tensor c = t.contiguous();
  return c.dtype() == DType::kFloat32 ? c.data<float>()[i] : c.data<double>()[i];
}

std::vector<double> row(const Tensor& t, int64_t r) {
  std::vector<double> v;
  for (int64_t j = 0; j < t.size(1); ++j) v.push_back(at(t, r * t.size(1) + j));
  return v;
}

void expect_row_near(const Tensor& t, int64_t r, const std::vector<double>& expected, double tol = 1e-9) {
  ASSERT_EQ(t.size(1), static_cast<int64_t>(expected.size()));
  for (size_t j = 0; j < expected.size(); ++j) {
    EXPECT_NEAR(at(t, r * t.size(1) + static_cast<int64_t>(j)), expected[j], tol) << "row " << r << " value " << j;
  }
}

void expect_invalid(const std::function<void()>& f, const std::string& fragment = "") {
  try {
    f();
    ADD_FAILURE() << "no Error thrown";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidInput) << e.what();
    if (!fragment.empty()) EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------------------------------------------
// Formats and conversions

TEST(BoxFormat, NamesSizesAndFamilies) {
  for (BoxFormat f : kAxisFormats) {
    EXPECT_FALSE(is_rotated(f));
    EXPECT_EQ(values_per_box(f), 4);
    EXPECT_EQ(box_format_from_string(to_string(f)), f);
  }
  for (BoxFormat f : kRotatedFormats) {
    EXPECT_TRUE(is_rotated(f));
    EXPECT_EQ(box_format_from_string(to_string(f)), f);
  }
  EXPECT_EQ(values_per_box(BoxFormat::kXYWHR), 5);
  EXPECT_EQ(values_per_box(BoxFormat::kCXCYWHR), 5);
  EXPECT_EQ(values_per_box(BoxFormat::kXYXYXYXY), 8);
  EXPECT_EQ(box_format_from_string("cxcywh"), BoxFormat::kCXCYWH);
  EXPECT_EQ(box_format_from_string("XyWhR"), BoxFormat::kXYWHR);
  expect_invalid([] { box_format_from_string("XYZ"); }, "XYZ");
  expect_invalid([] { box_format_from_string(""); });
}

TEST(BoxFormat, KnownAxisAlignedConversions) {
  const Tensor xyxy = make({{10, 20, 50, 80}, {0, 0, 1, 1}});
  expect_row_near(convert_box_format(xyxy, BoxFormat::kXYXY, BoxFormat::kXYWH), 0, {10, 20, 40, 60});
  expect_row_near(convert_box_format(xyxy, BoxFormat::kXYXY, BoxFormat::kCXCYWH), 0, {30, 50, 40, 60});
  expect_row_near(convert_box_format(xyxy, BoxFormat::kXYXY, BoxFormat::kCXCYWH), 1, {0.5, 0.5, 1, 1});
  expect_row_near(convert_box_format(make({{30, 50, 40, 60}}), BoxFormat::kCXCYWH, BoxFormat::kXYWH), 0,
                  {10, 20, 40, 60});
  // torchvision halves |w| for the first corner and then adds the signed width.
  expect_row_near(convert_box_format(make({{30, 50, -40, 60}}), BoxFormat::kCXCYWH, BoxFormat::kXYXY), 0,
                  {10, 20, -30, 80});
}

TEST(BoxFormat, RoundTripsWithinEachFamily) {
  Rng rng(11);
  for (const auto& family : {kAxisFormats, kRotatedFormats}) {
    for (BoxFormat from : family) {
      std::vector<std::vector<double>> rows;
      for (int i = 0; i < 50; ++i) {
        std::vector<double> r;
        if (from == BoxFormat::kXYXY) {
          const double x = rng.uniform(-50, 100), y = rng.uniform(-50, 100);
          r = {x, y, x + rng.uniform(0.1, 60), y + rng.uniform(0.1, 60)};
        } else if (from == BoxFormat::kXYXYXYXY) {
          // A rectangle: corners from XYWHR.
          const double x = rng.uniform(-50, 100), y = rng.uniform(-50, 100), w = rng.uniform(0.1, 60),
                       h = rng.uniform(0.1, 60), a = rng.uniform(-179, 179) * std::numbers::pi / 180;
          const double c = std::cos(a), s = std::sin(a);
          r = {x, y, x + w * c, y - w * s, x + w * c + h * s, y - w * s + h * c, x + h * s, y + h * c};
        } else {
          r = {rng.uniform(-50, 100), rng.uniform(-50, 100), rng.uniform(0.1, 60), rng.uniform(0.1, 60)};
          if (is_rotated(from)) r.push_back(rng.uniform(-179, 179));
        }
        rows.push_back(r);
      }
      const Tensor boxes = make(rows);
      for (BoxFormat to : family) {
        const Tensor there = convert_box_format(boxes, from, to);
        ASSERT_EQ(there.size(1), values_per_box(to));
        const Tensor back = convert_box_format(there, to, from);
        for (int64_t i = 0; i < boxes.numel(); ++i) {
          ASSERT_NEAR(at(back, i), at(boxes, i), 1e-9) << to_string(from) << " -> " << to_string(to) << " value " << i;
        }
      }
    }
  }
}

TEST(BoxFormat, RotatedBoxAt0And90And30Degrees) {
  // XYWHR: first corner (10, 20), w 40 along the rotated x axis, h 30 along the rotated y axis (y down).
  const Tensor xywhr = make({{10, 20, 40, 30, 0}, {10, 20, 40, 30, 90}, {10, 20, 40, 30, 30}});
  const Tensor corners = convert_box_format(xywhr, BoxFormat::kXYWHR, BoxFormat::kXYXYXYXY);
  expect_row_near(corners, 0, {10, 20, 50, 20, 50, 50, 10, 50});
  // 90 degrees counter-clockwise on screen: the w side points up, the h side to the right.
  expect_row_near(corners, 1, {10, 20, 10, -20, 40, -20, 40, 20});
  const double c = std::sqrt(3.0) / 2, s = 0.5;
  expect_row_near(
      corners, 2,
      {10, 20, 10 + 40 * c, 20 - 40 * s, 10 + 40 * c + 30 * s, 20 - 40 * s + 30 * c, 10 + 30 * s, 20 + 30 * c});
  const Tensor centered = convert_box_format(xywhr, BoxFormat::kXYWHR, BoxFormat::kCXCYWHR);
  expect_row_near(centered, 0, {30, 35, 40, 30, 0});
  expect_row_near(centered, 1, {25, 0, 40, 30, 90});
  expect_row_near(centered, 2, {10 + (40 * c + 30 * s) / 2, 20 + (-40 * s + 30 * c) / 2, 40, 30, 30});
  // Corners back to XYWHR give the side lengths and the angle of the first side.
  expect_row_near(convert_box_format(corners, BoxFormat::kXYXYXYXY, BoxFormat::kXYWHR), 2, {10, 20, 40, 30, 30});
}

TEST(BoxFormat, StructFormKeepsCanvasAndDtype) {
  BoundingBoxes boxes{make({{1, 2, 3, 4}}, DType::kFloat32), BoxFormat::kXYWH, Size{50, 60}, Clamping::kHard};
  const BoundingBoxes out = convert_box_format(boxes, BoxFormat::kXYXY);
  EXPECT_EQ(out.format, BoxFormat::kXYXY);
  EXPECT_EQ(out.canvas, (Size{50, 60}));
  EXPECT_EQ(out.clamping, Clamping::kHard);
  EXPECT_EQ(out.data.dtype(), DType::kFloat32);
  expect_row_near(out.data, 0, {1, 2, 4, 6});
  expect_row_near(boxes.data, 0, {1, 2, 3, 4});  // the input is not modified
}

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

// ---------------------------------------------------------------------------------------------------
// Sanitize

TEST(BoxSanitize, DropsDegenerateAndOutsideBoxes) {
  const Size canvas{100, 80};
  BoundingBoxes boxes{make({{10, 10, 20, 20},    // kept
                            {10, 10, 10.5, 20},  // narrower than min_size
                            {10, 10, 20, 10},    // zero height
                            {-1, 0, 5, 5},       // outside on the left
                            {0, 0, 80, 100},     // the whole canvas: kept
                            {5, 5, 4, 10},       // negative width
                            {70, 90, 81, 95},    // outside on the right
                            {10, 10, 13, 13}}),  // area 9
                      BoxFormat::kXYXY, canvas};
  EXPECT_EQ(valid_box_indices(boxes), (std::vector<int64_t>{0, 4, 7}));
  EXPECT_EQ(valid_box_indices(boxes, 1.0, 10.0), (std::vector<int64_t>{0, 4}));
  EXPECT_EQ(valid_box_indices(boxes, 0.6, 1.0), (std::vector<int64_t>{0, 4, 7}));
  EXPECT_EQ(valid_box_indices(boxes, 0.4, 1.0), (std::vector<int64_t>{0, 1, 4, 7}));
  // The same boxes in XYWH.
  boxes.data = convert_box_format(boxes.data, BoxFormat::kXYXY, BoxFormat::kXYWH);
  boxes.format = BoxFormat::kXYWH;
  EXPECT_EQ(valid_box_indices(boxes), (std::vector<int64_t>{0, 4, 7}));
  // NaN never passes.
  boxes.data = make({{std::nan(""), 0, 5, 5}});
  EXPECT_TRUE(valid_box_indices(boxes).empty());
}

TEST(BoxSanitize, RotatedUsesSideLengthsAndAllCorners) {
  const Size canvas{100, 100};
  const BoundingBoxes boxes{make({{50, 50, 10, 10, 45},    // kept
                                  {10, 10, 0.5, 20, 30},   // side 0.5
                                  {2, 5, 10, 10, 45},      // second corner above the canvas: y = 5 - 10 sin 45
                                  {40, 40, 10, 0.5, 30},   // height 0.5 (torchvision 0.24 would keep it)
                                  {40, 40, 0.8, 30, 0}}),  // width 0.8
                            BoxFormat::kXYWHR, canvas};
  EXPECT_EQ(valid_box_indices(boxes), (std::vector<int64_t>{0}));
  const BoundingBoxes corners = convert_box_format(boxes, BoxFormat::kXYXYXYXY);
  EXPECT_EQ(valid_box_indices(corners), (std::vector<int64_t>{0}));
  EXPECT_EQ(valid_box_indices(corners, 0.1, 0.1), (std::vector<int64_t>{0, 1, 3, 4}));
}

TEST(KeyPointSanitize, HalfOpenCanvasAndWholeGroups) {
  const Size canvas{100, 80};
  const KeyPoints points{make({{0, 0}, {79.5, 99.5}, {80, 50}, {-0.001, 3}, {3, 100}, {79, 99}}), canvas};
  EXPECT_EQ(valid_keypoint_indices(points), (std::vector<int64_t>{0, 1, 5}));
  Tensor groups = Tensor::empty({3, 2, 2}, DType::kFloat32);
  const float v[] = {1, 1, 2, 2, /**/ 1, 1, 81, 2, /**/ 79, 99, 0, 0};
  std::copy(v, v + 12, groups.data<float>());
  EXPECT_EQ(valid_keypoint_indices(KeyPoints{groups, canvas}), (std::vector<int64_t>{0, 2}));
}

TEST(Annotations, SelectRows) {
  const Tensor boxes = make({{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}}, DType::kFloat32);
  const Tensor picked = select_rows(boxes, {2, 0, 2});
  ASSERT_EQ(picked.size(0), 3);
  expect_row_near(picked, 0, {9, 10, 11, 12});
  expect_row_near(picked, 1, {1, 2, 3, 4});
  expect_row_near(picked, 2, {9, 10, 11, 12});
  EXPECT_EQ(select_rows(boxes, {}).size(0), 0);
  Tensor labels = Tensor::empty({3}, DType::kInt64);
  for (int i = 0; i < 3; ++i) labels.data<int64_t>()[i] = 10 + i;
  const Tensor l = select_rows(labels, {1});
  ASSERT_EQ(l.ndim(), 1);
  EXPECT_EQ(l.data<int64_t>()[0], 11);
  expect_invalid([&] { select_rows(boxes, {3}); }, "out of range");
  expect_invalid([&] { select_rows(boxes, {-1}); });
}

// ---------------------------------------------------------------------------------------------------
// Bad inputs

TEST(Annotations, BadInputsThrowInvalidInput) {
  const Size canvas{10, 10};
  expect_invalid([] { convert_box_format(make({{1, 2, 3, 4, 5}}), BoxFormat::kXYXY, BoxFormat::kXYWH); }, "[N, 4]");
  expect_invalid([] { convert_box_format(make({{1, 2, 3, 4}}), BoxFormat::kXYWHR, BoxFormat::kCXCYWHR); }, "[N, 5]");
  expect_invalid([] { convert_box_format(make({{1, 2, 3, 4}}), BoxFormat::kXYXYXYXY, BoxFormat::kXYWHR); });
  // 1-D tensor.
  const Tensor flat = Tensor::zeros({4}, DType::kFloat32);
  expect_invalid([&] { convert_box_format(flat, BoxFormat::kXYXY, BoxFormat::kXYWH); });
  expect_invalid([&] { validate(BoundingBoxes{flat, BoxFormat::kXYXY, canvas}); });
  // Integer dtype.
  const Tensor ints = Tensor::zeros({2, 4}, DType::kInt32);
  expect_invalid([&] { validate(BoundingBoxes{ints, BoxFormat::kXYXY, canvas}); }, "float32");
  expect_invalid([&] { clamp_boxes(ints, BoxFormat::kXYXY, canvas, Clamping::kSoft); });
  expect_invalid([&] { validate(KeyPoints{Tensor::zeros({2, 2}, DType::kUInt8), canvas}); });
  // A CUDA tensor (never dereferenced).
  float host[8] = {};
  const int64_t shape[] = {2, 4};
  const Tensor cuda = Tensor::from_blob(host, shape, {}, DType::kFloat32, Device::cuda());
  expect_invalid([&] { validate(BoundingBoxes{cuda, BoxFormat::kXYXY, canvas}); }, "CPU");
  expect_invalid([&] { convert_box_format(cuda, BoxFormat::kXYXY, BoxFormat::kXYWH); }, "CPU");
  // Rotated <-> axis-aligned.
  expect_invalid([] { convert_box_format(make({{1, 2, 3, 4}}), BoxFormat::kXYXY, BoxFormat::kXYWHR); }, "rotated");
  expect_invalid([] { convert_box_format(make({{1, 2, 3, 4, 5}}), BoxFormat::kXYWHR, BoxFormat::kXYXY); }, "rotated");
  // Canvas.
  expect_invalid([] { validate(BoundingBoxes{make({{1, 2, 3, 4}}), BoxFormat::kXYXY, Size{0, 10}}); }, "canvas");
  expect_invalid([] { clamp_boxes(make({{1, 2, 3, 4}}), BoxFormat::kXYXY, Size{10, -1}, Clamping::kSoft); });
  // Keypoints: last dimension 2, at least 2-D.
  expect_invalid([] { validate(KeyPoints{Tensor::zeros({3, 3}, DType::kFloat32), Size{10, 10}}); });
  expect_invalid([] { validate(KeyPoints{Tensor::zeros({2}, DType::kFloat32), Size{10, 10}}); });
  expect_invalid([] { clamp_keypoints(KeyPoints{Tensor::zeros({3, 3}, DType::kFloat32), Size{10, 10}}); });
  expect_invalid([] { valid_keypoint_indices(KeyPoints{Tensor(), Size{10, 10}}); });
  // The names given to validate appear in the message.
  expect_invalid([&] { validate(BoundingBoxes{flat, BoxFormat::kXYXY, canvas}, "target boxes"); }, "target boxes");
  // Empty sets are fine.
  const Tensor none = Tensor::empty({0, 5}, DType::kFloat32);
  EXPECT_EQ(clamp_boxes(none, BoxFormat::kXYWHR, canvas, Clamping::kHard).size(0), 0);
  EXPECT_TRUE(valid_box_indices(BoundingBoxes{none, BoxFormat::kXYWHR, canvas}).empty());
}

// ---------------------------------------------------------------------------------------------------
// Parity with torchvision 0.24

// The interpreter with torchvision >= 0.23, or "" (with the reason in `why`).
std::string torchvision_python(std::string& why) {
  const char* env = std::getenv("LOOM_TORCHVISION_PYTHON");
  const std::string python = env && *env ? env : "/work/venv-tv/bin/python";
  if (!std::filesystem::exists(python)) {
    why = python + " does not exist (set LOOM_TORCHVISION_PYTHON to a Python with torchvision >= 0.23)";
    return "";
  }
  const std::string probe = python +
                            " -c \"import sys, torchvision; v = torchvision.__version__.split('+')[0].split('.'); "
                            "sys.exit(0 if (int(v[0]), int(v[1])) >= (0, 23) else 3)\" >/dev/null 2>&1";
  if (std::system(probe.c_str()) != 0) {
    why = python + " cannot import torchvision >= 0.23 (rotated boxes and keypoints need 0.23)";
    return "";
  }
  return python;
}

// Random boxes of `format` on `canvas`: inside, crossing each edge, over the corners (rotated), tiny
// and degenerate ones, and rotated boxes at special angles.
Tensor random_boxes(BoxFormat format, int n, Size canvas, Rng& rng, DType dtype) {
  const double W = static_cast<double>(canvas.width), H = static_cast<double>(canvas.height);
  std::vector<std::vector<double>> rows;
  const double special[] = {0, 90, -90, 180, 45, 30, -135, 60};
  for (int i = 0; i < n; ++i) {
    const int kind = i % 5;  // 0: inside, 1: across an edge, 2: near a corner, 3: anywhere, 4: small
    double cx, cy;
    if (kind == 2) {
      cx = (rng.integer(0, 2) ? W : 0) + rng.uniform(-0.15 * W, 0.15 * W);
      cy = (rng.integer(0, 2) ? H : 0) + rng.uniform(-0.15 * H, 0.15 * H);
    } else if (kind == 1) {
      const int edge = static_cast<int>(rng.integer(0, 4));
      cx = edge == 0 ? 0 : edge == 1 ? W : rng.uniform(0, W);
      cy = edge == 2 ? 0 : edge == 3 ? H : rng.uniform(0, H);
      cx += rng.uniform(-10, 10), cy += rng.uniform(-10, 10);
    } else if (kind == 0) {
      cx = rng.uniform(0.3 * W, 0.7 * W), cy = rng.uniform(0.3 * H, 0.7 * H);
    } else {
      cx = rng.uniform(-0.3 * W, 1.3 * W), cy = rng.uniform(-0.3 * H, 1.3 * H);
    }
    double w = kind == 4 ? rng.uniform(0, 2.5) : kind == 0 ? rng.uniform(2, 0.4 * W) : rng.uniform(2, 0.7 * W);
    double h = kind == 4 ? rng.uniform(0, 2.5) : kind == 0 ? rng.uniform(2, 0.4 * H) : rng.uniform(2, 0.7 * H);
    if (!is_rotated(format)) {
      if (rng.uniform() < 0.04) w = -w;  // degenerate: x2 < x1
      switch (format) {
        case BoxFormat::kXYXY: rows.push_back({cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2}); break;
        case BoxFormat::kXYWH: rows.push_back({cx - w / 2, cy - h / 2, w, h}); break;
        default: rows.push_back({cx, cy, w, h}); break;
      }
      continue;
    }
    const double angle = rng.uniform() < 0.15 ? special[rng.integer(0, 8)] : rng.uniform(-180, 180);
    const Tensor c = convert_box_format(make({{cx, cy, w, h, angle}}), BoxFormat::kCXCYWHR, format);
    std::vector<double> r = row(c, 0);
    if (format == BoxFormat::kXYXYXYXY) {
      const double u = rng.uniform();
      if (u < 0.1) {  // corners listed clockwise on screen instead
        r = {r[0], r[1], r[6], r[7], r[4], r[5], r[2], r[3]};
      } else if (u < 0.15) {  // not quite a rectangle
        for (double& v : r) v += rng.uniform(-1, 1);
      }
    }
    rows.push_back(r);
  }
  return make(rows, dtype);
}

Tensor random_points(std::vector<int64_t> shape, Size canvas, Rng& rng, DType dtype) {
  Tensor t = Tensor::empty(shape, dtype);
  const double W = static_cast<double>(canvas.width), H = static_cast<double>(canvas.height);
  const double edges_x[] = {0, W - 1, W - 0.5, W, -0.5}, edges_y[] = {0, H - 1, H - 0.5, H, -0.5};
  for (int64_t i = 0; i < t.numel(); i += 2) {
    double x = rng.uniform(-0.1 * W, 1.1 * W), y = rng.uniform(-0.1 * H, 1.1 * H);
    if (rng.uniform() < 0.1) x = edges_x[rng.integer(0, 5)];
    if (rng.uniform() < 0.1) y = edges_y[rng.integer(0, 5)];
    if (dtype == DType::kFloat32) {
      t.data<float>()[i] = static_cast<float>(x), t.data<float>()[i + 1] = static_cast<float>(y);
    } else {
      t.data<double>()[i] = x, t.data<double>()[i + 1] = y;
    }
  }
  return t;
}

// Largest difference between loom and the reference (angles compared modulo 360); NaN equals NaN.
// Fails for any value beyond `tol`, naming the row; with `rows_over`, counts such rows there instead.
double compare(const Tensor& mine, const Tensor& ref, BoxFormat format, double tol, const std::string& what,
               const Tensor& input, int* rows_over = nullptr) {
  EXPECT_EQ(std::vector<int64_t>(mine.shape().begin(), mine.shape().end()),
            std::vector<int64_t>(ref.shape().begin(), ref.shape().end()))
      << what;
  EXPECT_EQ(mine.dtype(), ref.dtype()) << what;
  if (mine.numel() != ref.numel()) return INFINITY;
  const int64_t k = mine.ndim() == 2 ? mine.size(1) : 2;
  const bool angle = format == BoxFormat::kXYWHR || format == BoxFormat::kCXCYWHR;
  double worst = 0;
  int reported = 0;
  int64_t last_row_over = -1;
  for (int64_t i = 0; i < mine.numel(); ++i) {
    const double a = at(mine, i), b = at(ref, i);
    if (std::isnan(a) && std::isnan(b)) continue;
    double d = std::fabs(a - b);
    if (angle && i % k == 4) d = std::fabs(std::remainder(a - b, 360.0));
    if (std::isnan(d)) d = INFINITY;
    worst = std::max(worst, d);
    if (d > tol && rows_over) {
      if (i / k != last_row_over) ++*rows_over, last_row_over = i / k;
    } else if (d > tol && reported++ < 5) {
      const int64_t r = i / k;
      ADD_FAILURE() << what << ": row " << r << " value " << i % k << ": loom " << a << ", torchvision " << b
                    << "; input " << fmt::format("{}", row(input, r)) << "; loom " << fmt::format("{}", row(mine, r))
                    << "; torchvision " << fmt::format("{}", row(ref, r));
    }
  }
  return worst;
}

std::vector<int64_t> mask_indices(const Tensor& mask) {
  std::vector<int64_t> kept;
  for (int64_t i = 0; i < mask.numel(); ++i) {
    if (mask.data<uint8_t>()[i]) kept.push_back(i);
  }
  return kept;
}

// Rotated boxes as their four corners in float64 (for comparing geometry rather than parameters).
Tensor as_corners(const Tensor& boxes, BoxFormat format) {
  const Tensor wide = make([&] {
    std::vector<std::vector<double>> rows;
    for (int64_t r = 0; r < boxes.size(0); ++r) rows.push_back(row(boxes, r));
    return rows;
  }());
  return format == BoxFormat::kXYXYXYXY ? wide : convert_box_format(wide, format, BoxFormat::kXYXYXYXY);
}

struct ParityResult {
  double convert = 0, soft = 0, hard = 0, keypoints = 0;
  int sanitize_differs = 0;  // formats whose kept rows differ
  int tv_height_rows = 0;    // rotated boxes torchvision 0.24's own height would sanitize differently
  // Not strict: clamped rotated boxes, those with a corner beyond tol and beyond 1e-3.
  int rotated_rows = 0, rotated_rows_over = 0, rotated_rows_over_1e3 = 0;
};

// Compares loom with one set of reference outputs (`suffix` "" or "_f64"). `strict`: every value
// within `tol` and equal sanitize results. Otherwise clamped rotated boxes are compared by their corners
// and those beyond `tol` only counted, and sanitize differences are only counted.
ParityResult compare_with(const test::TensorMap& ref, const std::string& suffix,
                          const std::map<BoxFormat, Tensor>& boxes, const test::TensorMap& inputs, Size canvas,
                          double min_size, double min_area, double tol, bool strict) {
  auto get = [&](const std::string& name) {
    const auto it = ref.find(name + suffix);
    if (it == ref.end()) throw std::runtime_error("no reference output " + name + suffix);
    return it->second;
  };
  const std::string label = suffix.empty() ? " (torchvision float arithmetic)" : " (torchvision in float64)";
  ParityResult result;
  auto diff = [&](const Tensor& mine, const Tensor& theirs, BoxFormat f, const std::string& what, const Tensor& in) {
    if (strict || !is_rotated(f) || what.starts_with("convert")) return compare(mine, theirs, f, tol, what + label, in);
    result.rotated_rows += static_cast<int>(in.size(0));
    const Tensor a = as_corners(mine, f), b = as_corners(theirs, f);
    compare(a, b, BoxFormat::kXYXYXYXY, 1e-3, what, in, &result.rotated_rows_over_1e3);
    return compare(a, b, BoxFormat::kXYXYXYXY, tol, what, in, &result.rotated_rows_over);
  };
  for (const auto& family : {kAxisFormats, kRotatedFormats}) {
    for (BoxFormat f : family) {
      const std::string name(to_string(f));
      const Tensor& in = boxes.at(f);
      for (BoxFormat to : family) {
        if (to == f) continue;
        const std::string key = "convert_" + name + "_" + std::string(to_string(to));
        result.convert = std::max(result.convert, diff(convert_box_format(in, f, to), get(key), to, key, in));
      }
      result.soft = std::max(result.soft, diff(clamp_boxes(in, f, canvas, Clamping::kSoft),
                                               get("clamp_" + name + "_soft"), f, "clamp soft " + name, in));
      result.hard = std::max(result.hard, diff(clamp_boxes(in, f, canvas, Clamping::kHard),
                                               get("clamp_" + name + "_hard"), f, "clamp hard " + name, in));
      const std::vector<int64_t> kept = valid_box_indices(BoundingBoxes{in, f, canvas}, min_size, min_area);
      const std::vector<int64_t> expected = mask_indices(get("sanitize_" + name));
      if (strict) {
        EXPECT_EQ(kept, expected) << "sanitize " << name << label;
        // Some kept, some dropped: the random sets exercise both.
        EXPECT_GT(kept.size(), in.size(0) / 10) << name;
        EXPECT_LT(kept.size(), in.size(0) * 9 / 10) << name;
      }
      // torchvision's own mask differs only in the rotated height.
      const Tensor tv = get("sanitize_tv_" + name), fixed = get("sanitize_" + name);
      if (!is_rotated(f)) EXPECT_EQ(mask_indices(tv), expected) << name << label;
      for (int64_t i = 0; i < tv.numel(); ++i) {
        result.tv_height_rows += tv.data<uint8_t>()[i] != fixed.data<uint8_t>()[i];
      }
      result.sanitize_differs += kept != expected;
    }
  }
  for (const std::string name : {"keypoints", "keypoint_groups"}) {
    const KeyPoints points{inputs.at(name), canvas};
    result.keypoints =
        std::max(result.keypoints, compare(clamp_keypoints(points).data, get("clamp_" + name), BoxFormat::kXYXY, tol,
                                           "clamp " + name + label, points.data.view({points.data.numel() / 2, 2})));
    EXPECT_EQ(valid_keypoint_indices(points), mask_indices(get("sanitize_" + name))) << name << label;
  }
  return result;
}

void print(const char* what, const ParityResult& r) {
  std::printf(
      "[ parity   ] %s: max |diff| convert %.3g, clamp soft %.3g, clamp hard %.3g, keypoint clamp %.3g; "
      "sanitize differs in %d of 6 formats (torchvision's own rotated height: %d boxes)",
      what, r.convert, r.soft, r.hard, r.keypoints, r.sanitize_differs, r.tv_height_rows);
  if (r.rotated_rows) {
    std::printf("; clamped rotated boxes with a corner beyond 1e-4: %d of %d, beyond 1e-3: %d", r.rotated_rows_over,
                r.rotated_rows, r.rotated_rows_over_1e3);
  }
  std::printf("\n");
}

// float64 inputs: loom and torchvision both compute in float64 and agree within `tol`. float32 inputs:
// loom computes in double, so it is held to `tol` against torchvision run in float64 on the same values.
// Against torchvision's own float32 arithmetic conversions, axis-aligned clamps and keypoints are held
// to `tol` too; clamped rotated boxes are compared by their corners, of which at most 3% may differ by
// more than `tol` and 0.5% by more than 1e-3: float32 rounding (about 8e-6 at 100 px) grows where a
// clamped side is nearly parallel to a canvas edge (those rows agree with the float64 run above).
void run_parity(DType dtype, double tol) {
  std::string why;
  const std::string python = torchvision_python(why);
  if (python.empty()) GTEST_SKIP() << why;
  const Size canvas{120, 160};  // height, width: not square, so the four turns see both sizes
  const double min_size = 1.0, min_area = 2.0;
  const int n = 400;
  Rng rng(2024, dtype == DType::kFloat32 ? 0 : 1);
  test::TensorMap inputs;
  std::map<BoxFormat, Tensor> boxes;
  for (const auto& family : {kAxisFormats, kRotatedFormats}) {
    for (BoxFormat f : family) {
      boxes[f] = random_boxes(f, n, canvas, rng, dtype);
      inputs["boxes_" + std::string(to_string(f))] = boxes[f];
    }
  }
  inputs["keypoints"] = random_points({200, 2}, canvas, rng, dtype);
  inputs["keypoint_groups"] = random_points({100, 3, 2}, canvas, rng, dtype);
  const bool f32 = dtype == DType::kFloat32;
  const nlohmann::json params = {
      {"canvas", {canvas.height, canvas.width}}, {"min_size", min_size}, {"min_area", min_area}, {"also_float64", f32}};
  const test::TensorMap ref = test::run_python_reference("annotations_tv.py", inputs, params.dump(), python);
  ASSERT_FALSE(ref.empty());
  if (!f32) {
    print("float64 vs torchvision", compare_with(ref, "", boxes, inputs, canvas, min_size, min_area, tol, true));
    return;
  }
  print("float32 vs torchvision in float64",
        compare_with(ref, "_f64", boxes, inputs, canvas, min_size, min_area, tol, true));
  const ParityResult f32_result = compare_with(ref, "", boxes, inputs, canvas, min_size, min_area, tol, false);
  print("float32 vs torchvision in float32", f32_result);
  EXPECT_GT(f32_result.rotated_rows, 0);
  EXPECT_LE(f32_result.rotated_rows_over * 100, f32_result.rotated_rows * 3);
  EXPECT_LE(f32_result.rotated_rows_over_1e3 * 200, f32_result.rotated_rows);
  EXPECT_EQ(f32_result.sanitize_differs, 0);
}

TEST(BoxParity, TorchvisionFloat32) {
  run_parity(DType::kFloat32, 1e-4);
}
TEST(BoxParity, TorchvisionFloat64) {
  run_parity(DType::kFloat64, 1e-9);
}

}  // namespace
}  // namespace loom::transforms
