// Box and keypoint ops against torchvision 0.24 (tests/reference/annotations_tv.py) on many random boxes
// in every format, float32 (within 1e-4) and float64 (within 1e-9): convert, clamp soft and hard,
// sanitize (with the corrected rotated height), keypoints. Needs a torchvision >= 0.23 interpreter:
// $LOOM_TORCHVISION_PYTHON, else /work/venv-tv/bin/python; skipped when neither works.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "box_test_util.h"
#include "loom/transforms/annotations.h"
#include "loom/transforms/random.h"
#include "python_reference.h"

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
