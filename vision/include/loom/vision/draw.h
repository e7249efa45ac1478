// Drawing utilities, compatible with torchvision.utils: bounding boxes (axis-aligned and rotated) with
// FreeType labels, keypoints with connectivity, segmentation masks, and image grids.
//
// Layout: images are uint8 tensors C x H x W with 1 (gray) or 3 (RGB) channels, any strides, on the CPU.
// The draw_* functions return a new contiguous uint8 3 x H x W tensor (a gray image is drawn on as RGB,
// as torchvision does for boxes) and never modify their input.
// Pixel rules: shapes are rasterized with Pillow's ImageDraw rules (what torchvision draws through):
// coordinates are truncated toward zero to integers, rectangles include both corners, fills blend with
// Pillow's rounding. Boxes, keypoints, masks and grids are pixel-identical with torchvision 0.14 on
// Pillow 9.4; rotated boxes with torchvision 0.24 (see docs/vision.md, "Drawing"). Label text is drawn
// with FreeType from a TrueType/OpenType file, not Pillow's built-in bitmap font.
// Errors: bad input (dtype, shape, counts, options) throws Error(kInvalidInput) naming the function; a
// font file that is missing or unreadable throws Error(kIo) naming the file, one that is not a font
// Error(kInvalidInput). Shapes partly or wholly outside the image are clipped.
// Thread safety: all functions are reentrant (each call opens its own FreeType library and face).
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "loom/codec/api.h"
#include "loom/codec/tensor.h"

LOOM_API_BEGIN

namespace loom::vision {

// An RGB color, components 0..255.
using Color = std::array<uint8_t, 3>;

// DejaVu Sans from Debian's fonts-dejavu-core.
inline constexpr const char* kDefaultFontPath = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

// torchvision's default colors for `count` objects: object i gets (i * (2^25-1, 2^15-1, 2^21-1)) % 255,
// the same deterministic palette torchvision generates when no colors are given.
std::vector<Color> generate_color_palette(int count);

struct BoxDrawOptions {
  // Outline (and fill) color per box: empty gives generate_color_palette(N); one color is used for every
  // box; otherwise at least N colors (extra ones are ignored, as torchvision).
  std::vector<Color> colors;
  // Fill the box with its color at opacity 100/255 (torchvision's fill=True), under the outline.
  bool fill = false;
  int width = 1;  // outline width in pixels, 0..10000; 0 draws no outline (as Pillow)
  // Text per box, drawn inside the box's top-left corner at (x1 + width + 1, y1 + width + 1); empty: no
  // labels; otherwise exactly N strings (UTF-8; an empty string draws nothing).
  std::vector<std::string> labels;
  // Text colors (same count rules as `colors`). Empty: the box colors, or black when fill_labels is set.
  std::vector<Color> label_colors;
  // Paint an opaque rectangle behind each label: the text's ink box grown by 1 pixel on every side.
  bool fill_labels = false;
  // Colors of those rectangles (same count rules as `colors`). Empty: the box colors.
  std::vector<Color> label_background_colors;
  // The font file (read only when there are labels) and its size in pixels (em height), 1..1000.
  // torchvision defaults to Pillow's built-in bitmap font; loom defaults to DejaVu Sans at 10 pixels,
  // torchvision's default size for a TrueType font.
  std::filesystem::path font = kDefaultFontPath;
  int font_size = 10;
};

// Draws `boxes` on `image`. Boxes: float32, float64 or an integer dtype, shape [N, 4] as (x1, y1, x2, y2)
// with x1 <= x2 and y1 <= y2 (pixel coordinates, both corners inclusive, as Pillow's rectangle), or
// [N, 8] as rotated boxes (x1, y1, ..., x4, y4): the four corners in order, drawn as torchvision 0.23+
// does: the first edge dashed (5 on, 5 off), the other three solid, and the fill as a polygon on top.
// Coordinates must be finite; values beyond +-2^24 are clamped. N may be 0 (the image is returned as RGB).
Tensor draw_bounding_boxes(const Tensor& image, const Tensor& boxes, const BoxDrawOptions& options = {});

struct KeypointDrawOptions {
  // Pairs of keypoint indices (0..K-1) joined by a line of `line_color` and `width` within each instance.
  std::vector<std::pair<int, int>> connectivity;
  // Color of the keypoint discs. torchvision draws no discs at all without a color (a Pillow quirk);
  // loom defaults to white instead.
  Color color = {255, 255, 255};
  // torchvision draws connections in Pillow's default ink, white, whatever `colors` says; loom lets you
  // choose and defaults to the same white.
  Color line_color = {255, 255, 255};
  int radius = 2;  // disc radius: the disc is Pillow's filled ellipse in [x-r, y-r, x+r, y+r]; 0..10000
  int width = 3;   // line width in pixels, 0..10000 (0 and 1 draw one-pixel lines)
  // Optional [N, K] (or [N, K, 1]) tensor of uint8 or any integer dtype: zero hides a keypoint and every
  // connection that touches it. Undefined: all keypoints are visible.
  Tensor visibility;
};

// Draws keypoints [N, K, 2] (x, y per keypoint; float32, float64 or an integer dtype; coordinates
// truncated to integers, finite, clamped to +-2^24) of N instances on `image`.
Tensor draw_keypoints(const Tensor& image, const Tensor& keypoints, const KeypointDrawOptions& options = {});

struct MaskDrawOptions {
  // Opacity of the masks, 0..1: out = image * (1 - alpha) + colored * alpha in float32, truncated to
  // uint8 (torchvision's formula and rounding).
  double alpha = 0.8;
  // Color per mask: empty gives generate_color_palette(N); one color is used for every mask; otherwise
  // at least N colors.
  std::vector<Color> colors;
};

// Draws boolean masks, [N, H, W] or [H, W] of uint8 (nonzero = inside; numpy/torch bool arrays are
// uint8 0/1), the image's height and width. Where masks overlap, the last one wins (torchvision 0.14;
// 0.24 paints overlaps black).
Tensor draw_segmentation_masks(const Tensor& image, const Tensor& masks, const MaskDrawOptions& options = {});

struct GridOptions {
  int nrow = 8;            // images per row, >= 1
  int padding = 2;         // pixels between and around images, >= 0
  double pad_value = 0.0;  // value of the padding, converted to the images' dtype as torch does
};

// torchvision.utils.make_grid: lays images out row by row, nrow per row, in a (C, rows * (H + padding) +
// padding, min(nrow, N) * (W + padding) + padding) tensor filled with pad_value. Images are C x H x W of
// one shape and dtype (uint8, int16, uint16, int32, int64, float32 or float64); one-channel images are
// repeated to three channels. A single image is returned alone, without padding (as torchvision).
Tensor make_grid(const std::vector<Tensor>& images, const GridOptions& options = {});
// Same for a batch N x C x H x W, or a single image C x H x W or H x W.
Tensor make_grid(const Tensor& images, const GridOptions& options = {});

}  // namespace loom::vision

LOOM_API_END
