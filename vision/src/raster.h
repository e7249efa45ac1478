// Private: an RGB canvas and the shape rasterizers the drawing utilities use, written to reproduce the
// pixels of Pillow's ImageDraw (which torchvision.utils draws through): integer coordinates, scan-line
// polygons with Pillow's edge rounding, Bresenham lines without their end point, wide lines as
// four-sided polygons, and Pillow's integer ellipse on a doubled grid.
//
// Layout: pixels are H x W x 3 uint8, row-major, owned by the canvas. Every primitive clips to the
// canvas; coordinates may lie anywhere in +-2^30. Not thread-safe: one canvas per call.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "loom/codec/tensor.h"
#include "loom/vision/draw.h"

namespace loom::vision::detail {

// Pillow's blend of `fg` over `bg` with coverage `alpha` 0..255, rounded as its DIV255.
inline uint8_t blend(uint8_t alpha, uint8_t bg, uint8_t fg) {
  const unsigned t = bg * (255u - alpha) + fg * unsigned(alpha) + 128u;
  return static_cast<uint8_t>(((t >> 8) + t) >> 8);
}

struct Point {
  int64_t x = 0, y = 0;
};

class Canvas {
 public:
  // A copy of a uint8 C x H x W image (C = 1 or 3; gray is repeated to RGB). The caller validated it.
  explicit Canvas(const Tensor& chw);

  int64_t width() const { return width_; }
  int64_t height() const { return height_; }
  uint8_t* pixel(int64_t x, int64_t y) { return pixels_.data() + (y * width_ + x) * 3; }

  // Pillow's ImageDraw "RGBA" mode on an RGB image: every primitive blends its color with `alpha`
  // (also changes how polygons treat horizontal edges, as Pillow does). Off: colors are written.
  void set_blend(bool on) { blend_ = on; }

  // The pixels as a new contiguous 3 x H x W uint8 tensor.
  Tensor to_tensor() const;

  // One pixel, when inside.
  void point(int64_t x, int64_t y, Color c, uint8_t alpha = 255);
  // Pixels x0..x1 (inclusive) of row y; nothing when x0 > x1.
  void hline(int64_t x0, int64_t y, int64_t x1, Color c, uint8_t alpha = 255);
  // Pillow's one-pixel line: Bresenham from (x0, y0) toward (x1, y1), the end point excluded.
  void line(int64_t x0, int64_t y0, int64_t x1, int64_t y1, Color c, uint8_t alpha = 255);
  // ImageDraw.line([p0, p1], width): one pixel wide (end point included) for width <= 1, else a
  // polygon around the segment.
  void draw_line(Point p0, Point p1, int width, Color c, uint8_t alpha = 255);
  // ImageDraw.rectangle: filled (corners inclusive) or an outline `width` pixels wide inside the corners.
  void fill_rectangle(int64_t x0, int64_t y0, int64_t x1, int64_t y1, Color c, uint8_t alpha = 255);
  void outline_rectangle(int64_t x0, int64_t y0, int64_t x1, int64_t y1, int width, Color c, uint8_t alpha = 255);
  // ImageDraw.polygon(fill=...): the scan-line fill of a closed polygon.
  void fill_polygon(std::span<const Point> vertices, Color c, uint8_t alpha = 255);
  // ImageDraw.ellipse(fill=...): the filled ellipse inscribed in [x0, x1] x [y0, y1].
  void fill_ellipse(int64_t x0, int64_t y0, int64_t x1, int64_t y1, Color c, uint8_t alpha = 255);

 private:
  struct Edge;
  void polygon_edges(std::vector<Edge>& edges, Color c, uint8_t alpha);

  int64_t width_ = 0, height_ = 0;
  std::vector<uint8_t> pixels_;
  bool blend_ = false;
};

// Validates a drawing target: uint8, C x H x W, C = 1 or 3, CPU. Throws Error(kInvalidInput) naming `who`.
void check_image(const Tensor& image, const char* who);

// Reads an [N, D] (or, with keypoints, [N, K, 2]) tensor of float or integer coordinates as int64,
// truncated toward zero (torch's .to(int64)) and clamped to +-2^24. Non-finite values throw.
std::vector<int64_t> read_coordinates(const Tensor& values, const char* who, const char* what);

// Resolves a color list for `count` objects: empty -> `fallback`, one color -> repeated, else >= count.
std::vector<Color> resolve_colors(const std::vector<Color>& colors, const std::vector<Color>& fallback, int64_t count,
                                  const char* who, const char* what);

}  // namespace loom::vision::detail
