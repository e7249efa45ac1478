// Clamping of boxes and keypoints to their canvas, with torchvision 0.24's results
// (transforms/v2/functional/_meta.py: _clamp_bounding_boxes, _clamp_rotated_bounding_boxes,
// _clamp_keypoints), computed per box in double.
//
// Rotated boxes (soft and hard) use torchvision's procedure, re-derived per box:
//   four times: pick a "first" corner (mostly the leftmost one), clamp the box against the left canvas
//   edge x = 0 by moving the lines of its sides, then turn the whole picture 90 degrees
//   counter-clockwise, (x, y) -> (y, width - x), so that the next canvas edge becomes the left one.
// Each side is the line y = a x + b through two consecutive corners; clamping moves the intercepts b
// (the side's height at x = 0) and takes the new corners where consecutive sides meet. The original
// box rides along (same reordering and turns) because its intercepts bound the moved ones.
// torchvision's quirks are kept on purpose, since they decide the results: the corner order is shifted
// a second time by the same amount after each clamp (not shifted back), and in hard mode the two sides
// meeting at the first corner share one intercept that is clamped to both of their original ranges.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <utility>

#include "boxes/box_geometry.h"
#include "loom/codec/error.h"
#include "loom/transforms/annotations.h"

namespace loom::transforms {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// torch.minimum / maximum / clamp: NaN in any argument gives NaN; clamp(x, lo, hi) = min(max(x, lo), hi),
// so hi wins when lo > hi.
double min_nan(double a, double b) {
  return std::isnan(a) || std::isnan(b) ? kNaN : (b < a ? b : a);
}
double max_nan(double a, double b) {
  return std::isnan(a) || std::isnan(b) ? kNaN : (a < b ? b : a);
}
double clamp_nan(double x, double lo, double hi) {
  return min_nan(max_nan(x, lo), hi);
}

// torch.isclose(a, b) with rtol 1e-5, atol 1e-8 (b is the reference; NaN is never close).
bool is_close(double a, double b) {
  if (a == b) return true;
  const double error = std::fabs(a - b);
  return std::isfinite(error) && error <= 1e-8 + std::fabs(1e-5 * b);
}

// Four corners (x, y) in order.
struct Quad {
  std::array<double, 4> x, y;
};

Quad quad_from(const double* v) {
  Quad q;
  for (int k = 0; k < 4; ++k) q.x[k] = v[2 * k], q.y[k] = v[2 * k + 1];
  return q;
}

// Corners shifted cyclically so that corner `first` comes first.
Quad shifted(const Quad& q, int first) {
  Quad r;
  for (int k = 0; k < 4; ++k) r.x[k] = q.x[(first + k) % 4], r.y[k] = q.y[(first + k) % 4];
  return r;
}

// torchvision's _order_bounding_boxes_points: the corner with the smallest y / max|y| + 100 x / max|x|,
// i.e. the leftmost one unless another is almost as far left and clearly higher. The first minimum wins
// and a NaN score counts as the minimum (torch.min), as for a box of zeros.
int first_corner(const Quad& q) {
  double x_max = 0, y_max = 0;
  for (int k = 0; k < 4; ++k) x_max = std::max(x_max, std::fabs(q.x[k])), y_max = std::max(y_max, std::fabs(q.y[k]));
  int best = 0;
  double best_score = 0;
  for (int k = 0; k < 4; ++k) {
    const double score = q.y[k] / y_max + (q.x[k] / x_max) * 100;
    if (std::isnan(score)) return k;
    if (k == 0 || score < best_score) best = k, best_score = score;
  }
  return best;
}

// Slope a and intercept b of side k, the line through corners k and k + 1 (infinite or NaN for a
// vertical side, as in torchvision).
struct Lines {
  std::array<double, 4> a, b;
};

Lines lines_of(const Quad& q) {
  Lines l;
  for (int k = 0; k < 4; ++k) {
    const int n = (k + 1) % 4;
    l.a[k] = (q.y[n] - q.y[k]) / (q.x[n] - q.x[k]);
    l.b[k] = q.y[k] - l.a[k] * q.x[k];
  }
  return l;
}

// torchvision's _clamp_y_intercept: new intercepts of the four sides against the left edge. Sides 0 and
// 3 meet at the first corner; kSoft lets each of them slide only as far as the canvas [0, height] at
// x = 0 and the neighbouring sides allow, kHard also pulls both to their mean and moves sides 1 and 2
// in until the box fits the canvas. All end within the original box's intercept ranges.
std::array<double, 4> clamp_intercepts(const Lines& l, const Lines& original, double height, double width,
                                       Clamping mode) {
  const auto& [a1, a2, a3, a4] = l.a;
  const auto& [b1, b2, b3, b4] = l.b;
  const auto& [b1m, b2m, b3m, b4m] = original.b;
  double n1 = clamp_nan(clamp_nan(b2, b1, b3), 0, height);
  double n4 = clamp_nan(clamp_nan(b3, b2, b4), 0, height);
  double n2 = b2, n3 = b3;
  if (mode == Clamping::kHard) {
    const double mean = (n1 + n4) / 2;
    // The largest b2 the constraints at y = 0 and x = width allow, but not beyond the current one.
    n2 = min_nan(
        max_nan(max_nan(mean * a2 / a1, b3 * a2 / a3), max_nan((a1 - a2) * width + mean, (a3 - a2) * width + b3)), b2);
    // The smallest b3 the constraints at y = height and x = width allow, but not below the current one.
    n3 = max_nan(min_nan(min_nan(height * (1 - a3 / a4) + mean * a3 / a4, height * (1 - a3 / a2) + n2 * a3 / a2),
                         min_nan((a2 - a3) * width + n2, (a4 - a3) * width + mean)),
                 b3);
    // torchvision clamps the one tensor shared by b1 and b4 twice, to both ranges.
    n1 = n4 = clamp_nan(clamp_nan(mean, b1m, b3m), b2m, b4m);
  } else {
    n1 = clamp_nan(n1, b1m, b3m);
    n4 = clamp_nan(n4, b2m, b4m);
  }
  n3 = clamp_nan(n3, b1m, b3m);
  n2 = clamp_nan(n2, b2m, b4m);
  return {n1, n2, n3, n4};
}

// torchvision's _clamp_along_y_axis: one box (corners starting at its first corner) against x = 0.
Quad clamp_left(const Quad& q, const Quad& original, double height, double width, Clamping mode) {
  const Lines l = lines_of(q);
  const std::array<double, 4> b = clamp_intercepts(l, lines_of(original), height, width, mode);
  // Corner k where side k - 1 meets side k after the intercepts moved.
  Quad met;
  bool any_nan = false;
  for (int k = 0; k < 4; ++k) {
    const int p = (k + 3) % 4;
    met.x[k] = -(b[k] - b[p]) / (l.a[k] - l.a[p]);
    met.y[k] = l.a[k] * met.x[k] + b[k];
    any_nan = any_nan || std::isnan(met.x[k]) || std::isnan(met.y[k]);
  }
  const auto& x = q.x;
  const auto& y = q.y;
  // Axis-aligned sides: only the corners on the left side move, onto x = 0.
  const bool level = is_close(y[0], y[1]) || is_close(y[2], y[3]);
  // Entirely left of the canvas, or a level side where the corner order puts none (axis-aligned corners
  // listed clockwise, zero-size boxes): torchvision zeroes the box, and later turns keep it one point.
  const bool collapse = (x[0] <= 0 && x[1] <= 0 && x[2] <= 0 && x[3] <= 0) || is_close(y[0], y[3]) ||
                        is_close(y[1], y[2]) || (level && is_close(x[0], x[1]));
  if (collapse) return Quad{};
  if (level) {
    Quad r = q;
    r.x[0] = max_nan(r.x[0], 0);
    r.x[3] = max_nan(r.x[3], 0);
    return r;
  }
  if (x[0] < 0 && !any_nan) return met;
  return q;
}

void clamp_rotated_box(double* v, Size canvas, Clamping mode) {
  Quad box = quad_from(v), original = box;
  double height = static_cast<double>(canvas.height), width = static_cast<double>(canvas.width);
  for (int turn = 0; turn < 4; ++turn) {
    const int first = first_corner(box);
    box = shifted(box, first);
    original = shifted(original, first);
    box = clamp_left(box, original, height, width, mode);
    box = shifted(box, first);  // torchvision applies the same shift again rather than undoing it
    original = shifted(original, first);
    for (Quad* q : {&box, &original}) {
      for (int k = 0; k < 4; ++k) q->x[k] = std::exchange(q->y[k], width - q->x[k]);
    }
    std::swap(height, width);
  }
  for (int k = 0; k < 4; ++k) v[2 * k] = box.x[k], v[2 * k + 1] = box.y[k];
}

void clamp_axis_aligned_box(double* xyxy, Size canvas) {
  const auto w = static_cast<double>(canvas.width), h = static_cast<double>(canvas.height);
  xyxy[0] = clamp_nan(xyxy[0], 0, w);
  xyxy[2] = clamp_nan(xyxy[2], 0, w);
  xyxy[1] = clamp_nan(xyxy[1], 0, h);
  xyxy[3] = clamp_nan(xyxy[3], 0, h);
}

}  // namespace

Tensor clamp_boxes(const Tensor& boxes, BoxFormat format, Size canvas, Clamping mode) {
  detail::check_box_tensor(boxes, format, "bounding boxes");
  detail::check_canvas(canvas, "bounding boxes");
  if (mode == Clamping::kNone) return boxes.clone();
  const bool rotated = is_rotated(format);
  const BoxFormat work = rotated ? BoxFormat::kXYXYXYXY : BoxFormat::kXYXY;
  const int k = values_per_box(format);
  std::vector<double> values = detail::to_doubles(boxes);
  for (int64_t i = 0; i < boxes.size(0); ++i) {
    double* box = &values[static_cast<size_t>(i * k)];
    double corners[detail::kMaxBoxValues];
    detail::convert_box(box, format, corners, work);
    if (rotated) {
      clamp_rotated_box(corners, canvas, mode);
    } else {
      clamp_axis_aligned_box(corners, canvas);
    }
    detail::convert_box(corners, work, box, format);
  }
  return detail::from_doubles(values, boxes.shape(), boxes.dtype());
}

BoundingBoxes clamp_boxes(const BoundingBoxes& boxes) {
  validate(boxes);
  BoundingBoxes out = boxes;
  out.data = clamp_boxes(boxes.data, boxes.format, boxes.canvas, boxes.clamping);
  return out;
}

KeyPoints clamp_keypoints(const KeyPoints& points) {
  validate(points);
  std::vector<double> values = detail::to_doubles(points.data);
  const auto x_max = static_cast<double>(points.canvas.width - 1),
             y_max = static_cast<double>(points.canvas.height - 1);
  for (size_t i = 0; i + 1 < values.size(); i += 2) {
    values[i] = clamp_nan(values[i], 0, x_max);
    values[i + 1] = clamp_nan(values[i + 1], 0, y_max);
  }
  KeyPoints out = points;
  out.data = detail::from_doubles(values, points.data.shape(), points.data.dtype());
  return out;
}

}  // namespace loom::transforms
