// Annotations follow every geometric transform (the acceptance test of the geometry issue).
//
// One image carries a mark for every annotation, as bits of its three channels:
//  - channel 0, bit i: the pixels of axis-aligned box i (pixel x inside when x0 <= x < x1);
//  - channel 1, bit i: the pixels of rotated box i whose centres (x + 0.5, y + 0.5) lie inside it;
//  - channel 2, bit i: a 3 x 3 square around keypoint i (a pixel index, torchvision's convention).
// Each op runs with nearest interpolation and zero fill, so a transformed pixel is a copy of one input
// pixel (or 0) and every bit plane is the transformed mark. The test then checks that the transformed
// annotations land on the transformed marks:
//  - an axis-aligned box equals the bounding rectangle of its marked pixels, in pixel edges
//    [min_x, max_x + 1] x [min_y, max_y + 1]: within 1 px for the ops that keep axes (flips, crops,
//    pads, nearest resizes: edges land on ceil() of the scaled edge), within 1.5 px for the warps
//    (nearest sampling of a rotated edge steps by up to a pixel). A mark cut by the image border must
//    give the box clamped to the canvas; a mark that left the image a degenerate box. For a warp whose
//    mark is cut, the box is the clamped box of the whole mapped rectangle (torchvision's rule), which
//    may be larger than the visible part: it must contain the marks and lie on the canvas.
//  - a rotated box's polygon contains every marked pixel centre (within 1 px; more where a shear or a
//    perspective turns the rectangle into a quadrilateral that torchvision's rule re-fits with a
//    rectangle) and its area matches the marked pixel count (relative tolerance: a rectangle of
//    perimeter P rasterized by pixel centres differs from its area by O(P / 2)).
//  - a keypoint lies within 1.5 px of its mark's centroid (in pixel indices). Flips map x to W - 1 - x
//    (pixel indices) and the mark's centroid follows exactly; resize and the warps map keypoints as
//    continuous coordinates, where the mark's centre is the keypoint + (0.5, 0.5): the centroid then
//    lands at kp' + (A - I)(0.5, 0.5) for the linear part A of the map (at most 1.0 for a quarter turn,
//    0.71 * (s - 1) for a scale s, 1.41 for a half turn), plus up to ~0.3 px from nearest sampling of
//    the 3 x 3 square. 1.5 px holds for both conventions over the ops below; a wrong map is off by more.
// Every op runs on CHW and HWC, uint8 and float32, and with boxes in every format (the flips, crops and
// resizes have per-format code). The random transforms run with several seeds.
#include "loom/transforms/geometry.h"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "loom/transforms/annotations.h"
#include "loom/transforms/geometry_transforms.h"
#include "loom/transforms/random.h"
#include "loom/transforms/transform.h"
#include "tensor_rows.h"

namespace loom::transforms {
namespace {

constexpr int64_t kH = 61, kW = 83;

using Quad = std::array<double, 8>;  // x1, y1, ..., x4, y4

// Axis-aligned boxes (integer pixel edges): inside, near the corners and edges, and in the middle.
const std::vector<std::array<double, 4>> kAxisBoxes = {
    {10, 8, 30, 24}, {50, 30, 75, 52}, {2, 40, 16, 58}, {60, 3, 82, 14}, {35, 20, 47, 45}};

struct RotatedSpec {
  double cx, cy, w, h, angle;  // angle counter-clockwise on screen (y down), degrees
};
const std::vector<RotatedSpec> kRotated = {
    {25, 40, 22, 10, 30}, {60, 20, 18, 9, -50}, {70, 50, 16, 12, 100}, {40, 12, 26, 7, -15}};

const std::vector<std::array<int64_t, 2>> kKeypoints = {{20, 15}, {70, 40}, {5, 5}, {41, 30}, {78, 56}, {12, 50}};

// The corners of a rotated rectangle, in torchvision's order: the first corner, then along the width
// (direction (cos a, -sin a) on screen), then the opposite corner, then along the height.
Quad corners(const RotatedSpec& r) {
  const double a = r.angle * M_PI / 180.0;
  const double ux = std::cos(a), uy = -std::sin(a), vx = std::sin(a), vy = std::cos(a);
  const double x1 = r.cx - 0.5 * r.w * ux - 0.5 * r.h * vx, y1 = r.cy - 0.5 * r.w * uy - 0.5 * r.h * vy;
  return {
      x1,           y1, x1 + r.w * ux, y1 + r.w * uy, x1 + r.w * ux + r.h * vx, y1 + r.w * uy + r.h * vy, x1 + r.h * vx,
      y1 + r.h * vy};
}

double polygon_area(const Quad& q) {
  double s = 0;
  for (int i = 0; i < 4; ++i) {
    const int j = (i + 1) % 4;
    s += q[2 * i] * q[2 * j + 1] - q[2 * j] * q[2 * i + 1];
  }
  return 0.5 * std::fabs(s);
}

// How far (x, y) lies outside the convex quadrilateral q (0 inside): the largest distance past an edge.
double outside_distance(const Quad& q, double x, double y) {
  double orient = 0;  // sign of the winding
  for (int i = 0; i < 4; ++i) {
    const int j = (i + 1) % 4;
    orient += q[2 * i] * q[2 * j + 1] - q[2 * j] * q[2 * i + 1];
  }
  const double sign = orient >= 0 ? 1.0 : -1.0;
  double worst = 0;
  for (int i = 0; i < 4; ++i) {
    const int j = (i + 1) % 4;
    const double ex = q[2 * j] - q[2 * i], ey = q[2 * j + 1] - q[2 * i + 1];
    const double len = std::hypot(ex, ey);
    if (len == 0) continue;
    // Positive cross product = inside for a positive winding.
    const double cross = sign * (ex * (y - q[2 * i + 1]) - ey * (x - q[2 * i])) / len;
    worst = std::max(worst, -cross);
  }
  return worst;
}

double value_at(const Tensor& t, int64_t i) {
  return t.dtype() == DType::kFloat32 ? static_cast<double>(t.data<float>()[i])
                                      : static_cast<double>(t.data<uint8_t>()[i]);
}

Tensor make_rows(const std::vector<std::vector<double>>& rows, DType dtype) {
  return test_util::rows_tensor(rows, dtype);
}
std::vector<double> doubles(const Tensor& t) {
  return test_util::tensor_doubles(t);
}

// The marked image, 3 x kH x kW (CHW) or kH x kW x 3 (HWC), uint8 or float32 (same values).
Tensor marked_image(Layout layout, DType dtype) {
  std::vector<uint8_t> planes(3 * kH * kW, 0);
  auto set = [&](int c, int64_t y, int64_t x, int bit) {
    if (x >= 0 && y >= 0 && x < kW && y < kH) planes[(c * kH + y) * kW + x] |= static_cast<uint8_t>(1 << bit);
  };
  for (size_t i = 0; i < kAxisBoxes.size(); ++i) {
    const auto& b = kAxisBoxes[i];
    for (int64_t y = static_cast<int64_t>(b[1]); y < static_cast<int64_t>(b[3]); ++y) {
      for (int64_t x = static_cast<int64_t>(b[0]); x < static_cast<int64_t>(b[2]); ++x)
        set(0, y, x, static_cast<int>(i));
    }
  }
  for (size_t i = 0; i < kRotated.size(); ++i) {
    const Quad q = corners(kRotated[i]);
    for (int64_t y = 0; y < kH; ++y) {
      for (int64_t x = 0; x < kW; ++x) {
        if (outside_distance(q, x + 0.5, y + 0.5) == 0.0) set(1, y, x, static_cast<int>(i));
      }
    }
  }
  for (size_t i = 0; i < kKeypoints.size(); ++i) {
    for (int64_t dy = -1; dy <= 1; ++dy) {
      for (int64_t dx = -1; dx <= 1; ++dx) set(2, kKeypoints[i][1] + dy, kKeypoints[i][0] + dx, static_cast<int>(i));
    }
  }
  const bool hwc = layout == Layout::kHWC;
  Tensor t = hwc ? Tensor::empty({kH, kW, 3}, dtype) : Tensor::empty({3, kH, kW}, dtype);
  for (int c = 0; c < 3; ++c) {
    for (int64_t y = 0; y < kH; ++y) {
      for (int64_t x = 0; x < kW; ++x) {
        const int64_t i = hwc ? (y * kW + x) * 3 + c : (c * kH + y) * kW + x;
        const uint8_t v = planes[(c * kH + y) * kW + x];
        if (dtype == DType::kFloat32) {
          t.data<float>()[i] = static_cast<float>(v);
        } else {
          t.data<uint8_t>()[i] = v;
        }
      }
    }
  }
  return t;
}

// The marked pixels of one bit of one channel.
struct Mark {
  std::vector<std::array<int64_t, 2>> pixels;  // x, y
  int64_t min_x = INT64_MAX, min_y = INT64_MAX, max_x = -1, max_y = -1;
  bool empty() const { return pixels.empty(); }
  bool touches_border(Size s) const {
    return min_x == 0 || min_y == 0 || max_x == s.width - 1 || max_y == s.height - 1;
  }
};

Mark find_mark(const Tensor& image, Layout layout, int channel, int bit) {
  const Tensor t = image.contiguous();
  const Size s = image_size(t, layout);
  const bool hwc = layout == Layout::kHWC;
  Mark m;
  for (int64_t y = 0; y < s.height; ++y) {
    for (int64_t x = 0; x < s.width; ++x) {
      const int64_t i = hwc ? (y * s.width + x) * 3 + channel : (channel * s.height + y) * s.width + x;
      const double v = value_at(t, i);
      if (v != std::floor(v) || v < 0 || v > 255) {
        ADD_FAILURE() << "pixel value " << v << " is not a copied mark value (nearest interpolation)";
        return m;
      }
      if (!(static_cast<int>(v) & (1 << bit))) continue;
      m.pixels.push_back({x, y});
      m.min_x = std::min(m.min_x, x), m.max_x = std::max(m.max_x, x);
      m.min_y = std::min(m.min_y, y), m.max_y = std::max(m.max_y, y);
    }
  }
  return m;
}

struct Op {
  std::string name;
  std::function<Sample(const Sample&, Rng&)> run;
  bool keeps_axes = false;         // flips, crops, pads, resizes: marks and boxes are cut identically
  double rotated_tolerance = 1.0;  // how far marked pixel centres may lie outside a rotated box
  int seeds = 1;
};

template <typename T, typename... Args>
std::function<Sample(const Sample&, Rng&)> random_op(Args... args) {
  auto t = std::make_shared<const T>(args...);
  return [t](const Sample& s, Rng& rng) {
    Sample out = s;
    t->apply(out, rng);
    return out;
  };
}

std::function<Sample(const Sample&, Rng&)> fixed(std::function<Sample(const Sample&)> f) {
  return [f](const Sample& s, Rng&) { return f(s); };
}

std::vector<Op> ops() {
  const ResizeOptions nearest_resize{Interpolation::kNearest, false};
  const WarpOptions nearest{Interpolation::kNearest, {}};
  const RotateOptions rot_nearest{Interpolation::kNearest, false, std::nullopt, {}};
  RotateOptions rot_expand = rot_nearest;
  rot_expand.expand = true;
  RotateOptions rot_center = rot_nearest;
  rot_center.center = Point{30, 20};
  const std::array<Point, 4> start{Point{0, 0}, Point{82, 0}, Point{82, 60}, Point{0, 60}};
  const std::array<Point, 4> end{Point{4, 3}, Point{78, 6}, Point{80, 57}, Point{2, 58}};
  RandomAffine::Params affine_params;
  affine_params.degrees = {-25, 25};
  affine_params.translate = Point{0.1, 0.1};
  affine_params.scale = Range{0.8, 1.2};
  affine_params.shear_x = Range{-6, 6};
  affine_params.shear_y = Range{-4, 4};
  return {
      {"identity", fixed([](const Sample& s) { return s; }), true},
      {"hflip", fixed([](const Sample& s) { return horizontal_flip(s); }), true},
      {"vflip", fixed([](const Sample& s) { return vertical_flip(s); }), true},
      {"crop_inside", fixed([](const Sample& s) { return crop(s, 5, 7, 40, 60); }), true},
      {"crop_partly_outside", fixed([](const Sample& s) { return crop(s, -6, 30, 50, 70); }), true},
      {"center_crop_smaller", fixed([](const Sample& s) {
         return center_crop(s, {40, 51});
       }),
       true},
      {"center_crop_larger", fixed([](const Sample& s) {
         return center_crop(s, {70, 96});
       }),
       true},
      {"pad", fixed([](const Sample& s) {
         return pad(s, {3, 7, 5, 2});
       }),
       true},
      // torch's "nearest" reads source pixel floor(x * in / out): a marked output pixel centre lies up
      // to a source pixel (the scale factor, ~1.6 output px here) from the source centre inside the box.
      {"resize_up", fixed([=](const Sample& s) {
         return resize(s, {97, 130}, nearest_resize);
       }),
       true, 1.7},
      {"resize_down", fixed([=](const Sample& s) {
         return resize(s, {45, 57}, nearest_resize);
       }),
       true},
      // Unequal x and y scales make a rotated box a parallelogram, re-fitted with a rectangle.
      {"resize_nearest_exact", fixed([](const Sample& s) {
         return resize(s, {50, 101}, {Interpolation::kNearestExact});
       }),
       true, 2.0},
      {"resized_crop", fixed([=](const Sample& s) {
         return resized_crop(s, 10, 20, 40, 50, {60, 70}, nearest_resize);
       }),
       true},
      {"rotate30", fixed([=](const Sample& s) { return rotate(s, 30, rot_nearest); })},
      {"rotate_minus40_expand", fixed([=](const Sample& s) { return rotate(s, -40, rot_expand); })},
      {"rotate25_center", fixed([=](const Sample& s) { return rotate(s, 25, rot_center); })},
      {"rotate25_center_expand", fixed([=](const Sample& s) {
         RotateOptions o = rot_center;
         o.expand = true;
         return rotate(s, 25, o);
       })},
      {"rotate90_expand", fixed([=](const Sample& s) { return rotate(s, 90, rot_expand); })},
      {"rotate180", fixed([=](const Sample& s) { return rotate(s, 180, rot_nearest); })},
      {"affine_translate_scale", fixed([=](const Sample& s) {
         return affine(s, {-10, {-6, 5}, 1.2, {}, {}}, nearest);
       })},
      // Shear makes a rotated box a parallelogram, re-fitted by torchvision's rule keeping its longest
      // diagonal: its other corners move by up to ~side * tan(shear) / 2.
      {"affine_shear", fixed([=](const Sample& s) {
         return affine(s, {20, {4, -3}, 0.9, {10, 5}, {}}, nearest);
       }),
       false, 2.5},
      {"affine_center", fixed([=](const Sample& s) {
         return affine(s, {15, {2, 1}, 1.1, {}, Point{20, 15}}, nearest);
       })},
      {"perspective", fixed([=](const Sample& s) { return perspective(s, start, end, nearest); }), false, 2.0},
      {"RandomHorizontalFlip", random_op<RandomHorizontalFlip>(0.5), true, 1.0, 4},
      {"RandomVerticalFlip", random_op<RandomVerticalFlip>(0.5), true, 1.0, 4},
      {"RandomResizedCrop",
       random_op<RandomResizedCrop>(Size{48, 64}, Range{0.3, 1.0}, Range{3.0 / 4, 4.0 / 3}, nearest_resize), true, 2.0,
       4},
      {"RandomCrop_padding",
       random_op<RandomCrop>(Size{40, 50}, Padding{4, 4, 4, 4}, false, PadMode::kConstant, Fill{}), true, 1.0, 4},
      {"RandomCrop_pad_if_needed", random_op<RandomCrop>(Size{70, 90}, std::nullopt, true, PadMode::kConstant, Fill{}),
       true, 1.0, 3},
      {"Resize_shorter", random_op<Resize>(Size{40, 0}, nearest_resize), true},
      {"CenterCrop", random_op<CenterCrop>(Size{50, 70}), true},
      {"Pad", random_op<Pad>(Padding{6, 0, 2, 9}, PadMode::kConstant, Fill{}), true},
      {"RandomRotation", random_op<RandomRotation>(Range{-45, 45}, rot_nearest), false, 1.0, 4},
      {"RandomRotation_expand", random_op<RandomRotation>(Range{-30, 30}, rot_expand), false, 1.0, 4},
      {"RandomAffine", random_op<RandomAffine>(affine_params, nearest), false, 2.0, 4},
      {"RandomPerspective", random_op<RandomPerspective>(0.3, 1.0, nearest), false, 2.0, 4},
      {"Compose",
       random_op<Compose>(std::vector<TransformPtr>{
           std::make_shared<RandomHorizontalFlip>(0.5), std::make_shared<RandomRotation>(Range{-20, 20}, rot_nearest),
           std::make_shared<RandomResizedCrop>(Size{50, 50}, Range{0.5, 1.0}, Range{0.75, 1.33}, nearest_resize)}),
       false, 1.5, 4},
  };
}

struct Config {
  Layout layout;
  DType dtype;
};

// Checks one transformed sample; `what` names the op, seed and format for the failure messages.
void check_axis_boxes(const Sample& out, const Op& op, const std::string& what) {
  const Size size = image_size(out);
  ASSERT_EQ(out.boxes->canvas, size) << what;
  const std::vector<double> b = doubles(convert_box_format(*out.boxes, BoxFormat::kXYXY).data);
  ASSERT_EQ(b.size(), 4 * kAxisBoxes.size()) << what;
  const double tol = op.keeps_axes ? 1.0 : 1.5;
  const double w = static_cast<double>(size.width), h = static_cast<double>(size.height);
  for (size_t i = 0; i < kAxisBoxes.size(); ++i) {
    const double x0 = b[4 * i], y0 = b[4 * i + 1], x1 = b[4 * i + 2], y1 = b[4 * i + 3];
    const std::string where = what + " axis box " + std::to_string(i);
    // Clamped to the canvas (resize does not clamp, but scales a box on the canvas onto the canvas).
    EXPECT_GE(x0, -1e-3) << where;
    EXPECT_GE(y0, -1e-3) << where;
    EXPECT_LE(x1, w + 1e-3) << where;
    EXPECT_LE(y1, h + 1e-3) << where;
    EXPECT_LE(x0, x1 + 1e-9) << where;
    EXPECT_LE(y0, y1 + 1e-9) << where;
    const Mark m = find_mark(out.image, out.layout, 0, static_cast<int>(i));
    if (m.empty()) {
      if (op.keeps_axes) EXPECT_LT(std::min(x1 - x0, y1 - y0), 1.0) << where << ": the mark left the image";
      continue;
    }
    const double mx0 = static_cast<double>(m.min_x), my0 = static_cast<double>(m.min_y);
    const double mx1 = static_cast<double>(m.max_x + 1), my1 = static_cast<double>(m.max_y + 1);
    if (op.keeps_axes || !m.touches_border(size)) {
      EXPECT_NEAR(x0, mx0, tol) << where;
      EXPECT_NEAR(y0, my0, tol) << where;
      EXPECT_NEAR(x1, mx1, tol) << where;
      EXPECT_NEAR(y1, my1, tol) << where;
    } else {
      EXPECT_LE(x0, mx0 + tol) << where;
      EXPECT_LE(y0, my0 + tol) << where;
      EXPECT_GE(x1, mx1 - tol) << where;
      EXPECT_GE(y1, my1 - tol) << where;
    }
  }
}

void check_rotated_boxes(const Sample& out, const Op& op, const std::string& what) {
  const Size size = image_size(out);
  ASSERT_EQ(out.boxes->canvas, size) << what;
  const std::vector<double> b = doubles(convert_box_format(*out.boxes, BoxFormat::kXYXYXYXY).data);
  ASSERT_EQ(b.size(), 8 * kRotated.size()) << what;
  const double w = static_cast<double>(size.width), h = static_cast<double>(size.height);
  for (size_t i = 0; i < kRotated.size(); ++i) {
    Quad q;
    std::copy(b.begin() + 8 * i, b.begin() + 8 * i + 8, q.begin());
    const std::string where = what + " rotated box " + std::to_string(i);
    const Mark m = find_mark(out.image, out.layout, 1, static_cast<int>(i));
    const double area = polygon_area(q);
    if (m.empty()) {
      if (op.keeps_axes) EXPECT_LT(area, 1.0) << where << ": the mark left the image";
      continue;
    }
    double worst = 0;
    for (const auto& [x, y] : m.pixels) worst = std::max(worst, outside_distance(q, x + 0.5, y + 0.5));
    EXPECT_LE(worst, op.rotated_tolerance) << where << ": a marked pixel centre lies outside the box";
    bool on_canvas = true;
    for (int c = 0; c < 8; c += 2)
      on_canvas &= q[c] > -1e-3 && q[c] < w + 1e-3 && q[c + 1] > -1e-3 && q[c + 1] < h + 1e-3;
    const double count = static_cast<double>(m.pixels.size());
    // Perimeter-proportional slack: a pixel-centre rasterization is off by about half the boundary pixels.
    double perimeter = 0;
    for (int c = 0; c < 4; ++c)
      perimeter += std::hypot(q[(2 * c + 2) % 8] - q[2 * c], q[(2 * c + 3) % 8] - q[2 * c + 1]);
    const double slack = 0.05 * area + 0.25 * perimeter * op.rotated_tolerance;
    if (on_canvas && !m.touches_border(size)) {
      EXPECT_NEAR(area, count, slack) << where << ": box area vs marked pixels";
    } else {
      // Clamped (soft): the box still covers what is left of the mark.
      EXPECT_GE(area, count - slack) << where;
    }
  }
}

void check_keypoints(const Sample& out, const std::string& what) {
  const Size size = image_size(out);
  ASSERT_EQ(out.keypoints->canvas, size) << what;
  const std::vector<double> k = doubles(out.keypoints->data);
  ASSERT_EQ(k.size(), 2 * kKeypoints.size()) << what;
  for (size_t i = 0; i < kKeypoints.size(); ++i) {
    const double x = k[2 * i], y = k[2 * i + 1];
    const std::string where = what + " keypoint " + std::to_string(i);
    const Mark m = find_mark(out.image, out.layout, 2, static_cast<int>(i));
    if (m.empty()) {
      // Gone with its mark: the keypoint is outside the image, or at most the mark's reach inside.
      EXPECT_TRUE(x < 1.5 || y < 1.5 || x > static_cast<double>(size.width) - 2.5 ||
                  y > static_cast<double>(size.height) - 2.5)
          << where << " at " << x << ", " << y << " but its mark left the image";
      continue;
    }
    double cx = 0, cy = 0;
    for (const auto& [px, py] : m.pixels) cx += static_cast<double>(px), cy += static_cast<double>(py);
    cx /= static_cast<double>(m.pixels.size()), cy /= static_cast<double>(m.pixels.size());
    // A mark cut by the border has its centroid pulled inside by up to a (scaled) pixel.
    const double tol = m.touches_border(size) ? 2.5 : 1.5;
    EXPECT_LE(std::hypot(x - cx, y - cy), tol)
        << where << " at " << x << ", " << y << ", mark centroid " << cx << ", " << cy;
  }
}

std::vector<double> rotated_values(const RotatedSpec& r, BoxFormat format) {
  const Quad q = corners(r);
  const Tensor t = convert_box_format(make_rows({std::vector<double>(q.begin(), q.end())}, DType::kFloat64),
                                      BoxFormat::kXYXYXYXY, format);
  return doubles(t);
}

void run_all_ops(const Config cfg) {
  const Tensor image = marked_image(cfg.layout, cfg.dtype);
  const Size canvas{kH, kW};
  std::vector<std::vector<double>> kp_rows;
  for (const auto& p : kKeypoints) kp_rows.push_back({static_cast<double>(p[0]), static_cast<double>(p[1])});
  const KeyPoints keypoints{make_rows(kp_rows, DType::kFloat32), canvas};

  // Every format of both families; the float dtype alternates to cover float32 and float64 boxes.
  struct Boxes {
    BoxFormat format;
    bool rotated;
  };
  const Boxes formats[] = {{BoxFormat::kXYXY, false},    {BoxFormat::kXYWH, false}, {BoxFormat::kCXCYWH, false},
                           {BoxFormat::kXYXYXYXY, true}, {BoxFormat::kXYWHR, true}, {BoxFormat::kCXCYWHR, true}};
  int dtype_toggle = 0;
  for (const Op& op : ops()) {
    for (int seed = 0; seed < op.seeds; ++seed) {
      Tensor first_image;
      for (const Boxes& f : formats) {
        const DType box_dtype = (dtype_toggle++ % 2) ? DType::kFloat32 : DType::kFloat64;
        std::vector<std::vector<double>> rows;
        if (f.rotated) {
          for (const RotatedSpec& r : kRotated) rows.push_back(rotated_values(r, f.format));
        } else {
          for (const auto& b : kAxisBoxes) {
            rows.push_back(doubles(convert_box_format(make_rows({{b[0], b[1], b[2], b[3]}}, DType::kFloat64),
                                                      BoxFormat::kXYXY, f.format)));
          }
        }
        Sample s;
        s.image = image;
        s.layout = cfg.layout;
        s.boxes = BoundingBoxes{make_rows(rows, box_dtype), f.format, canvas, Clamping::kSoft};
        s.keypoints = keypoints;
        Rng rng(1234 + static_cast<uint64_t>(seed), 7);
        const Sample out = op.run(s, rng);
        const std::string what = op.name + " seed " + std::to_string(seed) + " " + std::string(to_string(f.format));
        ASSERT_EQ(out.image.dtype(), cfg.dtype) << what;
        // The pixels do not depend on the annotations.
        if (!first_image.defined()) {
          first_image = out.image.contiguous();
        } else {
          const Tensor again = out.image.contiguous();
          ASSERT_EQ(again.nbytes(), first_image.nbytes()) << what;
          EXPECT_EQ(std::memcmp(again.data(), first_image.data(), again.nbytes()), 0) << what;
        }
        if (f.rotated) {
          check_rotated_boxes(out, op, what);
        } else {
          check_axis_boxes(out, op, what);
        }
        check_keypoints(out, what);
      }
    }
  }
}

// The test itself: each check fails for annotations that do not follow their marks.
TEST(GeometryMarksSelfCheck, MisplacedAnnotationsFail) {
  const Tensor image = marked_image(Layout::kCHW, DType::kUInt8);
  Sample s;
  s.image = horizontal_flip(Sample{image}).image;  // flipped pixels, unflipped annotations
  std::vector<std::vector<double>> rows;
  for (const auto& b : kAxisBoxes) rows.push_back({b[0], b[1], b[2], b[3]});
  s.boxes = BoundingBoxes{make_rows(rows, DType::kFloat64), BoxFormat::kXYXY, {kH, kW}, Clamping::kSoft};
  std::vector<std::vector<double>> kp;
  for (const auto& p : kKeypoints) kp.push_back({static_cast<double>(p[0]), static_cast<double>(p[1])});
  s.keypoints = KeyPoints{make_rows(kp, DType::kFloat64), {kH, kW}};
  const Op op{"self", fixed([](const Sample& x) { return x; }), true};
  testing::TestPartResultArray failures;
  {
    testing::ScopedFakeTestPartResultReporter reporter(
        testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &failures);
    check_axis_boxes(s, op, "misplaced");
    check_keypoints(s, "misplaced");
  }
  EXPECT_GT(failures.size(), 0);
  std::vector<std::vector<double>> quads;
  for (const RotatedSpec& r : kRotated) {
    RotatedSpec shifted = r;
    shifted.cx += 4;  // 4 px off its mark
    const Quad q = corners(shifted);
    quads.emplace_back(q.begin(), q.end());
  }
  Sample r;
  r.image = image;
  r.boxes = BoundingBoxes{make_rows(quads, DType::kFloat64), BoxFormat::kXYXYXYXY, {kH, kW}, Clamping::kSoft};
  testing::TestPartResultArray rotated_failures;
  {
    testing::ScopedFakeTestPartResultReporter reporter(
        testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &rotated_failures);
    check_rotated_boxes(r, op, "shifted");
  }
  EXPECT_GE(rotated_failures.size(), static_cast<int>(kRotated.size()) - 1);
}

TEST(GeometryMarks, ChwUint8) {
  run_all_ops({Layout::kCHW, DType::kUInt8});
}
TEST(GeometryMarks, HwcUint8) {
  run_all_ops({Layout::kHWC, DType::kUInt8});
}
TEST(GeometryMarks, ChwFloat32) {
  run_all_ops({Layout::kCHW, DType::kFloat32});
}
TEST(GeometryMarks, HwcFloat32) {
  run_all_ops({Layout::kHWC, DType::kFloat32});
}

}  // namespace
}  // namespace loom::transforms
