// draw_bounding_boxes: torchvision.utils.draw_bounding_boxes through Pillow-compatible rasterizers,
// with FreeType labels.
#include <fmt/format.h>

#include <cmath>
#include <optional>

#include "font.h"
#include "loom/codec/error.h"
#include "loom/vision/draw.h"
#include "raster.h"

namespace loom::vision {
namespace {

constexpr const char* kWho = "draw_bounding_boxes";
constexpr uint8_t kFillAlpha = 100;  // torchvision's fill opacity

// torchvision's rotated-box outline: the first edge dashed (5 on, 5 off, measured along the edge in
// double precision and drawn as line pieces), then the three other edges solid.
void dashed_line(detail::Canvas& canvas, detail::Point a, detail::Point b, int width, Color color) {
  double x1 = static_cast<double>(a.x), y1 = static_cast<double>(a.y);
  const double x2 = static_cast<double>(b.x), y2 = static_cast<double>(b.y);
  double remaining = std::sqrt((x2 - x1) * (x2 - x1) + (y2 - y1) * (y2 - y1));
  bool dash = true;
  while (remaining > 0) {
    const double step = std::min(remaining, 5.0);
    const double angle = std::atan2(y2 - y1, x2 - x1);
    const double end_x = x1 + std::cos(angle) * step, end_y = y1 + std::sin(angle) * step;
    if (dash) {
      // Pillow truncates float coordinates toward zero.
      canvas.draw_line({static_cast<int64_t>(x1), static_cast<int64_t>(y1)},
                       {static_cast<int64_t>(end_x), static_cast<int64_t>(end_y)}, width, color);
    }
    remaining -= step;
    x1 = end_x;
    y1 = end_y;
    dash = !dash;
  }
}

}  // namespace

std::vector<Color> generate_color_palette(int count) {
  std::vector<Color> out;
  for (int64_t i = 0; i < count; ++i) {
    out.push_back({static_cast<uint8_t>(i * ((int64_t{1} << 25) - 1) % 255),
                   static_cast<uint8_t>(i * ((int64_t{1} << 15) - 1) % 255),
                   static_cast<uint8_t>(i * ((int64_t{1} << 21) - 1) % 255)});
  }
  return out;
}

Tensor draw_bounding_boxes(const Tensor& image, const Tensor& boxes, const BoxDrawOptions& opt) {
  detail::check_image(image, kWho);
  if (!boxes.defined() || boxes.ndim() != 2 || (boxes.size(1) != 4 && boxes.size(1) != 8)) {
    throw Error(
        ErrorCode::kInvalidInput, kWho,
        fmt::format("boxes must be [N, 4] (x1, y1, x2, y2) or [N, 8] (four corners), got {} dimensions{}",
                    boxes.defined() ? boxes.ndim() : 0,
                    boxes.defined() && boxes.ndim() == 2 ? fmt::format(" of [{}, {}]", boxes.size(0), boxes.size(1))
                                                         : std::string()));
  }
  if (opt.width < 0 || opt.width > 10000) {
    throw Error(ErrorCode::kInvalidInput, kWho, fmt::format("width {} is outside 0..10000", opt.width));
  }
  const int64_t n = boxes.size(0);
  const bool rotated = boxes.size(1) == 8;
  if (!opt.labels.empty() && static_cast<int64_t>(opt.labels.size()) != n) {
    throw Error(ErrorCode::kInvalidInput, kWho,
                fmt::format("{} labels for {} boxes: give one per box", opt.labels.size(), n));
  }
  if (opt.font_size < 1 || opt.font_size > 1000) {
    throw Error(ErrorCode::kInvalidInput, kWho, fmt::format("font size {} is outside 1..1000", opt.font_size));
  }
  const std::vector<Color> colors =
      detail::resolve_colors(opt.colors, generate_color_palette(static_cast<int>(n)), n, kWho, "colors");
  const std::vector<Color> label_colors = detail::resolve_colors(
      opt.label_colors, opt.fill_labels ? std::vector<Color>(n, Color{0, 0, 0}) : colors, n, kWho, "label colors");
  const std::vector<Color> label_backgrounds =
      detail::resolve_colors(opt.label_background_colors, colors, n, kWho, "label background colors");

  // Validate the corners on the given values (before truncation), as torchvision does.
  const std::vector<int64_t> xy = detail::read_coordinates(boxes, kWho, "boxes");
  if (!rotated) {
    const Tensor as_double = boxes.contiguous();
    for (int64_t i = 0; i < n; ++i) {
      double v[4];
      for (int k = 0; k < 4; ++k) {
        switch (as_double.dtype()) {
          case DType::kFloat32: v[k] = as_double.data<float>()[i * 4 + k]; break;
          case DType::kFloat64: v[k] = as_double.data<double>()[i * 4 + k]; break;
          default: v[k] = static_cast<double>(xy[static_cast<size_t>(i * 4 + k)]);
        }
      }
      if (v[0] > v[2] || v[1] > v[3]) {
        throw Error(ErrorCode::kInvalidInput, kWho,
                    fmt::format("box {} is ({}, {}, {}, {}): boxes must be (x1, y1, x2, y2) with x1 <= x2 and y1 <= y2",
                                i, v[0], v[1], v[2], v[3]));
      }
    }
  }

  bool any_label = false;
  for (const std::string& label : opt.labels) any_label |= !label.empty();
  std::optional<detail::Font> font;
  if (any_label) font.emplace(opt.font, opt.font_size);

  detail::Canvas canvas(image);
  canvas.set_blend(opt.fill);  // Pillow's "RGBA" drawing mode, as torchvision uses for fill=True
  for (int64_t i = 0; i < n; ++i) {
    const int64_t* b = xy.data() + i * boxes.size(1);
    const Color color = colors[static_cast<size_t>(i)];
    if (rotated) {
      const detail::Point corners[4] = {{b[0], b[1]}, {b[2], b[3]}, {b[4], b[5]}, {b[6], b[7]}};
      if (opt.width > 0) {  // Pillow >= 10 (under torchvision 0.23+) draws no line of width 0
        dashed_line(canvas, corners[0], corners[1], opt.width, color);
        for (int k = 1; k < 4; ++k) canvas.draw_line(corners[k], corners[(k + 1) % 4], opt.width, color);
      }
      if (opt.fill) canvas.fill_polygon(corners, color, kFillAlpha);
    } else {
      if (opt.fill) canvas.fill_rectangle(b[0], b[1], b[2], b[3], color, kFillAlpha);
      if (opt.width > 0) canvas.outline_rectangle(b[0], b[1], b[2], b[3], opt.width, color);
    }
    if (!opt.labels.empty() && !opt.labels[static_cast<size_t>(i)].empty()) {
      const std::string& label = opt.labels[static_cast<size_t>(i)];
      const int64_t margin = opt.width + 1;
      const int64_t x = b[0] + margin, y = b[1] + margin;
      if (opt.fill_labels) {
        const detail::PixelBox ink = font->ink_box(label, x, y);
        if (!ink.empty()) {
          canvas.set_blend(false);
          canvas.fill_rectangle(ink.left - 1, ink.top - 1, ink.right + 1, ink.bottom + 1,
                                label_backgrounds[static_cast<size_t>(i)]);
          canvas.set_blend(opt.fill);
        }
      }
      font->draw(canvas, label, x, y, label_colors[static_cast<size_t>(i)]);
    }
  }
  return canvas.to_tensor();
}

}  // namespace loom::vision
