// Color, dtype and noise transform objects (torchvision.transforms.v2's classes of the same names).
// They change sample.image only (in sample.layout) and leave boxes, keypoints and labels alone. The
// random ones draw from the Rng given to apply(), in torchvision's order (see each class). Constructors
// validate their parameters and throw Error(kInvalidInput); apply() throws what the functional op in
// color.h / noise.h throws for the image.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "loom/codec/api.h"
#include "loom/transforms/color.h"
#include "loom/transforms/noise.h"
#include "loom/transforms/transform.h"

LOOM_API_BEGIN

namespace loom::transforms {

// to_dtype(image, dtype, scale).
class ToDtype final : public Transform {
 public:
  explicit ToDtype(DType dtype, bool scale = true);
  void apply(Sample& sample, Rng& rng) const override;
  std::string describe() const override;

 private:
  DType dtype_;
  bool scale_;
};

// normalize(image, mean, std): uint8 or float32 in, float32 out, in the sample's layout or, when
// output_layout is given, in that one (the sample's layout changes with it: uint8 HWC in, float32 CHW
// out is one fused pass, so a pipeline can crop and resize in HWC and still hand CHW to the model).
class Normalize final : public Transform {
 public:
  Normalize(std::vector<float> mean, std::vector<float> std, std::optional<Layout> output_layout = std::nullopt);
  void apply(Sample& sample, Rng& rng) const override;
  std::string describe() const override;

 private:
  std::vector<float> mean_, std_;
  std::optional<Layout> output_layout_;
};

// rgb_to_grayscale(image, num_output_channels) (1 or 3).
class Grayscale final : public Transform {
 public:
  explicit Grayscale(int num_output_channels = 1);
  void apply(Sample& sample, Rng& rng) const override;
  std::string describe() const override;

 private:
  int num_output_channels_;
};

// With probability p (one uniform draw, applied when it is < p), grayscale with as many output
// channels as the input has.
class RandomGrayscale final : public Transform {
 public:
  explicit RandomGrayscale(double p = 0.1);
  void apply(Sample& sample, Rng& rng) const override;
  std::string describe() const override;

 private:
  double p_;
};

// Factor ranges of ColorJitter; {1, 1} (hue {0, 0}) leaves that adjustment out.
struct ColorJitterRanges {
  std::array<double, 2> brightness{1.0, 1.0};  // factors >= 0
  std::array<double, 2> contrast{1.0, 1.0};    // factors >= 0
  std::array<double, 2> saturation{1.0, 1.0};  // factors >= 0
  std::array<double, 2> hue{0.0, 0.0};         // within [-0.5, 0.5]
};

// torchvision's ColorJitter. A number b gives factors uniform in [max(0, 1 - b), 1 + b] (brightness,
// contrast, saturation, b >= 0) and h gives hue shifts uniform in [-h, h] (0 <= h <= 0.5); 0 leaves the
// adjustment out. apply() draws, as torchvision's get_params: the order random_permutation(4), then the
// factor of each adjustment in use (brightness, contrast, saturation, hue), then applies them in that
// order.
class ColorJitter final : public Transform {
 public:
  explicit ColorJitter(double brightness = 0.0, double contrast = 0.0, double saturation = 0.0, double hue = 0.0);
  explicit ColorJitter(const ColorJitterRanges& ranges);
  void apply(Sample& sample, Rng& rng) const override;
  std::string describe() const override;

 private:
  ColorJitterRanges ranges_;
};

// gaussian_blur with sigma drawn uniformly from [sigma_lo, sigma_hi] (one draw, both axes), as
// torchvision's GaussianBlur (default sigma range 0.1 to 2.0).
class GaussianBlur final : public Transform {
 public:
  explicit GaussianBlur(std::array<int, 2> kernel_size, std::array<double, 2> sigma = {0.1, 2.0});
  void apply(Sample& sample, Rng& rng) const override;
  std::string describe() const override;

 private:
  std::array<int, 2> kernel_size_;
  std::array<double, 2> sigma_;
};

// gaussian_noise(image, rng, mean, sigma, clip) (torchvision 0.24's GaussianNoise).
class GaussianNoise final : public Transform {
 public:
  explicit GaussianNoise(double mean = 0.0, double sigma = 0.1, bool clip = true);
  void apply(Sample& sample, Rng& rng) const override;
  std::string describe() const override;

 private:
  double mean_, sigma_;
  bool clip_;
};

}  // namespace loom::transforms

LOOM_API_END
