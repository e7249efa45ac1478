// Which boxes and keypoints sanitize keeps (sanitize.cc): degenerate and outside boxes dropped, rotated
// boxes by their side lengths and all corners, keypoints on the half-open canvas, whole groups.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace loom::transforms
