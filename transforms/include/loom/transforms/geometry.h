// Geometric transforms of a Sample: the image and its boxes and keypoints move together, with
// torchvision 0.24's semantics (transforms.v2.functional on tensors and tv_tensors).
//
// Images: 3-D CPU tensors in sample.layout (CHW or HWC), any channel count; crop, pad and the flips
// take any dtype, resize what resize.h takes, and the warps (rotate, affine, perspective) uint8 and
// float32. Warps sample the input like torch's grid_sample (align_corners=False, pixel centres at
// i + 0.5); uint8 results are rounded half to even, as torchvision rounds. Error(kInvalidInput, <op>)
// for an image that is not 3-D or annotations on another canvas, Error(kUnsupported, <op>) for an image
// not on the CPU or of a dtype the op does not take. The flips, crop, center_crop, pad, resize and
// resized_crop also take an image on a CUDA device this process can use (CUDA builds): the image comes
// back on that device, bit-equal with the CPU result, made on the device's current stream; the
// annotations stay on the CPU.
// Boxes and keypoints (annotations.h) are mapped through the same geometry; boxes are then clamped
// with their own Clamping mode and their canvas becomes the new image size. A box that leaves the
// image stays in the list (degenerate after clamping); SanitizeBoundingBoxes drops such boxes.
// Every function returns a new Sample and leaves its argument untouched. Thread safety: reentrant.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "loom/codec/api.h"
#include "loom/transforms/resize.h"
#include "loom/transforms/sample.h"

LOOM_API_BEGIN

namespace loom::transforms {

struct Point {
  double x = 0.0;
  double y = 0.0;
};

// Left, top, right and bottom padding in pixels (torchvision's [left, top, right, bottom]).
struct Padding {
  int64_t left = 0, top = 0, right = 0, bottom = 0;
};

enum class PadMode {
  kConstant,   // fill value
  kEdge,       // repeat the edge pixel
  kReflect,    // mirror without repeating the edge: d c b | a b c d | c b a
  kSymmetric,  // mirror with the edge: c b a | a b c d | d c b
};

// The value of pixels with no source (padding, the outside of a warp): one value for every channel
// or one per channel. Empty means 0; for the warps it is torchvision's fill=None, where bilinear edge
// pixels blend with zeros, while a given fill (even 0) blends them with the fill by the covered area.
using Fill = std::vector<double>;

// Interpolation for the warps: kNearest or kBilinear (others throw Error(kInvalidInput)).
struct WarpOptions {
  Interpolation interpolation = Interpolation::kNearest;
  Fill fill;
};

Sample horizontal_flip(const Sample& sample);
Sample vertical_flip(const Sample& sample);

// The region [top, top + height) x [left, left + width); parts outside the image are zero (as
// torchvision's crop, which pads). Error(kInvalidInput) for a non-positive height or width.
Sample crop(const Sample& sample, int64_t top, int64_t left, int64_t height, int64_t width);

// A centred crop; a size larger than the image pads it with zeros first (torchvision's center_crop).
Sample center_crop(const Sample& sample, Size size);

// Pads the image. Boxes and keypoints move by (left, top); torchvision supports annotations with
// kConstant only, and so does loom (Error(kInvalidInput) otherwise). Reflect padding needs padding
// smaller than the image side.
Sample pad(const Sample& sample, Padding padding, PadMode mode = PadMode::kConstant, const Fill& fill = {});

// resize.h's resize on the image (options.layout is taken from the sample), annotations scaled.
Sample resize(const Sample& sample, Size size, ResizeOptions options = {});

// crop then resize (torchvision's resized_crop).
Sample resized_crop(const Sample& sample, int64_t top, int64_t left, int64_t height, int64_t width, Size size,
                    ResizeOptions options = {});

struct RotateOptions {
  Interpolation interpolation = Interpolation::kNearest;
  bool expand = false;          // grow the output to hold the whole rotated image
  std::optional<Point> center;  // in pixels from the top-left corner; default the image centre
  Fill fill;
};

// Rotation by `angle` degrees counter-clockwise (on screen). 0/90/180/270 about the centre are exact
// pixel transposes (90 and 270 only with expand or a square image), as in torchvision.
Sample rotate(const Sample& sample, double angle, const RotateOptions& options = {});

// torchvision's affine: rotation (degrees, clockwise on screen, as torchvision's affine), then
// translation (pixels), scale and shear (degrees, x and y) about `center` (default image centre).
struct AffineParams {
  double angle = 0.0;
  Point translate;
  double scale = 1.0;
  Point shear;  // x and y shear angles in degrees
  std::optional<Point> center;
};
Sample affine(const Sample& sample, const AffineParams& params, const WarpOptions& options = {});

// Perspective warp taking the four `startpoints` (corners in the input, top-left, top-right,
// bottom-right, bottom-left) to `endpoints`. Default interpolation bilinear, as torchvision.
Sample perspective(const Sample& sample, const std::array<Point, 4>& startpoints, const std::array<Point, 4>& endpoints,
                   const WarpOptions& options = {Interpolation::kBilinear, {}});

// Keeps the boxes (and their label rows) that valid_box_indices accepts, and the keypoint rows
// valid_keypoint_indices accepts (torchvision's SanitizeBoundingBoxes / SanitizeKeyPoints).
Sample sanitize(const Sample& sample, double min_size = 1.0, double min_area = 1.0);

}  // namespace loom::transforms

LOOM_API_END
