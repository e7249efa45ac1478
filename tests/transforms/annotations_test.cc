// Box formats and validation (annotations.cc): format names, known conversions, round trips within
// each family, rotated boxes at 0/90/30 degrees, row selection, and bad inputs of every annotation op.
#include "loom/transforms/annotations.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "box_test_util.h"

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

}  // namespace
}  // namespace loom::transforms
