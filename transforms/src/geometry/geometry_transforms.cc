#include "loom/transforms/geometry_transforms.h"

#include <fmt/format.h>

#include <cmath>

#include "core/image_check.h"
#include "loom/codec/error.h"

namespace loom::transforms {
namespace {

// The image size of `s`, the rank checked and an error named after the transform `op`.
Size image_size_for(const Sample& s, const char* op) {
  const ImageShape shape = image_shape(s.image, s.layout, op);
  return {shape.height, shape.width};
}

void check_probability(double p, std::string_view who) {
  if (!(p >= 0.0 && p <= 1.0))
    throw Error(ErrorCode::kInvalidInput, std::string(who), fmt::format("p must be in [0, 1], got {}", p));
}

void check_range(Range r, std::string_view who, std::string_view what) {
  if (!(r.lo <= r.hi) || !std::isfinite(r.lo) || !std::isfinite(r.hi)) {
    throw Error(ErrorCode::kInvalidInput, std::string(who),
                fmt::format("{} must be a finite range lo <= hi, got [{}, {}]", what, r.lo, r.hi));
  }
}

void check_size(Size s, std::string_view who) {
  if (s.height <= 0 || s.width <= 0) {
    throw Error(ErrorCode::kInvalidInput, std::string(who),
                fmt::format("size must be positive, got {}x{}", s.width, s.height));
  }
}

// Python's round(): half to even.
int64_t round_half_even(double v) {
  return static_cast<int64_t>(std::nearbyint(v));
}

}  // namespace

Resize::Resize(Size size, ResizeOptions options) : size_(size), options_(options) {
  if (size.height <= 0 || size.width < 0) {
    throw Error(ErrorCode::kInvalidInput, "Resize",
                fmt::format("size must be positive, got {}x{}", size.width, size.height));
  }
}

void Resize::apply(Sample& s, Rng&) const {
  const Size target = size_.width == 0 ? size_for_shorter_side(image_size_for(s, "Resize"), size_.height) : size_;
  s = resize(s, target, options_);
}

std::string Resize::describe() const {
  return size_.width == 0 ? fmt::format("Resize(shorter_side={})", size_.height)
                          : fmt::format("Resize(size={}x{})", size_.width, size_.height);
}

CenterCrop::CenterCrop(Size size) : size_(size) {
  check_size(size, "CenterCrop");
}
void CenterCrop::apply(Sample& s, Rng&) const {
  s = center_crop(s, size_);
}
std::string CenterCrop::describe() const {
  return fmt::format("CenterCrop(size={}x{})", size_.width, size_.height);
}

Pad::Pad(Padding padding, PadMode mode, Fill fill) : padding_(padding), mode_(mode), fill_(std::move(fill)) {
  if (padding.left < 0 || padding.top < 0 || padding.right < 0 || padding.bottom < 0) {
    throw Error(ErrorCode::kInvalidInput, "Pad", "padding must not be negative");
  }
}
void Pad::apply(Sample& s, Rng&) const {
  s = pad(s, padding_, mode_, fill_);
}
std::string Pad::describe() const {
  return fmt::format("Pad(left={}, top={}, right={}, bottom={})", padding_.left, padding_.top, padding_.right,
                     padding_.bottom);
}

RandomHorizontalFlip::RandomHorizontalFlip(double p) : p_(p) {
  check_probability(p, "RandomHorizontalFlip");
}
void RandomHorizontalFlip::apply(Sample& s, Rng& rng) const {
  if (rng.bernoulli(p_)) s = horizontal_flip(s);
}
std::string RandomHorizontalFlip::describe() const {
  return fmt::format("RandomHorizontalFlip(p={})", p_);
}

RandomVerticalFlip::RandomVerticalFlip(double p) : p_(p) {
  check_probability(p, "RandomVerticalFlip");
}
void RandomVerticalFlip::apply(Sample& s, Rng& rng) const {
  if (rng.bernoulli(p_)) s = vertical_flip(s);
}
std::string RandomVerticalFlip::describe() const {
  return fmt::format("RandomVerticalFlip(p={})", p_);
}

RandomResizedCrop::RandomResizedCrop(Size size, Range scale, Range ratio, ResizeOptions options)
    : size_(size), scale_(scale), ratio_(ratio), options_(options) {
  check_size(size, "RandomResizedCrop");
  check_range(scale, "RandomResizedCrop", "scale");
  check_range(ratio, "RandomResizedCrop", "ratio");
  if (scale.lo < 0.0 || ratio.lo <= 0.0)
    throw Error(ErrorCode::kInvalidInput, "RandomResizedCrop", "scale and ratio must be positive");
}

std::array<int64_t, 4> RandomResizedCrop::choose_crop(Size image, Rng& rng) const {
  const double area = static_cast<double>(image.height) * static_cast<double>(image.width);
  const double log_lo = std::log(ratio_.lo), log_hi = std::log(ratio_.hi);
  for (int attempt = 0; attempt < 10; ++attempt) {
    const double target_area = area * rng.uniform(scale_.lo, scale_.hi);
    const double aspect = std::exp(rng.uniform(log_lo, log_hi));
    const int64_t w = round_half_even(std::sqrt(target_area * aspect));
    const int64_t h = round_half_even(std::sqrt(target_area / aspect));
    if (w > 0 && w <= image.width && h > 0 && h <= image.height) {
      const int64_t top = rng.integer(0, image.height - h + 1);
      const int64_t left = rng.integer(0, image.width - w + 1);
      return {top, left, h, w};
    }
  }
  // Fallback: the whole image, or its largest centred crop within the ratio range.
  const double in_ratio = static_cast<double>(image.width) / static_cast<double>(image.height);
  int64_t w = image.width, h = image.height;
  if (in_ratio < ratio_.lo) {
    h = round_half_even(static_cast<double>(w) / ratio_.lo);
  } else if (in_ratio > ratio_.hi) {
    w = round_half_even(static_cast<double>(h) * ratio_.hi);
  }
  return {(image.height - h) / 2, (image.width - w) / 2, h, w};
}

void RandomResizedCrop::apply(Sample& s, Rng& rng) const {
  const auto [top, left, h, w] = choose_crop(image_size_for(s, "RandomResizedCrop"), rng);
  s = resized_crop(s, top, left, h, w, size_, options_);
}

std::string RandomResizedCrop::describe() const {
  return fmt::format("RandomResizedCrop(size={}x{}, scale=({}, {}), ratio=({:.4g}, {:.4g}))", size_.width, size_.height,
                     scale_.lo, scale_.hi, ratio_.lo, ratio_.hi);
}

RandomCrop::RandomCrop(Size size, std::optional<Padding> padding, bool pad_if_needed, PadMode mode, Fill fill)
    : size_(size), padding_(padding), pad_if_needed_(pad_if_needed), mode_(mode), fill_(std::move(fill)) {
  check_size(size, "RandomCrop");
}

void RandomCrop::apply(Sample& s, Rng& rng) const {
  Padding p = padding_.value_or(Padding{});
  const Size in = image_size_for(s, "RandomCrop");
  int64_t h = in.height + p.top + p.bottom, w = in.width + p.left + p.right;
  if (pad_if_needed_ && h < size_.height) {
    const int64_t diff = size_.height - h;
    p.top += diff, p.bottom += diff, h += 2 * diff;
  }
  if (pad_if_needed_ && w < size_.width) {
    const int64_t diff = size_.width - w;
    p.left += diff, p.right += diff, w += 2 * diff;
  }
  if (h < size_.height || w < size_.width) {
    throw Error(ErrorCode::kInvalidInput, "RandomCrop",
                fmt::format("crop {}x{} is larger than the {}image {}x{}", size_.width, size_.height,
                            padding_ ? "padded " : "", w, h));
  }
  const int64_t top = h > size_.height ? rng.integer(0, h - size_.height + 1) : 0;
  const int64_t left = w > size_.width ? rng.integer(0, w - size_.width + 1) : 0;
  if (p.left || p.top || p.right || p.bottom) s = pad(s, p, mode_, fill_);
  if (h != size_.height || w != size_.width) s = crop(s, top, left, size_.height, size_.width);
}

std::string RandomCrop::describe() const {
  return fmt::format("RandomCrop(size={}x{})", size_.width, size_.height);
}

RandomRotation::RandomRotation(Range degrees, RotateOptions options) : degrees_(degrees), options_(std::move(options)) {
  check_range(degrees, "RandomRotation", "degrees");
}

void RandomRotation::apply(Sample& s, Rng& rng) const {
  s = rotate(s, rng.uniform(degrees_.lo, degrees_.hi), options_);
}

std::string RandomRotation::describe() const {
  return fmt::format("RandomRotation(degrees=({}, {}), expand={})", degrees_.lo, degrees_.hi, options_.expand);
}

RandomAffine::RandomAffine(Params params, WarpOptions options)
    : params_(std::move(params)), options_(std::move(options)) {
  check_range(params_.degrees, "RandomAffine", "degrees");
  if (params_.translate && !(params_.translate->x >= 0 && params_.translate->x <= 1 && params_.translate->y >= 0 &&
                             params_.translate->y <= 1)) {
    throw Error(ErrorCode::kInvalidInput, "RandomAffine", "translate fractions must be in [0, 1]");
  }
  if (params_.scale) {
    check_range(*params_.scale, "RandomAffine", "scale");
    if (params_.scale->lo <= 0) throw Error(ErrorCode::kInvalidInput, "RandomAffine", "scale must be positive");
  }
  if (params_.shear_x) check_range(*params_.shear_x, "RandomAffine", "shear_x");
  if (params_.shear_y) check_range(*params_.shear_y, "RandomAffine", "shear_y");
}

void RandomAffine::apply(Sample& s, Rng& rng) const {
  const Size in = image_size_for(s, "RandomAffine");
  AffineParams p;
  p.angle = rng.uniform(params_.degrees.lo, params_.degrees.hi);
  if (params_.translate) {
    const double dx = params_.translate->x * static_cast<double>(in.width);
    const double dy = params_.translate->y * static_cast<double>(in.height);
    p.translate.x = static_cast<double>(round_half_even(rng.uniform(-dx, dx)));
    p.translate.y = static_cast<double>(round_half_even(rng.uniform(-dy, dy)));
  }
  if (params_.scale) p.scale = rng.uniform(params_.scale->lo, params_.scale->hi);
  if (params_.shear_x) p.shear.x = rng.uniform(params_.shear_x->lo, params_.shear_x->hi);
  if (params_.shear_y) p.shear.y = rng.uniform(params_.shear_y->lo, params_.shear_y->hi);
  p.center = params_.center;
  s = affine(s, p, options_);
}

std::string RandomAffine::describe() const {
  return fmt::format("RandomAffine(degrees=({}, {}))", params_.degrees.lo, params_.degrees.hi);
}

RandomPerspective::RandomPerspective(double distortion_scale, double p, WarpOptions options)
    : distortion_scale_(distortion_scale), p_(p), options_(std::move(options)) {
  check_probability(p, "RandomPerspective");
  if (!(distortion_scale >= 0.0 && distortion_scale <= 1.0)) {
    throw Error(ErrorCode::kInvalidInput, "RandomPerspective", "distortion_scale must be in [0, 1]");
  }
}

void RandomPerspective::apply(Sample& s, Rng& rng) const {
  if (!rng.bernoulli(p_)) return;
  const Size in = image_size_for(s, "RandomPerspective");
  const int64_t w = in.width, h = in.height;
  const int64_t bw = static_cast<int64_t>(distortion_scale_ * static_cast<double>(w / 2)) + 1;
  const int64_t bh = static_cast<int64_t>(distortion_scale_ * static_cast<double>(h / 2)) + 1;
  auto pick = [&](int64_t lo, int64_t hi) { return static_cast<double>(rng.integer(lo, hi)); };
  const double tlx = pick(0, bw), tly = pick(0, bh);
  const double trx = pick(w - bw, w), try_ = pick(0, bh);
  const double brx = pick(w - bw, w), bry = pick(h - bh, h);
  const double blx = pick(0, bw), bly = pick(h - bh, h);
  const double wl = static_cast<double>(w - 1), hl = static_cast<double>(h - 1);
  s = perspective(s, {Point{0, 0}, Point{wl, 0}, Point{wl, hl}, Point{0, hl}},
                  {Point{tlx, tly}, Point{trx, try_}, Point{brx, bry}, Point{blx, bly}}, options_);
}

std::string RandomPerspective::describe() const {
  return fmt::format("RandomPerspective(distortion_scale={}, p={})", distortion_scale_, p_);
}

SanitizeBoundingBoxes::SanitizeBoundingBoxes(double min_size, double min_area)
    : min_size_(min_size), min_area_(min_area) {}
void SanitizeBoundingBoxes::apply(Sample& s, Rng&) const {
  s = sanitize(s, min_size_, min_area_);
}
std::string SanitizeBoundingBoxes::describe() const {
  return fmt::format("SanitizeBoundingBoxes(min_size={}, min_area={})", min_size_, min_area_);
}

void ClampBoundingBoxes::apply(Sample& s, Rng&) const {
  if (s.boxes) s.boxes = clamp_boxes(*s.boxes);
  if (s.keypoints) s.keypoints = clamp_keypoints(*s.keypoints);
}
std::string ClampBoundingBoxes::describe() const {
  return "ClampBoundingBoxes()";
}

}  // namespace loom::transforms
