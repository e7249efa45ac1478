// Annotations that travel with an image through the geometric transforms: bounding boxes (axis-
// aligned and rotated) and keypoints, with torchvision 0.24's tv_tensors semantics.
//
// Coordinates are in pixels of the image they annotate (its `canvas`), x to the right and y down,
// continuous: the image covers [0, width] x [0, height] for boxes. Keypoints follow torchvision's
// pixel-index convention where it differs (a horizontal flip maps x to width - 1 - x for a keypoint
// but to width - x for a box edge).
// Rotated boxes: angles in degrees, counter-clockwise on screen (y down); XYWHR's (x, y) is the first
// corner, the one the box rotates about; XYXYXYXY lists the four corners in order.
// Data: a CPU tensor [N, K] (K = values_per_box(format)) of float32 or float64; boxes are computed in
// double and stored back in the input dtype. Functions return new tensors; inputs are never modified.
// Thread safety: reentrant.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "loom/codec/api.h"
#include "loom/codec/size.h"
#include "loom/codec/tensor.h"

LOOM_API_BEGIN

namespace loom::transforms {

enum class BoxFormat {
  kXYXY,      // x1, y1, x2, y2: top-left and bottom-right corners
  kXYWH,      // x1, y1, width, height
  kCXCYWH,    // center x, center y, width, height
  kXYWHR,     // first corner x1, y1, width, height, angle (degrees, counter-clockwise)
  kCXCYWHR,   // center x, center y, width, height, angle
  kXYXYXYXY,  // the four corners x1, y1, ..., x4, y4 (rotated)
};

bool is_rotated(BoxFormat format);
int values_per_box(BoxFormat format);  // 4, 5 or 8
std::string_view to_string(BoxFormat format);
BoxFormat box_format_from_string(std::string_view name);  // "XYXY", "xywh", ...; Error(kInvalidInput) otherwise

// How a transform keeps boxes inside the canvas (torchvision's clamping_mode). Axis-aligned boxes are
// cut to the canvas in both kSoft and kHard. Rotated boxes: kSoft gives the smallest box of the same
// angle enclosing the part inside the canvas (corners may stay outside), kHard the largest box of the
// same angle inside both the box and the canvas. kNone never clamps.
enum class Clamping { kNone, kSoft, kHard };

struct BoundingBoxes {
  Tensor data;  // [N, values_per_box(format)], float32 or float64
  BoxFormat format = BoxFormat::kXYXY;
  Size canvas;  // the image the boxes annotate
  Clamping clamping = Clamping::kSoft;
};

struct KeyPoints {
  Tensor data;  // [..., 2] x, y; float32 or float64 (for example [N, 2] or [objects, points, 2])
  Size canvas;
};

// Checks a BoundingBoxes/KeyPoints (CPU, dtype, shape against the format, positive canvas) and throws
// Error(kInvalidInput) naming `what` otherwise. The transforms call these on every input.
void validate(const BoundingBoxes& boxes, std::string_view what = "bounding boxes");
void validate(const KeyPoints& points, std::string_view what = "keypoints");

// Format conversion; axis-aligned and rotated formats do not convert into each other
// (Error(kInvalidInput)), as in torchvision.
Tensor convert_box_format(const Tensor& boxes, BoxFormat from, BoxFormat to);
BoundingBoxes convert_box_format(const BoundingBoxes& boxes, BoxFormat to);

// Clamping to the canvas with the given mode (torchvision's clamp_bounding_boxes); the second form
// uses boxes.clamping.
Tensor clamp_boxes(const Tensor& boxes, BoxFormat format, Size canvas, Clamping mode);
BoundingBoxes clamp_boxes(const BoundingBoxes& boxes);
// Keypoints into [0, width - 1] x [0, height - 1] (torchvision's clamp_keypoints).
KeyPoints clamp_keypoints(const KeyPoints& points);

// SanitizeBoundingBoxes: which boxes to keep. A box is kept when its width and height are at least
// min_size, its area at least min_area, and every corner lies inside [0, width] x [0, height] (width
// and height of a rotated box are its side lengths). Returns the kept row indices, ascending.
std::vector<int64_t> valid_box_indices(const BoundingBoxes& boxes, double min_size = 1.0, double min_area = 1.0);
// SanitizeKeyPoints: rows of data ([N, 2] points, or [N, ..., 2] groups) whose every point lies inside
// [0, width) x [0, height) (torchvision's sanitize_keypoints: x >= 0 and x < width, likewise y; note
// the half-open range, wider than clamp_keypoints' [0, width - 1] for fractional coordinates).
std::vector<int64_t> valid_keypoint_indices(const KeyPoints& points);

// Rows `indices` of a tensor along dim 0 (boxes, labels or keypoint groups), as a new tensor.
Tensor select_rows(const Tensor& tensor, const std::vector<int64_t>& indices);

}  // namespace loom::transforms

LOOM_API_END
