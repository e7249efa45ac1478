// The GaussianNoise transform object (declared with the color transforms in color_transforms.h).
#include <fmt/format.h>

#include <cmath>

#include "loom/codec/error.h"
#include "loom/transforms/color_transforms.h"
#include "loom/transforms/noise.h"

namespace loom::transforms {

GaussianNoise::GaussianNoise(double mean, double sigma, bool clip) : mean_(mean), sigma_(sigma), clip_(clip) {
  if (!std::isfinite(mean) || !std::isfinite(sigma) || sigma < 0.0) {
    throw Error(ErrorCode::kInvalidInput, "GaussianNoise",
                fmt::format("mean must be finite and sigma finite and >= 0, got {} and {}", mean, sigma));
  }
}
void GaussianNoise::apply(Sample& sample, Rng& rng) const {
  sample.image = gaussian_noise(sample.image, rng, mean_, sigma_, clip_);
}
std::string GaussianNoise::describe() const {
  return fmt::format("GaussianNoise(mean={}, sigma={}, clip={})", mean_, sigma_, clip_);
}

}  // namespace loom::transforms
