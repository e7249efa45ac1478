// Sample-level geometric transforms: each pairs an image op (geometry_image.h, resize.h)
// with the matching annotation kernel (geometry_annotations.h).
#include "loom/transforms/geometry.h"

#include <fmt/format.h>

#include <cmath>

#include "core/image_check.h"
#include "geometry/geometry_annotations.h"
#include "geometry/geometry_image.h"
#include "loom/codec/error.h"

namespace loom::transforms {
namespace {

using detail::identity_axis;
using detail::PointMap;
using detail::reversed_axis;

// Indices start..start+n-1 over an axis of `size` pixels; outside ones are -1 (zero fill).
std::vector<int64_t> window_axis(int64_t size, int64_t start, int64_t n) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = (start + i >= 0 && start + i < size) ? start + i : -1;
  return v;
}

// Applies the annotation kernels to whichever annotations the sample has.
template <typename BoxFn, typename PointFn>
void move_annotations(const Sample& in, Sample& out, BoxFn&& boxes, PointFn&& points) {
  if (in.boxes) out.boxes = boxes(*in.boxes);
  if (in.keypoints) out.keypoints = points(*in.keypoints);
}

// The check every sample op starts with: a 3-D image (any dtype, any channel count) on the CPU or, for
// the ops with a CUDA path (`devices`), a usable CUDA device, and boxes and keypoints that annotate
// this image (a stale canvas would put them in the wrong place). Returns the image size.
Size checked_sample(const Sample& s, const char* op, Devices devices = Devices::kCpu) {
  const ImageShape shape = check_image(s.image, s.layout, op, {}, {}, devices);
  const Size size{shape.height, shape.width};
  auto check = [&](Size canvas, std::string_view what) {
    if (canvas != size) {
      throw Error(ErrorCode::kInvalidInput, op,
                  fmt::format("expected {} on the image's {}x{} canvas, got a {}x{} canvas", what, size.width,
                              size.height, canvas.width, canvas.height));
    }
  };
  if (s.boxes) check(s.boxes->canvas, "bounding boxes");
  if (s.keypoints) check(s.keypoints->canvas, "keypoints");
  return size;
}

Point default_center(Size size) {
  return {0.5 * static_cast<double>(size.width), 0.5 * static_cast<double>(size.height)};
}

PointMap affine_map(const detail::AffineMatrix& m) {
  return [m](Point p) { return Point{m[0] * p.x + m[1] * p.y + m[2], m[3] * p.x + m[4] * p.y + m[5]}; };
}

// Where rotate and affine send the image and its annotations; `angle` is torchvision's affine angle
// (clockwise on screen).
struct AffinePlan {
  detail::AffineMatrix inverse;  // output to input, about the image centres (for the pixels)
  PointMap forward;              // input to output, from the top-left corner (for the annotations)
  Point shift;                   // subtracted from mapped annotations: in_centre - out_centre
  Size out_size;
};

AffinePlan plan_affine(Size in, double angle, Point translate, double scale, Point shear, std::optional<Point> center,
                       bool expand, std::string_view op) {
  if (!(scale > 0.0))
    throw Error(ErrorCode::kInvalidInput, std::string(op), fmt::format("scale must be positive, got {}", scale));
  const Point pivot = center.value_or(default_center(in));
  const Point centered{pivot.x - 0.5 * static_cast<double>(in.width), pivot.y - 0.5 * static_cast<double>(in.height)};
  AffinePlan plan;
  plan.inverse = detail::affine_matrix(centered, angle, translate, scale, shear, true);
  plan.out_size = expand ? detail::affine_expanded_size(plan.inverse, in) : in;
  plan.forward = affine_map(detail::affine_matrix(pivot, angle, translate, scale, shear, false));
  // The pixels put the input centre's image (under the map about the image centre) at the output
  // centre, so a point p lands at forward(p) - in_centre + out_centre. torchvision instead shifts an
  // expanded rotation's annotations by the top-left of the mapped input corners, which leaves them up
  // to a pixel off its own pixels (the output size is rounded up to whole pixels on both sides) and
  // several pixels off with a `center` away from the image centre; loom keeps them on the pixels.
  plan.shift = {0.5 * static_cast<double>(in.width - plan.out_size.width),
                0.5 * static_cast<double>(in.height - plan.out_size.height)};
  return plan;
}

void move_annotations(const Sample& in, Sample& out, const AffinePlan& plan) {
  move_annotations(
      in, out, [&](const BoundingBoxes& b) { return detail::map_boxes(b, plan.forward, plan.shift, plan.out_size); },
      [&](const KeyPoints& k) { return detail::map_keypoints(k, plan.forward, plan.shift, plan.out_size); });
}

}  // namespace

Sample horizontal_flip(const Sample& s) {
  const Size size = checked_sample(s, "horizontal_flip", Devices::kCpuOrCuda);
  Sample out = s;
  out.image = detail::remap_axes(s.image, s.layout, identity_axis(size.height), reversed_axis(size.width), {});
  move_annotations(s, out, detail::horizontal_flip_boxes, detail::horizontal_flip_keypoints);
  return out;
}

Sample vertical_flip(const Sample& s) {
  const Size size = checked_sample(s, "vertical_flip", Devices::kCpuOrCuda);
  Sample out = s;
  out.image = detail::remap_axes(s.image, s.layout, reversed_axis(size.height), identity_axis(size.width), {});
  move_annotations(s, out, detail::vertical_flip_boxes, detail::vertical_flip_keypoints);
  return out;
}

Sample crop(const Sample& s, int64_t top, int64_t left, int64_t height, int64_t width) {
  const Size size = checked_sample(s, "crop", Devices::kCpuOrCuda);
  if (height <= 0 || width <= 0) {
    throw Error(ErrorCode::kInvalidInput, "crop", fmt::format("cannot crop to {}x{}", width, height));
  }
  Sample out = s;
  out.image = detail::remap_axes(s.image, s.layout, window_axis(size.height, top, height),
                                 window_axis(size.width, left, width), {});
  const Size canvas{height, width};
  const double dx = -static_cast<double>(left), dy = -static_cast<double>(top);
  move_annotations(
      s, out, [&](const BoundingBoxes& b) { return detail::translate_boxes(b, dx, dy, canvas, true); },
      [&](const KeyPoints& k) { return detail::translate_keypoints(k, dx, dy, canvas); });
  return out;
}

Sample center_crop(const Sample& s, Size size) {
  if (size.height <= 0 || size.width <= 0) {
    throw Error(ErrorCode::kInvalidInput, "center_crop", fmt::format("cannot crop to {}x{}", size.width, size.height));
  }
  const Size in = checked_sample(s, "center_crop", Devices::kCpuOrCuda);
  // torchvision rounds the anchor half to even (Python's round); a crop larger than the image pads it
  // first by floor(excess / 2) on the top/left side.
  auto anchor = [](int64_t image, int64_t crop) {
    if (crop > image) return -((crop - image) / 2);
    return static_cast<int64_t>(std::nearbyint(static_cast<double>(image - crop) / 2.0));
  };
  Sample out = crop(s, anchor(in.height, size.height), anchor(in.width, size.width), size.height, size.width);
  return out;
}

Sample pad(const Sample& s, Padding p, PadMode mode, const Fill& fill) {
  const Size size = checked_sample(s, "pad", Devices::kCpuOrCuda);
  if ((s.boxes || s.keypoints) && mode != PadMode::kConstant) {
    throw Error(ErrorCode::kInvalidInput, "pad",
                "boxes and keypoints can be padded in constant mode only (as torchvision)");
  }
  Sample out = s;
  out.image = detail::remap_axes(s.image, s.layout, detail::padded_axis(size.height, p.top, p.bottom, mode),
                                 detail::padded_axis(size.width, p.left, p.right, mode), fill);
  const Size canvas{size.height + p.top + p.bottom, size.width + p.left + p.right};
  const double dx = static_cast<double>(p.left), dy = static_cast<double>(p.top);
  move_annotations(
      s, out, [&](const BoundingBoxes& b) { return detail::translate_boxes(b, dx, dy, canvas, false); },
      [&](const KeyPoints& k) { return detail::translate_keypoints(k, dx, dy, canvas); });
  return out;
}

Sample resize(const Sample& s, Size size, ResizeOptions options) {
  checked_sample(s, "resize", Devices::kCpuOrCuda);
  options.layout = s.layout;
  Sample out = s;
  out.image = resize(s.image, size, options);
  move_annotations(
      s, out, [&](const BoundingBoxes& b) { return detail::resize_boxes(b, size); },
      [&](const KeyPoints& k) { return detail::resize_keypoints(k, size); });
  return out;
}

Sample resized_crop(const Sample& s, int64_t top, int64_t left, int64_t height, int64_t width, Size size,
                    ResizeOptions options) {
  return resize(crop(s, top, left, height, width), size, options);
}

Sample rotate(const Sample& s, double angle, const RotateOptions& options) {
  const Size in = checked_sample(s, "rotate");
  const double a = std::fmod(std::fmod(angle, 360.0) + 360.0, 360.0);
  const AffinePlan plan = plan_affine(in, -a, {}, 1.0, {}, options.center, options.expand, "rotate");
  Sample out = s;
  // Quarter turns about the centre are exact transposes (torchvision's fast path; 90 and 270 only
  // when the output keeps the rotated shape).
  const bool quarter = !options.center && (a == 0.0 || a == 180.0 ||
                                           ((a == 90.0 || a == 270.0) && (options.expand || in.width == in.height)));
  out.image = quarter ? detail::rotate90(s.image, s.layout, static_cast<int>(a / 90.0))
                      : detail::warp_affine(s.image, s.layout, plan.inverse, plan.out_size,
                                            {options.interpolation, options.fill}, "rotate");
  move_annotations(s, out, plan);
  return out;
}

Sample affine(const Sample& s, const AffineParams& p, const WarpOptions& options) {
  const Size in = checked_sample(s, "affine");
  const AffinePlan plan = plan_affine(in, p.angle, p.translate, p.scale, p.shear, p.center, false, "affine");
  Sample out = s;
  out.image = detail::warp_affine(s.image, s.layout, plan.inverse, plan.out_size, options, "affine");
  move_annotations(s, out, plan);
  return out;
}

Sample perspective(const Sample& s, const std::array<Point, 4>& startpoints, const std::array<Point, 4>& endpoints,
                   const WarpOptions& options) {
  const Size canvas = checked_sample(s, "perspective");
  const std::array<double, 8> c = detail::perspective_coefficients(startpoints, endpoints);
  Sample out = s;
  out.image = detail::warp_perspective(s.image, s.layout, c, options, "perspective");
  // Points move from input to output: the inverse of the output-to-input coefficients.
  const double denom = c[0] * c[4] - c[1] * c[3];
  if (denom == 0.0) throw Error(ErrorCode::kInvalidInput, "perspective", "the transform cannot be inverted");
  const double inv[8] = {(c[4] - c[5] * c[7]) / denom,         (-c[1] + c[2] * c[7]) / denom,
                         (c[1] * c[5] - c[2] * c[4]) / denom,  (-c[3] + c[5] * c[6]) / denom,
                         (c[0] - c[2] * c[6]) / denom,         (-c[0] * c[5] + c[2] * c[3]) / denom,
                         (-c[4] * c[6] + c[3] * c[7]) / denom, (-c[0] * c[7] + c[1] * c[6]) / denom};
  const PointMap forward = [inv](Point p) {
    const double d = inv[6] * p.x + inv[7] * p.y + 1.0;
    return Point{(inv[0] * p.x + inv[1] * p.y + inv[2]) / d, (inv[3] * p.x + inv[4] * p.y + inv[5]) / d};
  };
  move_annotations(
      s, out, [&](const BoundingBoxes& b) { return detail::map_boxes(b, forward, {}, canvas); },
      [&](const KeyPoints& k) { return detail::map_keypoints(k, forward, {}, canvas); });
  return out;
}

Sample sanitize(const Sample& s, double min_size, double min_area) {
  Sample out = s;
  if (s.boxes) {
    const std::vector<int64_t> keep = valid_box_indices(*s.boxes, min_size, min_area);
    out.boxes->data = select_rows(s.boxes->data, keep);
    if (s.labels.defined()) {
      if (s.labels.ndim() < 1 || s.labels.size(0) != s.boxes->data.size(0)) {
        throw Error(
            ErrorCode::kInvalidInput, "sanitize",
            fmt::format("{} labels for {} boxes", s.labels.ndim() ? s.labels.size(0) : 0, s.boxes->data.size(0)));
      }
      out.labels = select_rows(s.labels, keep);
    }
  }
  if (s.keypoints) out.keypoints->data = select_rows(s.keypoints->data, valid_keypoint_indices(*s.keypoints));
  return out;
}

}  // namespace loom::transforms
