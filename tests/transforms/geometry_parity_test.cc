// loom's geometric transforms against torchvision on the same inputs and parameters:
// - pixels against Debian's torchvision 0.14 (/usr/bin/python3, always);
// - boxes (all six formats, incl. rotated), keypoints and canvas sizes against torchvision >= 0.23
//   (tv_tensors.KeyPoints and rotated boxes). That release is not packaged by Debian: the test runs it
//   from LOOM_TORCHVISION_PYTHON or /work/venv-tv/bin/python and skips when neither exists.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>

#include "loom/transforms/geometry.h"
#include "loom/transforms/random.h"
#include "python_reference.h"

namespace loom::transforms {
namespace {

using test::run_python_reference;
using test::TensorMap;

constexpr int64_t kH = 37, kW = 53;
const char* const kFormats[] = {"XYXY", "XYWH", "CXCYWH", "XYWHR", "CXCYWHR", "XYXYXYXY"};

struct Case {
  std::string name;
  std::string params;  // the op's torchvision arguments (JSON members)
  std::function<Sample(const Sample&)> loom;
  int max_pixel_diff = 0;  // per uint8 channel value
  // Values allowed above max_pixel_diff: torch computes sampling positions in float32, loom in
  // double, so positions exactly half-way between pixels (common with odd sizes) can round apart.
  double max_mismatch_fraction = 0.0;
  Clamping clamping = Clamping::kSoft;
  // Known torchvision inconsistencies, where loom keeps the annotations on its (and torchvision's)
  // pixels instead: the expected (loom - torchvision) shift of box and keypoint coordinates, and
  // whether torchvision's annotation canvas is one pixel off its own image after an expanding rotation.
  Point tv_offset;
  bool tv_canvas_differs = false;
};

// An expanded rotation about the image centre: torchvision moves the annotations to the top-left of
// the rotated image's exact extent, while its pixels centre that extent on the output, whose size is
// rounded out to whole pixels; loom keeps the annotations on the pixels, (out - extent) / 2 further.
Point expand_offset(double degrees) {
  const double a = degrees * M_PI / 180.0, c = std::fabs(std::cos(a)), s = std::fabs(std::sin(a));
  auto offset = [](double side, double extent) {
    const double out = std::ceil(0.5 * (side + extent)) - std::floor(0.5 * (side - extent));
    return 0.5 * (out - extent);
  };
  return {offset(kW, kW * c + kH * s), offset(kH, kW * s + kH * c)};
}

std::vector<Case> cases() {
  WarpOptions nearest{Interpolation::kNearest, {}}, bilinear{Interpolation::kBilinear, {}};
  const std::array<Point, 4> start{Point{0, 0}, Point{52, 0}, Point{52, 36}, Point{0, 36}};
  const std::array<Point, 4> end{Point{3, 2}, Point{49, 5}, Point{50, 33}, Point{1, 35}};
  return {
      {"hflip", R"("op": "hflip")", [](const Sample& s) { return horizontal_flip(s); }},
      {"vflip", R"("op": "vflip")", [](const Sample& s) { return vertical_flip(s); }},
      {"crop", R"("op": "crop", "top": 5, "left": 7, "height": 20, "width": 30)",
       [](const Sample& s) { return crop(s, 5, 7, 20, 30); }},
      {"crop_outside", R"("op": "crop", "top": -4, "left": 40, "height": 30, "width": 25)",
       [](const Sample& s) { return crop(s, -4, 40, 30, 25); }},
      {"center_crop", R"("op": "center_crop", "height": 20, "width": 31)",
       [](const Sample& s) {
         return center_crop(s, {20, 31});
       }},
      // torchvision pads the image by floor(7 / 2) = 3 on the left but moves boxes by round(3.5) = 4.
      {"center_crop_larger",
       R"("op": "center_crop", "height": 41, "width": 60)",
       [](const Sample& s) {
         return center_crop(s, {41, 60});
       },
       0,
       0.0,
       Clamping::kSoft,
       {-1, 0}},
      {"pad", R"("op": "pad", "padding": [3, 4, 5, 6], "fill": 9)",
       [](const Sample& s) {
         return pad(s, {3, 4, 5, 6}, PadMode::kConstant, {9});
       }},
      {"resize", R"("op": "resize", "height": 24, "width": 70)",
       [](const Sample& s) {
         return resize(s, {24, 70});
       },
       1},
      {"rotate30", R"("op": "rotate", "angle": 30, "interpolation": "nearest", "expand": false)",
       [](const Sample& s) { return rotate(s, 30); }, 0, 0.02},
      {"rotate_expand_bilinear",
       R"("op": "rotate", "angle": -40, "interpolation": "bilinear", "expand": true, "fill": [10, 20, 30])",
       [](const Sample& s) {
         return rotate(s, -40, {Interpolation::kBilinear, true, std::nullopt, {10, 20, 30}});
       },
       1, 0.0, Clamping::kNone, expand_offset(-40), true},
      // torchvision's image is 65 wide here but its boxes get a 64-wide canvas (computed about the
      // corner instead of the centre); unclamped, the coordinates agree up to expand_offset.
      {"rotate_expand_canvas", R"("op": "rotate", "angle": -47.5, "interpolation": "nearest", "expand": true)",
       [](const Sample& s) {
         return rotate(s, -47.5, {Interpolation::kNearest, true, std::nullopt, {}});
       },
       0, 0.02, Clamping::kNone, expand_offset(-47.5), true},
      {"rotate_hard_clamp", R"("op": "rotate", "angle": 75, "interpolation": "nearest", "expand": false)",
       [](const Sample& s) { return rotate(s, 75); }, 0, 0.02, Clamping::kHard},
      {"affine_unclamped",
       R"("op": "affine", "angle": 20, "translate": [4, -3], "scale": 0.8, "shear": [10, 5], "interpolation": "nearest")",
       [=](const Sample& s) {
         return affine(s, {20, {4, -3}, 0.8, {10, 5}, std::nullopt}, nearest);
       },
       0, 0.02, Clamping::kNone},
      {"rotate90_expand", R"("op": "rotate", "angle": 90, "interpolation": "nearest", "expand": true)",
       [](const Sample& s) {
         return rotate(s, 90, {Interpolation::kNearest, true, std::nullopt, {}});
       }},
      {"rotate_center",
       R"("op": "rotate", "angle": 12, "interpolation": "bilinear", "expand": false, "center": [10, 30])",
       [](const Sample& s) {
         return rotate(s, 12, {Interpolation::kBilinear, false, Point{10, 30}, {}});
       },
       1, 0.0},
      {"affine_fill",
       R"("op": "affine", "angle": 33, "translate": [-5, 6], "scale": 1.1, "shear": [0, -12], "interpolation": "bilinear", "fill": [0])",
       [=](const Sample& s) {
         return affine(s, {33, {-5, 6}, 1.1, {0, -12}, std::nullopt}, {Interpolation::kBilinear, {0}});
       },
       1, 0.0},
      {"affine",
       R"("op": "affine", "angle": 20, "translate": [4, -3], "scale": 0.8, "shear": [10, 5], "interpolation": "nearest")",
       [=](const Sample& s) {
         return affine(s, {20, {4, -3}, 0.8, {10, 5}, std::nullopt}, nearest);
       },
       0, 0.02},
      {"affine_bilinear",
       R"("op": "affine", "angle": -15, "translate": [0, 2], "scale": 1.3, "shear": [-8, 0], "interpolation": "bilinear")",
       [=](const Sample& s) {
         return affine(s, {-15, {0, 2}, 1.3, {-8, 0}, std::nullopt}, bilinear);
       },
       1, 0.0},
      {"perspective",
       R"("op": "perspective", "startpoints": [[0,0],[52,0],[52,36],[0,36]], "endpoints": [[3,2],[49,5],[50,33],[1,35]], "interpolation": "bilinear")",
       [=](const Sample& s) { return perspective(s, start, end, bilinear); }, 1, 0.0},
  };
}

Tensor random_image(uint64_t seed) {
  Rng rng(seed);
  Tensor t = Tensor::empty({3, kH, kW}, DType::kUInt8);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<uint8_t>()[i] = static_cast<uint8_t>(rng.integer(0, 256));
  return t;
}

// Boxes that stay inside, cross each edge, and rotated ones at several angles, in every format.
Tensor boxes_in(const std::string& format) {
  const std::vector<std::array<double, 5>> cxcywhr = {
      {20, 15, 10, 6, 0}, {5, 30, 14, 8, 25}, {45, 4, 12, 9, -35}, {30, 20, 40, 10, 60}, {50, 34, 9, 6, 135}};
  // (Not squares: torchvision re-derives a rotated box from its mapped corners with a rule that jumps
  // where the two sides are equal, so a square's result would hinge on float32 rounding.)
  const int64_t n = static_cast<int64_t>(cxcywhr.size());
  Tensor rot = Tensor::empty({n, 5}, DType::kFloat32);
  for (int64_t i = 0; i < n; ++i) {
    for (int k = 0; k < 5; ++k) rot.data<float>()[i * 5 + k] = static_cast<float>(cxcywhr[i][k]);
  }
  const BoxFormat f = box_format_from_string(format);
  if (is_rotated(f)) return convert_box_format(rot, BoxFormat::kCXCYWHR, f);
  Tensor axis = Tensor::empty({n, 4}, DType::kFloat32);
  for (int64_t i = 0; i < n; ++i) {
    for (int k = 0; k < 4; ++k) axis.data<float>()[i * 4 + k] = static_cast<float>(cxcywhr[i][k]);
  }
  return convert_box_format(axis, BoxFormat::kCXCYWH, f);
}

Tensor keypoints_in() {
  const float pts[][2] = {{0, 0}, {52, 36}, {10.5f, 3.25f}, {26, 18}, {51, 1}, {2, 35}};
  Tensor t = Tensor::empty({6, 2}, DType::kFloat32);
  std::copy(&pts[0][0], &pts[0][0] + 12, t.data<float>());
  return t;
}

std::string params_json(const Case& c) {
  std::string formats = "[";
  for (const char* f : kFormats) formats += std::string(formats.size() > 1 ? ", " : "") + "\"" + f + "\"";
  const char* clamping = c.clamping == Clamping::kNone   ? "null"
                         : c.clamping == Clamping::kHard ? "\"hard\""
                                                         : "\"soft\"";
  return "{" + c.params + ", \"clamping\": " + clamping + ", \"canvas\": [" + std::to_string(kH) + ", " +
         std::to_string(kW) + "], \"formats\": " + formats + "]}";
}

std::string modern_torchvision() {
  if (const char* env = std::getenv("LOOM_TORCHVISION_PYTHON")) return env;
  const std::string venv = "/work/venv-tv/bin/python";
  return std::filesystem::exists(venv) ? venv : "";
}

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

class GeometryParity : public testing::TestWithParam<Case> {};

TEST_P(GeometryParity, PixelsMatchTorchvision) {
  const Case& c = GetParam();
  Sample s;
  s.image = random_image(1);
  const Tensor ours = c.loom(s).image;
  TensorMap ref = run_python_reference("geometry_tv.py", {{"image", s.image}}, params_json(c));
  ASSERT_TRUE(ref.count("image"));
  const Tensor& theirs = ref["image"];
  ASSERT_EQ(std::vector<int64_t>(ours.shape().begin(), ours.shape().end()),
            std::vector<int64_t>(theirs.shape().begin(), theirs.shape().end()));
  int64_t above = 0;
  const int64_t pixels = ours.numel() / 3;
  for (int64_t i = 0; i < ours.numel(); ++i) {
    above += std::abs(ours.data<uint8_t>()[i] - theirs.data<uint8_t>()[i]) > c.max_pixel_diff;
  }
  EXPECT_LE(static_cast<double>(above) / static_cast<double>(pixels), c.max_mismatch_fraction)
      << above << " of " << ours.numel() << " values differ by more than " << c.max_pixel_diff;
}

TEST_P(GeometryParity, AnnotationsMatchTorchvision024) {
  const std::string python = modern_torchvision();
  if (python.empty()) GTEST_SKIP() << "torchvision >= 0.23 not installed (set LOOM_TORCHVISION_PYTHON)";
  const Case& c = GetParam();
  TensorMap inputs{{"image", random_image(2)}, {"keypoints", keypoints_in()}};
  for (const char* f : kFormats) inputs["boxes_" + std::string(f)] = boxes_in(f);
  TensorMap ref = run_python_reference("geometry_tv.py", inputs, params_json(c), python);
  ASSERT_TRUE(ref.count("canvas"));
  for (const char* f : kFormats) {
    Sample s;
    s.image = inputs["image"];
    const BoxFormat format = box_format_from_string(f);
    s.boxes = BoundingBoxes{inputs["boxes_" + std::string(f)], format, {kH, kW}, c.clamping};
    s.keypoints = KeyPoints{inputs["keypoints"], {kH, kW}};
    const Sample out = c.loom(s);
    EXPECT_EQ(out.boxes->canvas, image_size(out)) << f;
    const Size tv_canvas{ref["canvas"].data<int64_t>()[0], ref["canvas"].data<int64_t>()[1]};
    if (c.tv_canvas_differs) {
      EXPECT_EQ(
          std::abs(out.boxes->canvas.height - tv_canvas.height) + std::abs(out.boxes->canvas.width - tv_canvas.width),
          1);
    } else {
      EXPECT_EQ(out.boxes->canvas, tv_canvas) << f;
    }
    const Tensor& theirs = ref["boxes_" + std::string(f)];
    ASSERT_EQ(out.boxes->data.numel(), theirs.numel()) << f;
    // Which values of a box are x and y coordinates (they take tv_offset); the rest are sizes/angles.
    const int k = values_per_box(format);
    auto offset = [&](int j) {
      const bool point = format == BoxFormat::kXYXY || format == BoxFormat::kXYXYXYXY || j < 2;
      return point ? (j % 2 == 0 ? c.tv_offset.x : c.tv_offset.y) : 0.0;
    };
    for (int64_t i = 0; i < theirs.numel(); ++i) {
      EXPECT_NEAR(out.boxes->data.data<float>()[i], theirs.data<float>()[i] + offset(static_cast<int>(i % k)), 2e-3)
          << f << " box " << i / k << " value " << i % k;
    }
    if (format == BoxFormat::kXYXY) {
      const Tensor& kp = ref["keypoints"];
      for (int64_t i = 0; i < kp.numel(); ++i) {
        EXPECT_NEAR(out.keypoints->data.data<float>()[i], kp.data<float>()[i] + offset(static_cast<int>(i % 2)), 1e-3)
            << "keypoint value " << i;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, GeometryParity, testing::ValuesIn(cases()),
                         [](const testing::TestParamInfo<Case>& info) { return info.param.name; });

}  // namespace
}  // namespace loom::transforms
