// SanitizeBoundingBoxes / SanitizeKeyPoints: which rows to keep (torchvision 0.24's
// _get_sanitize_bounding_boxes_mask and _get_sanitize_keypoints_mask), computed per row in double.
// A NaN coordinate fails every comparison, so its row is dropped.
#include <cmath>

#include "boxes/box_geometry.h"
#include "loom/transforms/annotations.h"

namespace loom::transforms {

std::vector<int64_t> valid_box_indices(const BoundingBoxes& boxes, double min_size, double min_area) {
  validate(boxes);
  const bool rotated = is_rotated(boxes.format);
  const BoxFormat work = rotated ? BoxFormat::kXYXYXYXY : BoxFormat::kXYXY;
  const int k = values_per_box(boxes.format), kw = values_per_box(work);
  const auto width = static_cast<double>(boxes.canvas.width), height = static_cast<double>(boxes.canvas.height);
  const std::vector<double> values = detail::to_doubles(boxes.data);
  std::vector<int64_t> kept;
  for (int64_t i = 0; i < boxes.data.size(0); ++i) {
    double c[detail::kMaxBoxValues];  // XYXY or the four corners
    detail::convert_box(&values[static_cast<size_t>(i * k)], boxes.format, c, work);
    double w, h;
    if (rotated) {
      // Side lengths |corner2 - corner1| and |corner3 - corner2|. torchvision 0.24 computes the second
      // from mismatched coordinates (y2 - y3, x3 - x4); this is the geometrically correct length.
      w = std::hypot(c[0] - c[2], c[1] - c[3]);
      h = std::hypot(c[2] - c[4], c[3] - c[5]);
    } else {
      w = c[2] - c[0];
      h = c[3] - c[1];
    }
    bool ok = w >= min_size && h >= min_size && w * h >= min_area;
    for (int j = 0; j < kw; j += 2) ok = ok && c[j] >= 0 && c[j] <= width && c[j + 1] >= 0 && c[j + 1] <= height;
    if (ok) kept.push_back(i);
  }
  return kept;
}

std::vector<int64_t> valid_keypoint_indices(const KeyPoints& points) {
  validate(points);
  const auto width = static_cast<double>(points.canvas.width), height = static_cast<double>(points.canvas.height);
  const std::vector<double> values = detail::to_doubles(points.data);
  const int64_t rows = points.data.size(0);
  const size_t per_row = rows > 0 ? values.size() / static_cast<size_t>(rows) : 0;  // 2 x points per row
  std::vector<int64_t> kept;
  for (int64_t r = 0; r < rows; ++r) {
    bool ok = true;
    for (size_t j = static_cast<size_t>(r) * per_row; ok && j < static_cast<size_t>(r + 1) * per_row; j += 2) {
      const double x = values[j], y = values[j + 1];
      ok = x >= 0 && x < width && y >= 0 && y < height;  // half-open, as torchvision
    }
    if (ok) kept.push_back(r);
  }
  return kept;
}

}  // namespace loom::transforms
