#include "loom/transforms/color_transforms.h"

#include <fmt/format.h>

#include <cmath>

#include "core/image_check.h"
#include "loom/codec/error.h"

namespace loom::transforms {
namespace {

std::string join(const std::vector<float>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += fmt::format("{}{}", i ? ", " : "", v[i]);
  return s + "]";
}

// torchvision's _check_input: b -> [max(0, 1 - b), 1 + b].
std::array<double, 2> around_one(double b, const char* what) {
  if (!(b >= 0.0) || !std::isfinite(b)) {
    throw Error(ErrorCode::kInvalidInput, "ColorJitter",
                fmt::format("{} must be a finite number >= 0, got {}", what, b));
  }
  return {std::max(0.0, 1.0 - b), 1.0 + b};
}

void check_range(std::array<double, 2> r, double lo, double hi, const char* what) {
  if (!(r[0] >= lo && r[0] <= r[1] && r[1] <= hi)) {
    throw Error(ErrorCode::kInvalidInput, "ColorJitter",
                fmt::format("{} range must satisfy {} <= lo <= hi <= {}, got [{}, {}]", what, lo, hi, r[0], r[1]));
  }
}

bool in_use(std::array<double, 2> r, double identity) {
  return !(r[0] == identity && r[1] == identity);
}

}  // namespace

ToDtype::ToDtype(DType dtype, bool scale) : dtype_(dtype), scale_(scale) {
  if (dtype != DType::kUInt8 && dtype != DType::kUInt16 && dtype != DType::kFloat32 && dtype != DType::kFloat64) {
    throw Error(ErrorCode::kInvalidInput, "ToDtype", fmt::format("unsupported dtype {}", to_string(dtype)));
  }
}
void ToDtype::apply(Sample& sample, Rng&) const {
  sample.image = to_dtype(sample.image, dtype_, scale_, sample.layout);
}
std::string ToDtype::describe() const {
  return fmt::format("ToDtype(dtype={}, scale={})", to_string(dtype_), scale_);
}

Normalize::Normalize(std::vector<float> mean, std::vector<float> std, std::optional<Layout> output_layout)
    : mean_(std::move(mean)), std_(std::move(std)), output_layout_(output_layout) {
  if (mean_.empty() || std_.empty())
    throw Error(ErrorCode::kInvalidInput, "Normalize", "mean and std must not be empty");
  for (float s : std_) {
    if (s == 0.0f) throw Error(ErrorCode::kInvalidInput, "Normalize", "std must not contain 0");
  }
}
void Normalize::apply(Sample& sample, Rng&) const {
  const Layout out = output_layout_.value_or(sample.layout);
  sample.image = normalize(sample.image, mean_, std_, {sample.layout, out});
  sample.layout = out;
}
std::string Normalize::describe() const {
  if (!output_layout_) return fmt::format("Normalize(mean={}, std={})", join(mean_), join(std_));
  return fmt::format("Normalize(mean={}, std={}, output_layout={})", join(mean_), join(std_),
                     *output_layout_ == Layout::kCHW ? "CHW" : "HWC");
}

Grayscale::Grayscale(int num_output_channels) : num_output_channels_(num_output_channels) {
  if (num_output_channels != 1 && num_output_channels != 3) {
    throw Error(ErrorCode::kInvalidInput, "Grayscale",
                fmt::format("num_output_channels must be 1 or 3, got {}", num_output_channels));
  }
}
void Grayscale::apply(Sample& sample, Rng&) const {
  sample.image = rgb_to_grayscale(sample.image, num_output_channels_, sample.layout);
}
std::string Grayscale::describe() const {
  return fmt::format("Grayscale(num_output_channels={})", num_output_channels_);
}

RandomGrayscale::RandomGrayscale(double p) : p_(p) {
  if (!(p >= 0.0 && p <= 1.0))
    throw Error(ErrorCode::kInvalidInput, "RandomGrayscale", fmt::format("p must be in [0, 1], got {}", p));
}
void RandomGrayscale::apply(Sample& sample, Rng& rng) const {
  if (!rng.bernoulli(p_)) return;
  const int64_t c = check_image(sample.image, sample.layout, "RandomGrayscale").channels;
  sample.image = rgb_to_grayscale(sample.image, static_cast<int>(c), sample.layout);
}
std::string RandomGrayscale::describe() const {
  return fmt::format("RandomGrayscale(p={})", p_);
}

ColorJitter::ColorJitter(double brightness, double contrast, double saturation, double hue) {
  ranges_.brightness = around_one(brightness, "brightness");
  ranges_.contrast = around_one(contrast, "contrast");
  ranges_.saturation = around_one(saturation, "saturation");
  if (!(hue >= 0.0 && hue <= 0.5)) {
    throw Error(ErrorCode::kInvalidInput, "ColorJitter", fmt::format("hue must be in [0, 0.5], got {}", hue));
  }
  ranges_.hue = {-hue, hue};
}

ColorJitter::ColorJitter(const ColorJitterRanges& ranges) : ranges_(ranges) {
  check_range(ranges.brightness, 0.0, INFINITY, "brightness");
  check_range(ranges.contrast, 0.0, INFINITY, "contrast");
  check_range(ranges.saturation, 0.0, INFINITY, "saturation");
  check_range(ranges.hue, -0.5, 0.5, "hue");
  for (double v : {ranges.brightness[1], ranges.contrast[1], ranges.saturation[1]}) {
    if (!std::isfinite(v)) throw Error(ErrorCode::kInvalidInput, "ColorJitter", "factor ranges must be finite");
  }
}

void ColorJitter::apply(Sample& sample, Rng& rng) const {
  const std::vector<int> order = random_permutation(4, rng);
  const std::array<double, 2>* ranges[4] = {&ranges_.brightness, &ranges_.contrast, &ranges_.saturation, &ranges_.hue};
  double factor[4] = {1.0, 1.0, 1.0, 0.0};
  bool use[4];
  for (int i = 0; i < 4; ++i) {
    use[i] = in_use(*ranges[i], i == 3 ? 0.0 : 1.0);
    if (use[i]) factor[i] = rng.uniform((*ranges[i])[0], (*ranges[i])[1]);
  }
  for (int i : order) {
    if (!use[i]) continue;
    switch (i) {
      case 0: sample.image = adjust_brightness(sample.image, factor[0], sample.layout); break;
      case 1: sample.image = adjust_contrast(sample.image, factor[1], sample.layout); break;
      case 2: sample.image = adjust_saturation(sample.image, factor[2], sample.layout); break;
      default: sample.image = adjust_hue(sample.image, factor[3], sample.layout); break;
    }
  }
}

std::string ColorJitter::describe() const {
  return fmt::format("ColorJitter(brightness=[{}, {}], contrast=[{}, {}], saturation=[{}, {}], hue=[{}, {}])",
                     ranges_.brightness[0], ranges_.brightness[1], ranges_.contrast[0], ranges_.contrast[1],
                     ranges_.saturation[0], ranges_.saturation[1], ranges_.hue[0], ranges_.hue[1]);
}

GaussianBlur::GaussianBlur(std::array<int, 2> kernel_size, std::array<double, 2> sigma)
    : kernel_size_(kernel_size), sigma_(sigma) {
  for (int k : kernel_size) {
    if (k <= 0 || k % 2 == 0) {
      throw Error(ErrorCode::kInvalidInput, "GaussianBlur",
                  fmt::format("kernel sizes must be odd and positive, got {}", k));
    }
  }
  if (!(sigma[0] > 0.0 && sigma[0] <= sigma[1] && std::isfinite(sigma[1]))) {
    throw Error(ErrorCode::kInvalidInput, "GaussianBlur",
                fmt::format("sigma must be a range 0 < lo <= hi, got [{}, {}]", sigma[0], sigma[1]));
  }
}
void GaussianBlur::apply(Sample& sample, Rng& rng) const {
  const double s = rng.uniform(sigma_[0], sigma_[1]);
  sample.image = gaussian_blur(sample.image, kernel_size_, {s, s}, sample.layout);
}
std::string GaussianBlur::describe() const {
  return fmt::format("GaussianBlur(kernel_size={}x{}, sigma=[{}, {}])", kernel_size_[0], kernel_size_[1], sigma_[0],
                     sigma_[1]);
}

}  // namespace loom::transforms
