// Shape rasterizers with Pillow ImageDraw's pixel rules (see raster.h). The arithmetic mirrors Pillow's
// own, float where Pillow uses float, so that edges round the same way; this file is built with
// -ffp-contract=off so that no fused multiply-add changes a rounding.
#include "raster.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "loom/codec/error.h"

namespace loom::vision::detail {
namespace {

// Pillow's ROUND_UP / ROUND_DOWN: halves round away from / toward zero, symmetric around zero. With a
// float argument the positive branch adds in float and the negative branch in double, as in C.
template <typename T>
int64_t round_up(T f) {
  return f >= 0 ? static_cast<int64_t>(std::floor(static_cast<T>(f + static_cast<T>(0.5))))
                : -static_cast<int64_t>(std::floor(std::fabs(static_cast<double>(f)) + 0.5));
}
template <typename T>
int64_t round_down(T f) {
  return f >= 0 ? static_cast<int64_t>(std::ceil(static_cast<T>(f - static_cast<T>(0.5))))
                : -static_cast<int64_t>(std::ceil(std::fabs(static_cast<double>(f)) - 0.5));
}

constexpr double kCoordinateLimit = 16777216.0;  // 2^24

}  // namespace

// A polygon edge: its first vertex, bounds, and x step per row (float, as Pillow).
struct Canvas::Edge {
  int64_t x0 = 0, y0 = 0, xmin = 0, xmax = 0, ymin = 0, ymax = 0;
  float dx = 0;

  Edge(int64_t ax, int64_t ay, int64_t bx, int64_t by)
      : x0(ax), y0(ay), xmin(std::min(ax, bx)), xmax(std::max(ax, bx)), ymin(std::min(ay, by)), ymax(std::max(ay, by)) {
    if (ay != by) dx = static_cast<float>(bx - ax) / static_cast<float>(by - ay);
  }
  bool horizontal() const { return ymin == ymax; }
  float x_at(int64_t y) const { return static_cast<float>(y - y0) * dx + static_cast<float>(x0); }
};

Canvas::Canvas(const Tensor& chw)
    : width_(chw.size(2)), height_(chw.size(1)), pixels_(static_cast<size_t>(chw.size(1) * chw.size(2) * 3)) {
  const Tensor hwc = chw.permute({1, 2, 0}).contiguous();
  const uint8_t* src = hwc.data<uint8_t>();
  const int64_t n = width_ * height_;
  if (chw.size(0) == 3) {
    std::memcpy(pixels_.data(), src, pixels_.size());
  } else {
    for (int64_t i = 0; i < n; ++i) pixels_[i * 3] = pixels_[i * 3 + 1] = pixels_[i * 3 + 2] = src[i];
  }
}

Tensor Canvas::to_tensor() const {
  Tensor out = Tensor::empty({3, height_, width_}, DType::kUInt8);
  uint8_t* dst = out.data<uint8_t>();
  const int64_t n = width_ * height_;
  for (int c = 0; c < 3; ++c)
    for (int64_t i = 0; i < n; ++i) dst[c * n + i] = pixels_[i * 3 + c];
  return out;
}

void Canvas::point(int64_t x, int64_t y, Color c, uint8_t alpha) {
  if (x < 0 || y < 0 || x >= width_ || y >= height_) return;
  uint8_t* p = pixel(x, y);
  for (int k = 0; k < 3; ++k) p[k] = blend_ ? blend(alpha, p[k], c[k]) : c[k];
}

void Canvas::hline(int64_t x0, int64_t y, int64_t x1, Color c, uint8_t alpha) {
  if (y < 0 || y >= height_) return;
  x0 = std::max<int64_t>(x0, 0);
  x1 = std::min<int64_t>(x1, width_ - 1);
  for (int64_t x = x0; x <= x1; ++x) {
    uint8_t* p = pixel(x, y);
    for (int k = 0; k < 3; ++k) p[k] = blend_ ? blend(alpha, p[k], c[k]) : c[k];
  }
}

void Canvas::line(int64_t x0, int64_t y0, int64_t x1, int64_t y1, Color c, uint8_t alpha) {
  int64_t dx = x1 - x0, dy = y1 - y0;
  const int64_t xs = dx < 0 ? -1 : 1, ys = dy < 0 ? -1 : 1;
  dx = std::abs(dx);
  dy = std::abs(dy);
  if (dx == 0) {  // vertical: rows y0, y0 + ys, ... (dy of them), only those inside are visited
    if (x0 < 0 || x0 >= width_) return;
    const int64_t ya = ys > 0 ? y0 : y0 - dy + 1, yb = ys > 0 ? y0 + dy - 1 : y0;
    for (int64_t y = std::max<int64_t>(ya, 0); y <= std::min(yb, height_ - 1); ++y) point(x0, y, c, alpha);
    return;
  }
  if (dy == 0) {  // horizontal: dx pixels from x0
    if (xs > 0) {
      hline(x0, y0, x0 + dx - 1, c, alpha);
    } else {
      hline(x0 - dx + 1, y0, x0, c, alpha);
    }
    return;
  }
  // Bresenham along the major axis; the error term starts at 2 * minor - major.
  const bool x_major = dx > dy;
  const int64_t major = x_major ? dx : dy, minor = x_major ? dy : dx;
  int64_t e = 2 * minor - major;
  for (int64_t i = 0; i < major; ++i) {
    point(x0, y0, c, alpha);
    if (e >= 0) {
      if (x_major) {
        y0 += ys;
      } else {
        x0 += xs;
      }
      e -= 2 * major;
    }
    e += 2 * minor;
    if (x_major) {
      x0 += xs;
    } else {
      y0 += ys;
    }
  }
}

void Canvas::draw_line(Point p0, Point p1, int width, Color c, uint8_t alpha) {
  if (width <= 1) {
    line(p0.x, p0.y, p1.x, p1.y, c, alpha);
    point(p1.x, p1.y, c, alpha);
    return;
  }
  const int64_t dx = p1.x - p0.x, dy = p1.y - p0.y;
  if (dx == 0 && dy == 0) {
    point(p0.x, p0.y, c, alpha);
    return;
  }
  // A quadrilateral around the segment: (width - 1) / 2 to each side, split into a rounded-up and a
  // rounded-down half so that even widths come out exact.
  const double length = std::hypot(static_cast<double>(dx), static_cast<double>(dy));
  const double half = (width - 1) / 2.0;
  const double ratio_max = static_cast<double>(round_up(half)) / length;
  const double ratio_min = static_cast<double>(round_down(half)) / length;
  const int64_t dxmin = round_down(ratio_min * static_cast<double>(dy));
  const int64_t dxmax = round_down(ratio_max * static_cast<double>(dy));
  const int64_t dymin = round_down(ratio_min * static_cast<double>(dx));
  const int64_t dymax = round_down(ratio_max * static_cast<double>(dx));
  const Point v[4] = {{p0.x - dxmin, p0.y + dymax},
                      {p1.x - dxmin, p1.y + dymax},
                      {p1.x + dxmax, p1.y - dymin},
                      {p0.x + dxmax, p0.y - dymin}};
  std::vector<Edge> edges;
  for (int i = 0; i < 4; ++i) edges.emplace_back(v[i].x, v[i].y, v[(i + 1) % 4].x, v[(i + 1) % 4].y);
  polygon_edges(edges, c, alpha);
}

void Canvas::fill_rectangle(int64_t x0, int64_t y0, int64_t x1, int64_t y1, Color c, uint8_t alpha) {
  if (y0 > y1) std::swap(y0, y1);
  y0 = std::max<int64_t>(y0, 0);
  y1 = std::min<int64_t>(y1, height_ - 1);
  for (int64_t y = y0; y <= y1; ++y) hline(x0, y, x1, c, alpha);
}

void Canvas::outline_rectangle(int64_t x0, int64_t y0, int64_t x1, int64_t y1, int width, Color c, uint8_t alpha) {
  if (y0 > y1) std::swap(y0, y1);
  if (width == 0) width = 1;
  // Pillow's order: for each ring i, the top and bottom rows in full, then the right and left columns
  // between them (which, for a box thinner than 2 * width, may reach outside the box, as in Pillow).
  for (int i = 0; i < width; ++i) {
    hline(x0, y0 + i, x1, c, alpha);
    hline(x0, y1 - i, x1, c, alpha);
    line(x1 - i, y0 + width, x1 - i, y1 - width + 1, c, alpha);
    line(x0 + i, y0 + width, x0 + i, y1 - width + 1, c, alpha);
  }
}

void Canvas::polygon_edges(std::vector<Edge>& edges, Color c, uint8_t alpha) {
  if (edges.empty()) return;
  int64_t ymin = height_ - 1, ymax = 0;
  std::vector<const Edge*> table;
  for (const Edge& e : edges) {
    ymin = std::min(ymin, e.ymin);
    ymax = std::max(ymax, e.ymax);
    if (e.horizontal()) {
      // Horizontal edges are painted directly; when blending, inside the row walk below so that no
      // pixel blends twice.
      if (!blend_) hline(e.xmin, e.ymin, e.xmax, c, alpha);
      continue;
    }
    table.push_back(&e);
  }
  ymin = std::max<int64_t>(ymin, 0);
  ymax = std::min(ymax, height_);

  // With blending: paints the horizontal edges of row y that start at or after *x_pos, from *x_pos on.
  auto horizontal_edges = [&](int64_t y, int64_t* x_pos) {
    for (const Edge& e : edges) {
      if (!(e.horizontal() && e.ymin == y)) continue;
      int64_t from = e.xmin;
      if (*x_pos != -1 && *x_pos < from) continue;
      if (*x_pos > from) {
        from = *x_pos;
        if (e.xmax < from) continue;
      }
      hline(from, y, e.xmax, c, alpha);
      *x_pos = e.xmax + 1;
    }
  };

  std::vector<float> xs;
  for (int64_t y = ymin; y <= ymax; ++y) {
    xs.clear();
    for (size_t i = 0; i < table.size(); ++i) {
      const Edge& cur = *table[i];
      if (y < cur.ymin || y > cur.ymax) continue;
      xs.push_back(cur.x_at(y));
      if (y == cur.ymax && y < ymax) {
        xs.push_back(xs.back());  // an edge ending on this row counts twice: consistent joins
      } else if ((y == cur.ymin || y == cur.ymax) && cur.dx != 0) {
        // Two slanted edges meeting at a vertex on this row: move the crossing so that the corner
        // does not leave a gap toward the next (or, on the last row, previous) row.
        for (size_t k = 0; k < i; ++k) {
          const Edge& other = *table[k];
          if ((y != other.ymin && y != other.ymax) || other.dx == 0) continue;
          if (std::roundf(xs.back()) != std::roundf(other.x_at(y))) continue;
          const int64_t next = y + (y == cur.ymax ? -1 : 1);
          const float adjacent = cur.x_at(next);
          if (next < other.ymin || next > other.ymax) continue;
          const float adjacent_other = other.x_at(next);
          float& x = xs.back();
          if (x > adjacent + 1 && x > adjacent_other + 1) {
            x = std::roundf(std::max(adjacent, adjacent_other)) + 1;
          } else if (x < adjacent - 1 && x < adjacent_other - 1) {
            x = std::roundf(std::min(adjacent, adjacent_other)) - 1;
          }
          break;
        }
      }
    }
    std::sort(xs.begin(), xs.end());
    if (!blend_) {
      for (size_t i = 1; i < xs.size(); i += 2) hline(round_up(xs[i - 1]), y, round_down(xs[i]), c, alpha);
      continue;
    }
    int64_t x_pos = xs.empty() ? -1 : 0;  // first pixel of the row not painted yet
    for (size_t i = 1; i < xs.size(); i += 2) {
      const int64_t x_end = round_down(xs[i]);
      if (x_end < x_pos) continue;
      horizontal_edges(y, &x_pos);
      if (x_end < x_pos) continue;
      const int64_t x_start = std::max(round_up(xs[i - 1]), x_pos);
      if (x_end < x_start) continue;
      hline(x_start, y, x_end, c, alpha);
      x_pos = x_end + 1;
    }
    horizontal_edges(y, &x_pos);
  }
}

void Canvas::fill_polygon(std::span<const Point> v, Color c, uint8_t alpha) {
  if (v.empty()) return;
  std::vector<Edge> edges;
  const size_t n = v.size();
  for (size_t i = 0; i + 1 < n; ++i) {
    // A horizontal edge that continues the previous horizontal edge in the same direction extends it.
    if (i > 0 && v[i].y == v[i + 1].y && v[i].y == v[i - 1].y) {
      Edge& last = edges.back();
      if (v[i + 1].x > v[i].x && v[i].x > v[i - 1].x) {
        last.xmax = v[i + 1].x;
        continue;
      }
      if (v[i + 1].x < v[i].x && v[i].x < v[i - 1].x) {
        last.xmin = v[i + 1].x;
        continue;
      }
    }
    edges.emplace_back(v[i].x, v[i].y, v[i + 1].x, v[i + 1].y);
  }
  if (v[n - 1].x != v[0].x || v[n - 1].y != v[0].y) edges.emplace_back(v[n - 1].x, v[n - 1].y, v[0].x, v[0].y);
  polygon_edges(edges, c, alpha);
}

void Canvas::fill_ellipse(int64_t x0, int64_t y0, int64_t x1, int64_t y1, Color c, uint8_t alpha) {
  // Pillow's integer ellipse: on a grid of doubled coordinates centred on the ellipse, walk the
  // top-right quarter of the curve x^2/a^2 + y^2/b^2 = 1 (a, b the doubled semi-axes, i.e. the box's
  // width and height in pixels minus one) from (a, b % 2) up to (a % 2, b) in steps of 2, choosing
  // at each step the neighbour (up, up-left or left) whose |b^2 x^2 + a^2 y^2 - a^2 b^2| is smallest.
  // The first point of each row is that row's half-width; rows are mirrored to all four quarters.
  const int64_t a = x1 - x0, b = y1 - y0;
  if (a < 0 || b < 0 || a + b < 1) return;  // Pillow draws nothing for a one-pixel box
  const int64_t a2 = a * a, b2 = b * b, a2b2 = a2 * b2;
  auto deviation = [&](int64_t x, int64_t y) { return std::llabs(a2 * y * y + b2 * x * x - a2b2); };
  const int64_t left = a % 2;                      // the innermost doubled x of the filled span's right half
  auto paint_span = [&](int64_t row, int64_t r) {  // doubled row (either sign) with right end r
    const int64_t py = y0 + (row + b) / 2;
    if (left > 0 || left < r) hline(x0 + ((left == 0 ? 2 : left) + a) / 2, py, x0 + (r + a) / 2, c, alpha);
    hline(x0 + (-r + a) / 2, py, x0 + (-left + a) / 2, c, alpha);
  };
  auto paint_row = [&](int64_t y, int64_t r) {  // doubled row y >= 0, mirrored (the middle row once)
    paint_span(-y, r);
    if (y > 0) paint_span(y, r);
  };
  int64_t cx = a, cy = b % 2;
  int64_t row_y = cy, row_r = cx;
  while (true) {
    if (cx == left && cy == b) break;
    int64_t nx = cx, ny = cy + 2;
    int64_t best = deviation(nx, ny);
    if (cx > 1) {
      const int64_t diag = deviation(cx - 2, cy + 2);
      if (best > diag) nx = cx - 2, ny = cy + 2, best = diag;
      if (best > deviation(cx - 2, cy)) nx = cx - 2, ny = cy;
    }
    cx = nx;
    cy = ny;
    if (cy > row_y) {
      paint_row(row_y, row_r);
      row_y = cy;
      row_r = cx;
    }
  }
  paint_row(row_y, row_r);
}

void check_image(const Tensor& image, const char* who) {
  if (!image.defined()) throw Error(ErrorCode::kInvalidInput, who, "the image is undefined");
  if (!image.device().is_cpu()) throw Error(ErrorCode::kUnsupported, who, "needs a CPU image");
  if (image.dtype() != DType::kUInt8) {
    throw Error(ErrorCode::kInvalidInput, who,
                fmt::format("the image must be uint8, got {}", to_string(image.dtype())));
  }
  if (image.ndim() != 3) {
    throw Error(
        ErrorCode::kInvalidInput, who,
        fmt::format("the image must be C x H x W (3 dimensions), got {}; pass images one at a time", image.ndim()));
  }
  if (image.size(0) != 1 && image.size(0) != 3) {
    throw Error(ErrorCode::kInvalidInput, who,
                fmt::format("the image must have 1 or 3 channels, got {}", image.size(0)));
  }
}

std::vector<int64_t> read_coordinates(const Tensor& values, const char* who, const char* what) {
  if (!values.device().is_cpu()) throw Error(ErrorCode::kUnsupported, who, fmt::format("needs CPU {}", what));
  const Tensor t = values.contiguous();
  std::vector<int64_t> out(static_cast<size_t>(t.numel()));
  auto convert = [&](auto* p) {
    for (size_t i = 0; i < out.size(); ++i) {
      const double v = static_cast<double>(p[i]);
      if (!std::isfinite(v)) {
        throw Error(ErrorCode::kInvalidInput, who, fmt::format("{} hold a non-finite value", what));
      }
      out[i] = static_cast<int64_t>(std::clamp(std::trunc(v), -kCoordinateLimit, kCoordinateLimit));
    }
  };
  switch (t.dtype()) {
    case DType::kUInt8: convert(t.data<uint8_t>()); break;
    case DType::kInt16: convert(t.data<int16_t>()); break;
    case DType::kUInt16: convert(t.data<uint16_t>()); break;
    case DType::kInt32: convert(t.data<int32_t>()); break;
    case DType::kInt64: convert(t.data<int64_t>()); break;
    case DType::kFloat32: convert(t.data<float>()); break;
    case DType::kFloat64: convert(t.data<double>()); break;
    default:
      throw Error(ErrorCode::kInvalidInput, who,
                  fmt::format("{} must be float32, float64 or an integer dtype, got {}", what, to_string(t.dtype())));
  }
  return out;
}

std::vector<Color> resolve_colors(const std::vector<Color>& colors, const std::vector<Color>& fallback, int64_t count,
                                  const char* who, const char* what) {
  if (colors.empty()) return fallback;
  if (colors.size() == 1) return std::vector<Color>(static_cast<size_t>(count), colors[0]);
  if (static_cast<int64_t>(colors.size()) < count) {
    throw Error(ErrorCode::kInvalidInput, who,
                fmt::format("{} {} for {} objects: give one, or at least one per object", colors.size(), what, count));
  }
  return {colors.begin(), colors.begin() + count};
}

}  // namespace loom::vision::detail
