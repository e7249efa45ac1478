// How the geometric transforms move boxes and keypoints (torchvision 0.24's *_bounding_boxes and
// *_keypoints kernels, re-derived). Private to transforms; geometry.cc pairs each with its image op.
#pragma once

#include <array>
#include <functional>

#include "loom/transforms/annotations.h"
#include "loom/transforms/geometry.h"

namespace loom::transforms::detail {

// x' = m[0] x + m[1] y + m[2], y' = m[3] x + m[4] y + m[5].
using AffineMatrix = std::array<double, 6>;

// torchvision's _get_inverse_affine_matrix: rotation `angle` (degrees), translation, scale and shear
// about `center`; `inverted` gives the output-to-input map (for sampling pixels), otherwise the
// input-to-output map (for moving points).
AffineMatrix affine_matrix(Point center, double angle, Point translate, double scale, Point shear, bool inverted);

// The output size of an expanded rotation/affine (torchvision's _compute_affine_output_size): the
// bounding size of the input corners under `inverse` (a map about the image centre), truncated to
// 1e-4 before the ceil/floor.
Size affine_expanded_size(const AffineMatrix& inverse, Size input);

// The perspective coefficients (a..h) mapping output pixels to input pixels, solved from the corner
// pairs in double and rounded to float (as torchvision's _get_perspective_coeffs).
std::array<double, 8> perspective_coefficients(const std::array<Point, 4>& startpoints,
                                               const std::array<Point, 4>& endpoints);

BoundingBoxes horizontal_flip_boxes(const BoundingBoxes& boxes);
BoundingBoxes vertical_flip_boxes(const BoundingBoxes& boxes);
KeyPoints horizontal_flip_keypoints(const KeyPoints& points);
KeyPoints vertical_flip_keypoints(const KeyPoints& points);

// Moves by (dx, dy) onto a canvas of size `canvas`, then clamps. `rectify_polygons` re-derives the
// rectangle of XYXYXYXY boxes first (torchvision's crop does; its pad does not).
BoundingBoxes translate_boxes(const BoundingBoxes& boxes, double dx, double dy, Size canvas, bool rectify_polygons);
KeyPoints translate_keypoints(const KeyPoints& points, double dx, double dy, Size canvas);

// Scales to a canvas of `size` (axis-aligned boxes are not clamped, as torchvision).
BoundingBoxes resize_boxes(const BoundingBoxes& boxes, Size size);
KeyPoints resize_keypoints(const KeyPoints& points, Size size);

// Moves every corner through `map`, subtracts `shift`, takes the enclosing axis-aligned box (or, for
// rotated boxes, the rectangle closest to the mapped parallelogram) and clamps to `canvas`.
using PointMap = std::function<Point(Point)>;
BoundingBoxes map_boxes(const BoundingBoxes& boxes, const PointMap& map, Point shift, Size canvas);
KeyPoints map_keypoints(const KeyPoints& points, const PointMap& map, Point shift, Size canvas);

}  // namespace loom::transforms::detail
