// Geometric transform objects (torchvision.transforms.v2's classes of the same names): each moves
// the image, boxes and keypoints of a Sample together (see geometry.h for the conventions). The
// random ones draw their parameters from the Rng given to apply(), with torchvision's distributions.
// Constructors validate their parameters and throw Error(kInvalidInput).
#pragma once

#include <optional>
#include <string>

#include "loom/codec/api.h"
#include "loom/transforms/geometry.h"
#include "loom/transforms/transform.h"

LOOM_API_BEGIN

namespace loom::transforms {

struct Range {
  double lo = 0.0;
  double hi = 0.0;
};

// Resize to a fixed size, or (size.width == 0) the shorter side to size.height keeping the aspect ratio.
class Resize final : public Transform {
 public:
  explicit Resize(Size size, ResizeOptions options = {});
  void apply(Sample& sample, Rng& rng) const override;
  std::string describe() const override;

 private:
  Size size_;
  ResizeOptions options_;
};

class CenterCrop final : public Transform {
 public:
  explicit CenterCrop(Size size);
  void apply(Sample& sample, Rng& rng) const override;
  std::string describe() const override;

 private:
  Size size_;
};

class Pad final : public Transform {
 public:
  explicit Pad(Padding padding, PadMode mode = PadMode::kConstant, Fill fill = {});
  void apply(Sample& sample, Rng& rng) const override;
  std::string describe() const override;

 private:
  Padding padding_;
  PadMode mode_;
  Fill fill_;
};

class RandomHorizontalFlip final : public Transform {
 public:
  explicit RandomHorizontalFlip(double p = 0.5);
  void apply(Sample& sample, Rng& rng) const override;
  std::string describe() const override;

 private:
  double p_;
};

class RandomVerticalFlip final : public Transform {
 public:
  explicit RandomVerticalFlip(double p = 0.5);
  void apply(Sample& sample, Rng& rng) const override;
  std::string describe() const override;

 private:
  double p_;
};

// A crop of random area (fraction `scale` of the image) and aspect ratio (log-uniform in `ratio`),
// resized to `size`; 10 tries, then the largest centred crop within `ratio` (torchvision's rule).
class RandomResizedCrop final : public Transform {
 public:
  explicit RandomResizedCrop(Size size, Range scale = {0.08, 1.0}, Range ratio = {3.0 / 4.0, 4.0 / 3.0},
                             ResizeOptions options = {});
  void apply(Sample& sample, Rng& rng) const override;
  std::string describe() const override;

  // The crop (top, left, height, width) chosen for an image of `image` size.
  std::array<int64_t, 4> choose_crop(Size image, Rng& rng) const;
  Size size() const { return size_; }
  const ResizeOptions& options() const { return options_; }

 private:
  Size size_;
  Range scale_, ratio_;
  ResizeOptions options_;
};

// A crop of `size` at a uniformly random position, after optional padding; with pad_if_needed an
// image smaller than `size` is padded on both sides first. Error(kInvalidInput) when the (padded)
// image is still smaller than `size`.
class RandomCrop final : public Transform {
 public:
  explicit RandomCrop(Size size, std::optional<Padding> padding = std::nullopt, bool pad_if_needed = false,
                      PadMode mode = PadMode::kConstant, Fill fill = {});
  void apply(Sample& sample, Rng& rng) const override;
  std::string describe() const override;

 private:
  Size size_;
  std::optional<Padding> padding_;
  bool pad_if_needed_;
  PadMode mode_;
  Fill fill_;
};

// Rotation by an angle uniform in `degrees` (counter-clockwise).
class RandomRotation final : public Transform {
 public:
  explicit RandomRotation(Range degrees, RotateOptions options = {});
  void apply(Sample& sample, Rng& rng) const override;
  std::string describe() const override;

 private:
  Range degrees_;
  RotateOptions options_;
};

// Affine with angle uniform in `degrees`, translation uniform in +-translate * (width, height)
// rounded to whole pixels, scale uniform in `scale`, shear x uniform in shear_x and y in shear_y.
class RandomAffine final : public Transform {
 public:
  struct Params {
    Range degrees;
    std::optional<Point> translate;  // fractions of width and height in [0, 1]
    std::optional<Range> scale;
    std::optional<Range> shear_x, shear_y;
    std::optional<Point> center;
  };
  explicit RandomAffine(Params params, WarpOptions options = {});
  void apply(Sample& sample, Rng& rng) const override;
  std::string describe() const override;

 private:
  Params params_;
  WarpOptions options_;
};

// With probability p, a perspective warp moving each corner inward by up to distortion_scale / 2 of
// the image side (torchvision's RandomPerspective).
class RandomPerspective final : public Transform {
 public:
  explicit RandomPerspective(double distortion_scale = 0.5, double p = 0.5,
                             WarpOptions options = {Interpolation::kBilinear, {}});
  void apply(Sample& sample, Rng& rng) const override;
  std::string describe() const override;

 private:
  double distortion_scale_, p_;
  WarpOptions options_;
};

// Drops degenerate boxes (with their labels) and keypoints outside the image (geometry.h's sanitize).
class SanitizeBoundingBoxes final : public Transform {
 public:
  explicit SanitizeBoundingBoxes(double min_size = 1.0, double min_area = 1.0);
  void apply(Sample& sample, Rng& rng) const override;
  std::string describe() const override;

 private:
  double min_size_, min_area_;
};

// Clamps boxes with their own Clamping mode and keypoints to the image (annotations.h).
class ClampBoundingBoxes final : public Transform {
 public:
  void apply(Sample& sample, Rng& rng) const override;
  std::string describe() const override;
};

}  // namespace loom::transforms

LOOM_API_END
