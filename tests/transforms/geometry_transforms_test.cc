// The geometric transform objects (geometry/geometry_transforms.cc) and the geometry ops' input errors:
//  - the random geometric transforms' parameter distributions: RandomResizedCrop's area and ratio
//    ranges and its central-crop fallback, RandomCrop's padding / pad_if_needed, RandomRotation and
//    RandomAffine parameters read back from keypoint movement, RandomPerspective p = 0 / 1;
//  - SanitizeBoundingBoxes dropping degenerate boxes with their label rows;
//  - constructor validation and the geometry ops' input errors (Error(kInvalidInput), and
//    Error(kUnsupported) for a dtype a warp does not take).
#include "loom/transforms/geometry_transforms.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <thread>
#include <vector>

#include "loom/codec/error.h"
#include "loom/transforms/color_transforms.h"
#include "loom/transforms/geometry.h"
#include "loom/transforms/random.h"
#include "loom/transforms/transform.h"
#include "tensor_rows.h"
#include "test_media.h"

namespace loom::transforms {
namespace {

using test::error_code_of;
using test_util::bytes;
using test_util::filled;
using test_util::random_image;
constexpr ErrorCode kInvalid = ErrorCode::kInvalidInput;

Tensor rows_f64(const std::vector<std::vector<double>>& rows) {
  return test_util::rows_tensor(rows);
}
std::vector<double> values(const Tensor& t) {
  return test_util::tensor_doubles(t);
}

// ---------------------------------------------------------------------------------------------
// RandomResizedCrop

TEST(PipelineRandomResizedCrop, CropsStayWithinScaleAndRatio) {
  const Size image{100, 150};
  const Range scale{0.2, 0.6}, ratio{0.5, 2.0};
  const RandomResizedCrop t({32, 32}, scale, ratio);
  Rng rng(21);
  double min_fraction = 1, max_fraction = 0, min_log_ratio = 9, max_log_ratio = -9;
  int64_t max_top = 0, max_left = 0, fallbacks = 0;
  constexpr int kDraws = 2000;
  const double area = 100.0 * 150.0;
  for (int i = 0; i < kDraws; ++i) {
    const auto [top, left, h, w] = t.choose_crop(image, rng);
    ASSERT_GT(h, 0);
    ASSERT_GT(w, 0);
    ASSERT_GE(top, 0);
    ASSERT_GE(left, 0);
    ASSERT_LE(top + h, image.height);
    ASSERT_LE(left + w, image.width);
    if (h == image.height && w == image.width) {  // the fallback (whole image: its ratio is in range)
      ++fallbacks;
      continue;
    }
    // w and h are rounded from the exact sqrt(area * ratio) and sqrt(area / ratio): allow half a pixel.
    const double hi_area = (w + 0.5) * (h + 0.5), lo_area = (w - 0.5) * (h - 0.5);
    EXPECT_GE(hi_area / area, scale.lo) << w << "x" << h;
    EXPECT_LE(lo_area / area, scale.hi) << w << "x" << h;
    EXPECT_GE((w + 0.5) / (h - 0.5), ratio.lo) << w << "x" << h;
    EXPECT_LE((w - 0.5) / (h + 0.5), ratio.hi) << w << "x" << h;
    min_fraction = std::min(min_fraction, w * h / area), max_fraction = std::max(max_fraction, w * h / area);
    min_log_ratio = std::min(min_log_ratio, std::log(double(w) / h));
    max_log_ratio = std::max(max_log_ratio, std::log(double(w) / h));
    max_top = std::max(max_top, top), max_left = std::max(max_left, left);
  }
  EXPECT_LT(fallbacks, kDraws / 100);
  // The draws span the ranges.
  EXPECT_LT(min_fraction, scale.lo + 0.03);
  EXPECT_GT(max_fraction, scale.hi - 0.03);
  EXPECT_LT(min_log_ratio, std::log(ratio.lo) + 0.1);
  EXPECT_GT(max_log_ratio, std::log(ratio.hi) - 0.1);
  EXPECT_GT(max_top, 50);
  EXPECT_GT(max_left, 80);

  // apply(): the crop resized to the target, annotations on the new canvas.
  Sample s;
  s.image = random_image(3, 100, 150, Rng(1));
  s.boxes = BoundingBoxes{rows_f64({{10, 10, 140, 90}}), BoxFormat::kXYXY, image, Clamping::kSoft};
  t.apply(s, rng);
  EXPECT_EQ(image_size(s), (Size{32, 32}));
  EXPECT_EQ(s.boxes->canvas, (Size{32, 32}));
}

TEST(PipelineRandomResizedCrop, FallbackIsTheCentralCropWithinRatio) {
  // torchvision's fallback: the whole image when its ratio is within `ratio`, else the largest centred
  // crop of ratio min(ratio) (too tall) or max(ratio) (too wide): w = round(h * max), j = (W - w) // 2.
  const RandomResizedCrop standard({16, 16});  // ratio 3/4 .. 4/3
  Rng rng(5);
  for (int i = 0; i < 20; ++i) {
    // Wide: every try needs a crop taller than the image.
    const RandomResizedCrop big({16, 16}, {0.9, 1.0});
    EXPECT_EQ(big.choose_crop({100, 400}, rng), (std::array<int64_t, 4>{0, 133, 100, 133}));  // round(133.3)
    EXPECT_EQ(big.choose_crop({400, 100}, rng), (std::array<int64_t, 4>{133, 0, 133, 100}));  // round(100 / 0.75)
    EXPECT_EQ(big.choose_crop({90, 500}, rng), (std::array<int64_t, 4>{0, 190, 90, 120}));
    // Impossible scale: the whole image (its ratio 1.2 is within range).
    const RandomResizedCrop huge({16, 16}, {1.5, 2.0});
    EXPECT_EQ(huge.choose_crop({50, 60}, rng), (std::array<int64_t, 4>{0, 0, 50, 60}));
    // A ratio range far from the image's.
    const RandomResizedCrop narrow({16, 16}, {0.5, 1.0}, {5.0, 6.0});
    EXPECT_EQ(narrow.choose_crop({60, 60}, rng), (std::array<int64_t, 4>{24, 0, 12, 60}));  // h = round(60 / 5)
  }
  (void)standard;
}

// ---------------------------------------------------------------------------------------------
// RandomCrop

// The bounding rectangle (top, left, height, width) of pixels equal to v in channel 0.
std::array<int64_t, 4> region_of(const Tensor& image, uint8_t v) {
  const int64_t h = image.size(1), w = image.size(2);
  int64_t y0 = h, x0 = w, y1 = -1, x1 = -1;
  for (int64_t y = 0; y < h; ++y) {
    for (int64_t x = 0; x < w; ++x) {
      if (image.data<uint8_t>()[y * w + x] != v) continue;
      y0 = std::min(y0, y), x0 = std::min(x0, x), y1 = std::max(y1, y), x1 = std::max(x1, x);
    }
  }
  return {y0, x0, y1 - y0 + 1, x1 - x0 + 1};
}

TEST(PipelineRandomCrop, PaddingThenUniformPosition) {
  const RandomCrop t({20, 30}, Padding{5, 4, 7, 6});  // padded image 30 x 42
  std::set<int64_t> tops, lefts;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    Sample s;
    s.image = filled(1, 20, 30, 200);
    s.keypoints = KeyPoints{rows_f64({{0, 0}}), {20, 30}};
    Rng rng(seed);
    t.apply(s, rng);
    ASSERT_EQ(image_size(s), (Size{20, 30}));
    // The image's top-left lands at (padding - crop offset); the keypoint moves with it.
    const std::vector<double> kp = values(s.keypoints->data);
    const int64_t top = 4 - static_cast<int64_t>(kp[1]), left = 5 - static_cast<int64_t>(kp[0]);
    ASSERT_GE(top, 0);
    ASSERT_LE(top, 10);
    ASSERT_GE(left, 0);
    ASSERT_LE(left, 12);
    tops.insert(top), lefts.insert(left);
    const auto r = region_of(s.image, 200);
    EXPECT_EQ(r[0], std::max<int64_t>(0, -top + 4)) << seed;
    EXPECT_EQ(r[1], std::max<int64_t>(0, -left + 5)) << seed;
  }
  // Every offset 0..10 and 0..12 occurs.
  EXPECT_EQ(tops.size(), 11u);
  EXPECT_EQ(lefts.size(), 13u);
}

TEST(PipelineRandomCrop, PadIfNeededPadsBothSides) {
  // torchvision pads a short side by (size - side) on both sides, then crops at random: the whole
  // 10 x 12 image is always inside the 16 x 20 crop, at offsets 0..6 and 0..8.
  const RandomCrop t({16, 20}, std::nullopt, true);
  std::set<int64_t> tops, lefts;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    Sample s;
    s.image = filled(3, 10, 12, 200);
    s.boxes = BoundingBoxes{rows_f64({{0, 0, 12, 10}}), BoxFormat::kXYXY, {10, 12}, Clamping::kSoft};
    Rng rng(seed);
    t.apply(s, rng);
    ASSERT_EQ(image_size(s), (Size{16, 20}));
    const auto r = region_of(s.image, 200);
    EXPECT_EQ(r[2], 10);
    EXPECT_EQ(r[3], 12);
    const std::vector<double> b = values(s.boxes->data);
    EXPECT_EQ(b, (std::vector<double>{double(r[1]), double(r[0]), double(r[1] + 12), double(r[0] + 10)}));
    tops.insert(r[0]), lefts.insert(r[1]);
  }
  EXPECT_EQ(tops.size(), 7u);
  EXPECT_EQ(lefts.size(), 9u);
  // A crop of exactly the image size is the identity.
  Sample s;
  s.image = random_image(3, 16, 20, Rng(4));
  const Tensor before = s.image;
  Rng rng(1);
  RandomCrop({16, 20}).apply(s, rng);
  EXPECT_EQ(bytes(s.image), bytes(before));
}

TEST(PipelineRandomCrop, CropLargerThanThePaddedImageIsAnError) {
  Rng rng(1);
  Sample s;
  s.image = filled(3, 20, 30, 1);
  EXPECT_EQ(error_code_of([&] {
              Sample c = s;
              RandomCrop({21, 30}).apply(c, rng);
            }),
            kInvalid);
  EXPECT_EQ(error_code_of([&] {
              Sample c = s;
              RandomCrop({20, 31}).apply(c, rng);
            }),
            kInvalid);
  EXPECT_EQ(error_code_of([&] {
              Sample c = s;
              RandomCrop({30, 30}, Padding{0, 4, 0, 5}).apply(c, rng);
            }),
            kInvalid);
  Sample ok = s;
  RandomCrop({29, 30}, Padding{0, 4, 0, 5}).apply(ok, rng);
  EXPECT_EQ(image_size(ok), (Size{29, 30}));
}

// ---------------------------------------------------------------------------------------------
// RandomRotation, RandomAffine, RandomPerspective

TEST(PipelineRandomRotation, AnglesWithinRange) {
  const RandomRotation t({-30, 50});
  double lo = 360, hi = -360;
  for (uint64_t seed = 0; seed < 400; ++seed) {
    Sample s;
    s.image = filled(1, 21, 21, 0);
    // Keypoints map as continuous coordinates about the image centre (10.5, 10.5).
    s.keypoints = KeyPoints{rows_f64({{20.5, 10.5}}), {21, 21}};
    Rng rng(seed);
    t.apply(s, rng);
    const std::vector<double> kp = values(s.keypoints->data);
    EXPECT_NEAR(std::hypot(kp[0] - 10.5, kp[1] - 10.5), 10.0, 1e-6);
    const double angle = std::atan2(-(kp[1] - 10.5), kp[0] - 10.5) * 180.0 / M_PI;  // counter-clockwise on screen
    EXPECT_GE(angle, -30.0 - 1e-9);
    EXPECT_LE(angle, 50.0 + 1e-9);
    lo = std::min(lo, angle), hi = std::max(hi, angle);
  }
  EXPECT_LT(lo, -27);
  EXPECT_GT(hi, 47);
}

TEST(PipelineRandomAffine, ParametersWithinRanges) {
  RandomAffine::Params p;
  p.degrees = {-10, 20};
  p.translate = Point{0.1, 0.2};
  p.scale = Range{0.7, 1.3};
  const RandomAffine t(p);
  const Size size{30, 40};
  double angle_lo = 360, angle_hi = -360, scale_lo = 9, scale_hi = 0, tx_lo = 99, tx_hi = -99, ty_lo = 99, ty_hi = -99;
  for (uint64_t seed = 0; seed < 400; ++seed) {
    Sample s;
    s.image = filled(1, size.height, size.width, 0);
    s.keypoints = KeyPoints{rows_f64({{20, 15}, {30, 15}}), size};  // the centre and 10 px right of it
    Rng rng(seed);
    t.apply(s, rng);
    const std::vector<double> kp = values(s.keypoints->data);
    // The centre moves by the translation: whole pixels within +-0.1 * 40 and +-0.2 * 30.
    const double tx = kp[0] - 20, ty = kp[1] - 15;
    EXPECT_NEAR(tx, std::round(tx), 1e-9);
    EXPECT_NEAR(ty, std::round(ty), 1e-9);
    EXPECT_LE(std::fabs(tx), 4.0 + 1e-9);
    EXPECT_LE(std::fabs(ty), 6.0 + 1e-9);
    // torchvision's affine angle is clockwise on screen (y down).
    const double dx = kp[2] - kp[0], dy = kp[3] - kp[1];
    const double angle = std::atan2(dy, dx) * 180.0 / M_PI, scale = std::hypot(dx, dy) / 10.0;
    EXPECT_GE(angle, -10 - 1e-9);
    EXPECT_LE(angle, 20 + 1e-9);
    EXPECT_GE(scale, 0.7 - 1e-9);
    EXPECT_LE(scale, 1.3 + 1e-9);
    angle_lo = std::min(angle_lo, angle), angle_hi = std::max(angle_hi, angle);
    scale_lo = std::min(scale_lo, scale), scale_hi = std::max(scale_hi, scale);
    tx_lo = std::min(tx_lo, tx), tx_hi = std::max(tx_hi, tx), ty_lo = std::min(ty_lo, ty), ty_hi = std::max(ty_hi, ty);
  }
  EXPECT_LT(angle_lo, -8);
  EXPECT_GT(angle_hi, 18);
  EXPECT_LT(scale_lo, 0.75);
  EXPECT_GT(scale_hi, 1.25);
  EXPECT_NEAR(tx_lo, -4, 1e-9);
  EXPECT_NEAR(tx_hi, 4, 1e-9);
  EXPECT_NEAR(ty_lo, -6, 1e-9);
  EXPECT_NEAR(ty_hi, 6, 1e-9);
}

TEST(PipelineRandomPerspective, ProbabilityZeroIsIdentityAndOneAlwaysWarps) {
  for (uint64_t seed = 0; seed < 50; ++seed) {
    Sample s;
    s.image = random_image(3, 24, 32, Rng(seed, 1));
    s.boxes = BoundingBoxes{rows_f64({{4, 5, 20, 18}}), BoxFormat::kXYXY, {24, 32}, Clamping::kSoft};
    s.keypoints = KeyPoints{rows_f64({{10, 12}}), {24, 32}};
    Sample unchanged = s, warped = s;
    Rng rng0(seed), rng1(seed);
    RandomPerspective(0.5, 0.0).apply(unchanged, rng0);
    RandomPerspective(0.5, 1.0).apply(warped, rng1);
    EXPECT_EQ(bytes(unchanged.image), bytes(s.image));
    EXPECT_EQ(values(unchanged.boxes->data), values(s.boxes->data));
    EXPECT_EQ(values(unchanged.keypoints->data), values(s.keypoints->data));
    EXPECT_NE(bytes(warped.image), bytes(s.image)) << seed;
    EXPECT_NE(values(warped.keypoints->data), values(s.keypoints->data)) << seed;
    EXPECT_EQ(image_size(warped), (Size{24, 32}));
  }
}

// ---------------------------------------------------------------------------------------------
// SanitizeBoundingBoxes

TEST(PipelineSanitize, DropsDegenerateBoxesWithTheirLabels) {
  Sample s;
  s.image = filled(3, 16, 16, 0);
  s.boxes = BoundingBoxes{rows_f64({{0, 0, 10, 10},    // kept
                                    {5, 5, 5, 9},      // zero width
                                    {3, 3, 3.5, 8},    // narrower than min_size 1
                                    {2, 2, 14, 2.5},   // lower than min_size 1
                                    {8, 8, 20, 12},    // leaves the canvas (clamping kNone keeps it outside)
                                    {1, 1, 16, 16}}),  // kept: touches the far edges
                          BoxFormat::kXYXY,
                          {16, 16},
                          Clamping::kNone};
  Tensor labels = Tensor::empty({6, 2}, DType::kInt64);
  for (int64_t i = 0; i < 6; ++i) labels.data<int64_t>()[2 * i] = i, labels.data<int64_t>()[2 * i + 1] = 100 + i;
  s.labels = labels;
  s.keypoints = KeyPoints{rows_f64({{1, 1}, {-1, 3}, {15.5, 2}, {16, 0}}), {16, 16}};
  Rng rng(1);
  Sample out = s;
  SanitizeBoundingBoxes().apply(out, rng);
  EXPECT_EQ(values(out.boxes->data), (std::vector<double>{0, 0, 10, 10, 1, 1, 16, 16}));
  ASSERT_EQ(out.labels.size(0), 2);
  ASSERT_EQ(out.labels.size(1), 2);
  EXPECT_EQ(std::vector<int64_t>(out.labels.data<int64_t>(), out.labels.data<int64_t>() + 4),
            (std::vector<int64_t>{0, 100, 5, 105}));
  EXPECT_EQ(values(out.keypoints->data), (std::vector<double>{1, 1, 15.5, 2}));
  // A smaller min_size keeps the thin box too; 1-D labels follow the same rows.
  Tensor flat = Tensor::empty({6}, DType::kInt64);
  for (int64_t i = 0; i < 6; ++i) flat.data<int64_t>()[i] = 10 * i;
  s.labels = flat;
  out = s;
  SanitizeBoundingBoxes(0.4, 0.1).apply(out, rng);
  ASSERT_EQ(out.labels.size(0), 4);
  EXPECT_EQ(std::vector<int64_t>(out.labels.data<int64_t>(), out.labels.data<int64_t>() + 4),
            (std::vector<int64_t>{0, 20, 30, 50}));
  // Labels that do not match the boxes are an error.
  s.labels = Tensor::empty({5}, DType::kInt64);
  EXPECT_EQ(error_code_of([&] {
              Sample c = s;
              SanitizeBoundingBoxes().apply(c, rng);
            }),
            kInvalid);
}

TEST(PipelineSanitize, BoxesCroppedAwayAreDroppedAfterAPipeline) {
  Sample s;
  s.image = filled(3, 40, 40, 0);
  s.boxes = BoundingBoxes{
      rows_f64({{2, 2, 8, 8}, {20, 20, 30, 30}, {35, 1, 39, 39}}), BoxFormat::kXYXY, {40, 40}, Clamping::kSoft};
  Tensor labels = Tensor::empty({3}, DType::kInt64);
  for (int64_t i = 0; i < 3; ++i) labels.data<int64_t>()[i] = 7 + i;
  s.labels = labels;
  Rng rng(1);
  // The crop keeps [8, 32) x [8, 32): box 0 leaves it entirely, box 2 too (it starts at x = 35).
  Compose({std::make_shared<CenterCrop>(Size{24, 24}), std::make_shared<SanitizeBoundingBoxes>()}).apply(s, rng);
  EXPECT_EQ(values(s.boxes->data), (std::vector<double>{12, 12, 22, 22}));
  ASSERT_EQ(s.labels.size(0), 1);
  EXPECT_EQ(s.labels.data<int64_t>()[0], 8);
}

// ---------------------------------------------------------------------------------------------
// Validation

TEST(PipelineValidation, ConstructorsRejectBadParameters) {
  const double nan = std::nan("");
  EXPECT_EQ(error_code_of([] { RandomHorizontalFlip(1.5); }), kInvalid);
  EXPECT_EQ(error_code_of([] { RandomHorizontalFlip(-0.1); }), kInvalid);
  EXPECT_EQ(error_code_of([&] { RandomVerticalFlip{nan}; }), kInvalid);  // braces: not a declaration
  EXPECT_EQ(error_code_of([] { Resize({0, 10}); }), kInvalid);
  EXPECT_EQ(error_code_of([] { Resize({10, -1}); }), kInvalid);
  EXPECT_EQ(error_code_of([] { CenterCrop({5, 0}); }), kInvalid);
  EXPECT_EQ(error_code_of([] { Pad({-1, 0, 0, 0}); }), kInvalid);
  EXPECT_EQ(error_code_of([] { RandomResizedCrop({0, 10}); }), kInvalid);
  EXPECT_EQ(error_code_of([] { RandomResizedCrop({10, 10}, {0.6, 0.2}); }), kInvalid);
  EXPECT_EQ(error_code_of([] { RandomResizedCrop({10, 10}, {-0.1, 0.5}); }), kInvalid);
  EXPECT_EQ(error_code_of([] { RandomResizedCrop({10, 10}, {0.1, 1.0}, {0.0, 1.0}); }), kInvalid);
  EXPECT_EQ(error_code_of([] { RandomResizedCrop({10, 10}, {0.1, 1.0}, {2.0, 1.0}); }), kInvalid);
  EXPECT_EQ(error_code_of([&] { RandomResizedCrop({10, 10}, {0.1, nan}); }), kInvalid);
  EXPECT_EQ(error_code_of([] { RandomCrop({0, 5}); }), kInvalid);
  EXPECT_EQ(error_code_of([] { RandomRotation({10, -10}); }), kInvalid);
  EXPECT_EQ(error_code_of([&] { RandomRotation({nan, 10}); }), kInvalid);
  EXPECT_EQ(error_code_of([] { RandomRotation({-INFINITY, 10}); }), kInvalid);
  auto affine = [](auto edit) {
    RandomAffine::Params p;
    p.degrees = {-10, 10};
    edit(p);
    RandomAffine t(p);
  };
  EXPECT_EQ(error_code_of([&] { affine([](RandomAffine::Params& p) { p.degrees = {5, -5}; }); }), kInvalid);
  EXPECT_EQ(error_code_of([&] { affine([](RandomAffine::Params& p) { p.translate = Point{1.5, 0.1}; }); }), kInvalid);
  EXPECT_EQ(error_code_of([&] { affine([](RandomAffine::Params& p) { p.translate = Point{0.1, -0.1}; }); }), kInvalid);
  EXPECT_EQ(error_code_of([&] { affine([](RandomAffine::Params& p) { p.scale = Range{0.0, 1.0}; }); }), kInvalid);
  EXPECT_EQ(error_code_of([&] { affine([](RandomAffine::Params& p) { p.scale = Range{1.2, 0.8}; }); }), kInvalid);
  EXPECT_EQ(error_code_of([&] { affine([](RandomAffine::Params& p) { p.shear_x = Range{5, -5}; }); }), kInvalid);
  EXPECT_EQ(error_code_of([&] { affine([&](RandomAffine::Params& p) { p.shear_y = Range{nan, 1}; }); }), kInvalid);
  EXPECT_EQ(error_code_of([] { RandomPerspective(1.5, 0.5); }), kInvalid);
  EXPECT_EQ(error_code_of([] { RandomPerspective(-0.1, 0.5); }), kInvalid);
  EXPECT_EQ(error_code_of([] { RandomPerspective(0.5, 2.0); }), kInvalid);
  // Valid edge values construct.
  RandomHorizontalFlip(0.0), RandomVerticalFlip(1.0), RandomPerspective(0.0, 1.0), RandomRotation({0, 0});
  affine([](RandomAffine::Params& p) { p.translate = Point{0, 1}; });
}

TEST(PipelineValidation, GeometryOpsRejectBadInputs) {
  Sample good;
  good.image = filled(3, 12, 16, 5);
  // Boxes or keypoints annotating another image size.
  Sample stale_boxes = good, stale_points = good;
  stale_boxes.boxes = BoundingBoxes{rows_f64({{1, 1, 5, 5}}), BoxFormat::kXYXY, {12, 17}, Clamping::kSoft};
  stale_points.keypoints = KeyPoints{rows_f64({{1, 1}}), {13, 16}};
  const std::array<Point, 4> start{Point{0, 0}, Point{15, 0}, Point{15, 11}, Point{0, 11}};
  const std::array<Point, 4> end{Point{1, 1}, Point{14, 0}, Point{15, 10}, Point{0, 11}};
  const std::vector<std::pair<std::string, std::function<Sample(const Sample&)>>> ops = {
      {"hflip", [](const Sample& s) { return horizontal_flip(s); }},
      {"vflip", [](const Sample& s) { return vertical_flip(s); }},
      {"crop", [](const Sample& s) { return crop(s, 1, 1, 5, 5); }},
      {"center_crop",
       [](const Sample& s) {
         return center_crop(s, {6, 6});
       }},
      {"pad",
       [](const Sample& s) {
         return pad(s, {1, 1, 1, 1});
       }},
      {"resize",
       [](const Sample& s) {
         return resize(s, {6, 8});
       }},
      {"resized_crop",
       [](const Sample& s) {
         return resized_crop(s, 0, 0, 6, 6, {3, 3});
       }},
      {"rotate", [](const Sample& s) { return rotate(s, 10); }},
      {"affine",
       [](const Sample& s) {
         return affine(s, {5, {}, 1.0, {}, {}});
       }},
      {"perspective", [&](const Sample& s) { return perspective(s, start, end); }},
  };
  for (const auto& [name, op] : ops) {
    EXPECT_NO_THROW(op(good)) << name;
    EXPECT_EQ(error_code_of([&] { op(stale_boxes); }), kInvalid) << name;
    EXPECT_EQ(error_code_of([&] { op(stale_points); }), kInvalid) << name;
  }
  // Reflect padding must be smaller than the side, symmetric at most the side.
  EXPECT_EQ(error_code_of([&] { pad(good, {16, 0, 0, 0}, PadMode::kReflect); }), kInvalid);
  EXPECT_EQ(error_code_of([&] { pad(good, {0, 0, 0, 12}, PadMode::kReflect); }), kInvalid);
  EXPECT_NO_THROW(pad(good, {15, 11, 15, 11}, PadMode::kReflect));
  EXPECT_EQ(error_code_of([&] { pad(good, {17, 0, 0, 0}, PadMode::kSymmetric); }), kInvalid);
  EXPECT_NO_THROW(pad(good, {16, 12, 16, 12}, PadMode::kSymmetric));
  EXPECT_EQ(error_code_of([&] { pad(good, {-1, 0, 0, 0}); }), kInvalid);
  // Annotations pad in constant mode only.
  Sample annotated = good;
  annotated.boxes = BoundingBoxes{rows_f64({{1, 1, 5, 5}}), BoxFormat::kXYXY, {12, 16}, Clamping::kSoft};
  EXPECT_EQ(error_code_of([&] { pad(annotated, {1, 1, 1, 1}, PadMode::kEdge); }), kInvalid);
  // The warps take uint8 and float32 only (another dtype is unsupported, as in every family); flips and
  // crops take any dtype.
  Sample wide;
  wide.image = Tensor::zeros({3, 12, 16}, DType::kUInt16);
  constexpr ErrorCode kUnsupported = ErrorCode::kUnsupported;
  EXPECT_EQ(error_code_of([&] { rotate(wide, 10); }), kUnsupported);
  EXPECT_EQ(error_code_of([&] { rotate(wide, 10, {Interpolation::kBilinear, true}); }), kUnsupported);
  EXPECT_EQ(error_code_of([&] { affine(wide, {5, {}, 1.0, {}, {}}); }), kUnsupported);
  EXPECT_EQ(error_code_of([&] { perspective(wide, start, end); }), kUnsupported);
  EXPECT_NO_THROW(horizontal_flip(wide));
  EXPECT_NO_THROW(crop(wide, 2, 2, 4, 4));
  // Interpolations a warp does not support, bad fills and scales.
  EXPECT_EQ(error_code_of([&] { rotate(good, 10, {Interpolation::kBicubic}); }), kInvalid);
  EXPECT_EQ(error_code_of([&] { affine(good, {5, {}, 1.0, {}, {}}, {Interpolation::kBox, {}}); }), kInvalid);
  EXPECT_EQ(error_code_of([&] { affine(good, {5, {}, 0.0, {}, {}}); }), kInvalid);
  EXPECT_EQ(error_code_of([&] { rotate(good, 10, {Interpolation::kNearest, false, std::nullopt, {1, 2}}); }), kInvalid);
  EXPECT_EQ(error_code_of([&] { pad(good, {1, 1, 1, 1}, PadMode::kConstant, {1, 2}); }), kInvalid);
  // Non-positive crop sizes.
  EXPECT_EQ(error_code_of([&] { crop(good, 0, 0, 0, 5); }), kInvalid);
  EXPECT_EQ(error_code_of([&] { crop(good, 0, 0, 5, -1); }), kInvalid);
  EXPECT_EQ(error_code_of([&] { center_crop(good, {0, 5}); }), kInvalid);
  EXPECT_EQ(error_code_of([&] { resized_crop(good, 0, 0, 0, 4, {3, 3}); }), kInvalid);
  // Degenerate perspective corners.
  const std::array<Point, 4> line{Point{0, 0}, Point{1, 1}, Point{2, 2}, Point{3, 3}};
  EXPECT_EQ(error_code_of([&] { perspective(good, start, line); }), kInvalid);
}

}  // namespace
}  // namespace loom::transforms
