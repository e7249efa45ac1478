#include "geometry/geometry_annotations.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "boxes/box_geometry.h"
#include "loom/codec/error.h"

namespace loom::transforms::detail {
namespace {

constexpr double kDegree = std::numbers::pi / 180.0;

// A float64 view of the boxes (a converted copy for float32).
Tensor as_float64(const Tensor& t) {
  return t.dtype() == DType::kFloat64 ? t : from_doubles(to_doubles(t), t.shape(), DType::kFloat64);
}

BoxFormat intermediate_format(BoxFormat format) {
  return is_rotated(format) ? BoxFormat::kXYXYXYXY : BoxFormat::kXYXY;
}

// The boxes in XYXY (axis-aligned) or XYXYXYXY (rotated), as doubles.
std::vector<double> intermediate_values(const BoundingBoxes& b) {
  return to_doubles(convert_box_format(as_float64(b.data), b.format, intermediate_format(b.format)));
}

// Boxes from intermediate values: clamped on `canvas` with the boxes' mode, in their own format and dtype.
BoundingBoxes from_intermediate(const std::vector<double>& v, const BoundingBoxes& like, Size canvas, bool clamp) {
  const BoxFormat inter = intermediate_format(like.format);
  const int64_t k = values_per_box(inter);
  const int64_t shape[2] = {static_cast<int64_t>(v.size()) / k, k};
  Tensor t = from_doubles(v, shape, DType::kFloat64);
  if (clamp) t = clamp_boxes(t, inter, canvas, like.clamping);
  t = convert_box_format(t, inter, like.format);
  BoundingBoxes out = like;
  out.data = from_doubles(to_doubles(t), t.shape(), like.data.dtype());
  out.canvas = canvas;
  return out;
}

// The rectangle closest to a parallelogram, keeping the two corners of its longest diagonal
// (torchvision's _parallelogram_to_bounding_boxes): a rotation or shear of a rectangle stays a box.
void parallelogram_to_rectangle(double* p) {
  const double x1 = p[0], y1 = p[1], x2 = p[2], y2 = p[3], x3 = p[4], y3 = p[5], x4 = p[6], y4 = p[7];
  const double cx = (x1 + x3) / 2, cy = (y1 + y3) / 2;
  const double wp = std::hypot(x2 - x1, y2 - y1), hp = std::hypot(x4 - x1, y4 - y1);
  const double r12 = std::atan2(y1 - y2, x2 - x1), r14 = std::atan2(y1 - y4, x4 - x1);
  double r = r12 - r14;
  const double sign = r > std::numbers::pi / 2 ? -1.0 : 1.0;
  const double w = wp < hp ? wp * std::sin(r) : wp + hp * std::cos(r) * sign;
  const double h = wp > hp ? hp * std::sin(r) : hp + wp * std::cos(r) * sign;
  r = hp > wp ? r14 + std::numbers::pi / 2 : r12;
  const double c = std::cos(r), s = std::sin(r);
  const double out[8] = {cx - w / 2 * c - h / 2 * s, cy - h / 2 * c + w / 2 * s, cx + w / 2 * c - h / 2 * s,
                         cy - h / 2 * c - w / 2 * s, cx + w / 2 * c + h / 2 * s, cy + h / 2 * c - w / 2 * s,
                         cx - w / 2 * c + h / 2 * s, cy + h / 2 * c + w / 2 * s};
  std::copy(out, out + 8, p);
}

KeyPoints with_values(const KeyPoints& like, const std::vector<double>& v, Size canvas) {
  KeyPoints out = like;
  out.data = from_doubles(v, like.data.shape(), like.data.dtype());
  out.canvas = canvas;
  return out;
}

// Applies f(x, y) to every (x, y) pair of a keypoint tensor.
template <typename F>
KeyPoints map_pairs(const KeyPoints& points, Size canvas, F&& f) {
  validate(points);
  std::vector<double> v = to_doubles(points.data);
  for (size_t i = 0; i + 1 < v.size(); i += 2) f(v[i], v[i + 1]);
  return with_values(points, v, canvas);
}

BoundingBoxes flip_boxes(const BoundingBoxes& boxes, bool horizontal) {
  validate(boxes);
  std::vector<double> v = to_doubles(boxes.data);
  const int k = values_per_box(boxes.format);
  // x and y swap roles between the two flips; `extent` is the flipped axis' canvas size.
  const int a = horizontal ? 0 : 1;
  const double extent = static_cast<double>(horizontal ? boxes.canvas.width : boxes.canvas.height);
  for (size_t row = 0; row < v.size(); row += k) {
    double* b = &v[row];
    switch (boxes.format) {
      case BoxFormat::kXYXY: {
        const double lo = b[a];
        b[a] = extent - b[a + 2];
        b[a + 2] = extent - lo;
        break;
      }
      case BoxFormat::kXYWH: b[a] = extent - (b[a] + b[a + 2]); break;
      case BoxFormat::kCXCYWH: b[a] = extent - b[a]; break;
      case BoxFormat::kXYXYXYXY: {
        // Mirror every corner, then swap corners 1<->2 and 3<->4 to keep the winding.
        for (int c = a; c < 8; c += 2) b[c] = extent - b[c];
        std::swap(b[0], b[2]), std::swap(b[1], b[3]), std::swap(b[4], b[6]), std::swap(b[5], b[7]);
        break;
      }
      case BoxFormat::kXYWHR: {
        // The mirrored first corner is the image of the box's second corner.
        const double r = b[4] * kDegree;
        if (horizontal) {
          b[0] = extent - (b[0] + b[2] * std::cos(r));
          b[1] = b[1] - b[2] * std::sin(r);
          b[4] = -b[4];
        } else {
          b[1] = extent - (b[1] - b[2] * std::sin(r));
          b[0] = b[0] + b[2] * std::cos(r);
          b[4] = 180.0 - b[4];
        }
        break;
      }
      case BoxFormat::kCXCYWHR:
        b[a] = extent - b[a];
        b[4] = horizontal ? -b[4] : 180.0 - b[4];
        break;
    }
  }
  BoundingBoxes out = boxes;
  out.data = from_doubles(v, boxes.data.shape(), boxes.data.dtype());
  return out;
}

}  // namespace

AffineMatrix affine_matrix(Point center, double angle, Point translate, double scale, Point shear, bool inverted) {
  const double rot = angle * kDegree, sx = shear.x * kDegree, sy = shear.y * kDegree;
  // Rotation-shear without scale: [[a, b], [c, d]] with determinant 1.
  const double a = std::cos(rot - sy) / std::cos(sy);
  const double b = -(a * std::tan(sx) + std::sin(rot));
  const double c = std::sin(rot - sy) / std::cos(sy);
  const double d = std::cos(rot) - c * std::tan(sx);
  const double tx = center.x + translate.x, ty = center.y + translate.y;
  AffineMatrix m;
  if (inverted) {
    m = {d / scale, -b / scale, 0.0, -c / scale, a / scale, 0.0};
    m[2] = center.x - m[0] * tx - m[1] * ty;
    m[5] = center.y - m[3] * tx - m[4] * ty;
  } else {
    m = {a * scale, b * scale, 0.0, c * scale, d * scale, 0.0};
    m[2] = tx - m[0] * center.x - m[1] * center.y;
    m[5] = ty - m[3] * center.x - m[4] * center.y;
  }
  return m;
}

Size affine_expanded_size(const AffineMatrix& m, Size input) {
  const double hw = 0.5 * static_cast<double>(input.width), hh = 0.5 * static_cast<double>(input.height);
  double min_x = INFINITY, max_x = -INFINITY, min_y = INFINITY, max_y = -INFINITY;
  for (const auto& [x, y] : {std::pair{-hw, -hh}, {-hw, hh}, {hw, hh}, {hw, -hh}}) {
    // torchvision evaluates this in float32; so does loom, for the same sizes at the 1e-4 edges.
    const float nx = static_cast<float>(m[0]) * static_cast<float>(x) +
                     static_cast<float>(m[1]) * static_cast<float>(y) + static_cast<float>(m[2]);
    const float ny = static_cast<float>(m[3]) * static_cast<float>(x) +
                     static_cast<float>(m[4]) * static_cast<float>(y) + static_cast<float>(m[5]);
    min_x = std::min<double>(min_x, nx), max_x = std::max<double>(max_x, nx);
    min_y = std::min<double>(min_y, ny), max_y = std::max<double>(max_y, ny);
  }
  // Shift to [0, w] x [0, h] and cut the precision to 1e-4 so that 1e-15 noise does not add a pixel.
  auto truncated = [](double v) {
    return static_cast<double>(static_cast<float>(std::trunc(static_cast<float>(v) * 1e4f) * 1e-4f));
  };
  const double w = std::ceil(truncated(max_x + hw)) - std::floor(truncated(min_x + hw));
  const double h = std::ceil(truncated(max_y + hh)) - std::floor(truncated(min_y + hh));
  return {static_cast<int64_t>(h), static_cast<int64_t>(w)};
}

std::array<double, 8> perspective_coefficients(const std::array<Point, 4>& startpoints,
                                               const std::array<Point, 4>& endpoints) {
  // Rows: for each corner pair, x_start = (a x + b y + c) / (g x + h y + 1), same for y, linearized.
  double m[8][9] = {};
  for (int i = 0; i < 4; ++i) {
    const Point e = endpoints[i], s = startpoints[i];
    const double rx[9] = {e.x, e.y, 1, 0, 0, 0, -s.x * e.x, -s.x * e.y, s.x};
    const double ry[9] = {0, 0, 0, e.x, e.y, 1, -s.y * e.x, -s.y * e.y, s.y};
    std::copy(rx, rx + 9, m[2 * i]);
    std::copy(ry, ry + 9, m[2 * i + 1]);
  }
  // Gaussian elimination with partial pivoting.
  for (int col = 0; col < 8; ++col) {
    int pivot = col;
    for (int r = col + 1; r < 8; ++r) {
      if (std::fabs(m[r][col]) > std::fabs(m[pivot][col])) pivot = r;
    }
    if (std::fabs(m[pivot][col]) < 1e-12) {
      throw Error(ErrorCode::kInvalidInput, "perspective", "the corner points are degenerate (three in a line)");
    }
    std::swap(m[col], m[pivot]);
    for (int r = 0; r < 8; ++r) {
      if (r == col) continue;
      const double f = m[r][col] / m[col][col];
      for (int c = col; c < 9; ++c) m[r][c] -= f * m[col][c];
    }
  }
  std::array<double, 8> coeffs;
  for (int i = 0; i < 8; ++i) coeffs[i] = static_cast<float>(m[i][8] / m[i][i]);
  return coeffs;
}

BoundingBoxes horizontal_flip_boxes(const BoundingBoxes& boxes) {
  return flip_boxes(boxes, true);
}
BoundingBoxes vertical_flip_boxes(const BoundingBoxes& boxes) {
  return flip_boxes(boxes, false);
}

KeyPoints horizontal_flip_keypoints(const KeyPoints& points) {
  const double last = static_cast<double>(points.canvas.width - 1);
  return map_pairs(points, points.canvas, [&](double& x, double&) { x = last - x; });
}

KeyPoints vertical_flip_keypoints(const KeyPoints& points) {
  const double last = static_cast<double>(points.canvas.height - 1);
  return map_pairs(points, points.canvas, [&](double&, double& y) { y = last - y; });
}

BoundingBoxes translate_boxes(const BoundingBoxes& boxes, double dx, double dy, Size canvas, bool rectify_polygons) {
  validate(boxes);
  std::vector<double> v = to_doubles(boxes.data);
  const int k = values_per_box(boxes.format);
  for (size_t row = 0; row < v.size(); row += k) {
    double* b = &v[row];
    b[0] += dx, b[1] += dy;  // every format starts with a point
    if (boxes.format == BoxFormat::kXYXY) b[2] += dx, b[3] += dy;
    if (boxes.format == BoxFormat::kXYXYXYXY) {
      for (int c = 2; c < 8; c += 2) b[c] += dx, b[c + 1] += dy;
      if (rectify_polygons) parallelogram_to_rectangle(b);
    }
  }
  BoundingBoxes moved = boxes;
  moved.data = from_doubles(v, boxes.data.shape(), boxes.data.dtype());
  moved.canvas = canvas;
  return clamp_boxes(moved);
}

KeyPoints translate_keypoints(const KeyPoints& points, double dx, double dy, Size canvas) {
  return map_pairs(points, canvas, [&](double& x, double& y) { x += dx, y += dy; });
}

BoundingBoxes resize_boxes(const BoundingBoxes& boxes, Size size) {
  validate(boxes);
  if (size == boxes.canvas) return boxes;
  const double rx = static_cast<double>(size.width) / static_cast<double>(boxes.canvas.width);
  const double ry = static_cast<double>(size.height) / static_cast<double>(boxes.canvas.height);
  if (!is_rotated(boxes.format)) {
    std::vector<double> v = to_doubles(boxes.data);
    for (size_t i = 0; i < v.size(); ++i) v[i] *= (i % 2 == 0) ? rx : ry;  // x, y, x/w, y/h alternate
    BoundingBoxes out = boxes;
    out.data = from_doubles(v, boxes.data.shape(), boxes.data.dtype());
    out.canvas = size;
    return out;
  }
  std::vector<double> v = intermediate_values(boxes);
  for (size_t i = 0; i < v.size(); ++i) v[i] *= (i % 2 == 0) ? rx : ry;
  for (size_t row = 0; row < v.size(); row += 8) parallelogram_to_rectangle(&v[row]);
  return from_intermediate(v, boxes, size, true);
}

KeyPoints resize_keypoints(const KeyPoints& points, Size size) {
  const double rx = static_cast<double>(size.width) / static_cast<double>(points.canvas.width);
  const double ry = static_cast<double>(size.height) / static_cast<double>(points.canvas.height);
  return map_pairs(points, size, [&](double& x, double& y) { x *= rx, y *= ry; });
}

BoundingBoxes map_boxes(const BoundingBoxes& boxes, const PointMap& map, Point shift, Size canvas) {
  validate(boxes);
  const std::vector<double> in = intermediate_values(boxes);
  std::vector<double> out;
  out.reserve(in.size());
  if (is_rotated(boxes.format)) {
    for (size_t row = 0; row < in.size(); row += 8) {
      double p[8];
      for (int c = 0; c < 8; c += 2) {
        const Point q = map({in[row + c], in[row + c + 1]});
        p[c] = q.x - shift.x, p[c + 1] = q.y - shift.y;
      }
      parallelogram_to_rectangle(p);
      out.insert(out.end(), p, p + 8);
    }
  } else {
    for (size_t row = 0; row < in.size(); row += 4) {
      const double* b = &in[row];
      double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
      for (const Point corner : {Point{b[0], b[1]}, Point{b[2], b[1]}, Point{b[2], b[3]}, Point{b[0], b[3]}}) {
        const Point q = map(corner);
        x0 = std::min(x0, q.x), y0 = std::min(y0, q.y), x1 = std::max(x1, q.x), y1 = std::max(y1, q.y);
      }
      out.insert(out.end(), {x0 - shift.x, y0 - shift.y, x1 - shift.x, y1 - shift.y});
    }
  }
  return from_intermediate(out, boxes, canvas, true);
}

KeyPoints map_keypoints(const KeyPoints& points, const PointMap& map, Point shift, Size canvas) {
  return map_pairs(points, canvas, [&](double& x, double& y) {
    const Point q = map({x, y});
    x = q.x - shift.x, y = q.y - shift.y;
  });
}

}  // namespace loom::transforms::detail
