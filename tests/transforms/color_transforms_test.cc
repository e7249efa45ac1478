// The color transform objects (color/color_transforms.cc, and GaussianNoise in
// noise/noise_transforms.cc): ColorJitter draws its factors and order as torchvision does, and the
// blur, grayscale, normalize, noise and dtype objects equal their functional ops.
#include "loom/transforms/color_transforms.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "color_test_util.h"
#include "loom/transforms/color.h"
#include "loom/transforms/noise.h"

namespace loom::transforms {
namespace {

using color_test::chw;
using color_test::compare;
using color_test::hwc;
using color_test::random_image;

TEST(ColorTransforms, ColorJitterDrawsAsTorchvision) {
  const Tensor image = random_image(3, 16, 20, DType::kUInt8, 11);
  const ColorJitter jitter(0.4, 0.3, 0.2, 0.1);
  for (uint64_t seed : {1u, 2u, 3u}) {
    Rng rng(seed), replay(seed);
    Sample sample{image};
    jitter.apply(sample, rng);
    // Replay: order, then brightness, contrast, saturation and hue factors, then apply in that order.
    const std::vector<int> order = random_permutation(4, replay);
    const double b = replay.uniform(0.6, 1.4), c = replay.uniform(0.7, 1.3), s = replay.uniform(0.8, 1.2),
                 h = replay.uniform(-0.1, 0.1);
    Tensor want = image;
    for (int i : order) {
      if (i == 0) want = adjust_brightness(want, b);
      if (i == 1) want = adjust_contrast(want, c);
      if (i == 2) want = adjust_saturation(want, s);
      if (i == 3) want = adjust_hue(want, h);
    }
    EXPECT_EQ(compare(sample.image, want).max_abs, 0.0) << seed;
    EXPECT_EQ(rng.next(), replay.next());  // the same number of draws
  }
  // Nothing in use: the image comes back unchanged and only the permutation is drawn.
  Rng rng(4);
  Sample sample{image};
  ColorJitter().apply(sample, rng);
  EXPECT_EQ(compare(sample.image, image).max_abs, 0.0);
  EXPECT_EQ(ColorJitter(0.5).describe(),
            "ColorJitter(brightness=[0.5, 1.5], contrast=[1, 1], saturation=[1, 1], hue=[-0, 0])");
}

TEST(ColorTransforms, BlurGrayscaleNormalizeNoiseAndDtypeObjects) {
  const Tensor image = random_image(3, 16, 20, DType::kUInt8, 12);
  {
    Rng rng(8), replay(8);
    Sample sample{image};
    GaussianBlur({5, 3}, {0.5, 2.0}).apply(sample, rng);
    const double s = replay.uniform(0.5, 2.0);
    EXPECT_EQ(compare(sample.image, gaussian_blur(image, {5, 3}, {s, s})).max_abs, 0.0);
  }
  {
    Rng rng(9);
    Sample sample{image};
    RandomGrayscale(1.0).apply(sample, rng);
    EXPECT_EQ(sample.image.size(0), 3);
    EXPECT_EQ(compare(sample.image, rgb_to_grayscale(image, 3)).max_abs, 0.0);
    Sample kept{image};
    RandomGrayscale(0.0).apply(kept, rng);
    EXPECT_EQ(compare(kept.image, image).max_abs, 0.0);
  }
  {
    Rng rng(10);
    Sample sample{hwc(image), Layout::kHWC};
    Normalize({0.5f}, {0.25f}).apply(sample, rng);
    EXPECT_EQ(sample.image.size(2), 3);
    EXPECT_EQ(compare(chw(sample.image), normalize(image, {0.5f}, {0.25f})).max_abs, 0.0);
    // HWC in, CHW out: the same values, and the sample now says CHW.
    Sample to_chw{hwc(image), Layout::kHWC};
    Normalize({0.5f}, {0.25f}, Layout::kCHW).apply(to_chw, rng);
    EXPECT_EQ(to_chw.layout, Layout::kCHW);
    EXPECT_EQ(compare(to_chw.image, normalize(image, {0.5f}, {0.25f})).max_abs, 0.0);
    EXPECT_EQ(Normalize({0.5f}, {0.25f}, Layout::kCHW).describe(),
              "Normalize(mean=[0.5], std=[0.25], output_layout=CHW)");
    Sample gray{image};
    Grayscale(1).apply(gray, rng);
    EXPECT_EQ(gray.image.size(0), 1);
    Sample f{image};
    ToDtype(DType::kFloat32).apply(f, rng);
    EXPECT_EQ(f.image.dtype(), DType::kFloat32);
  }
  {
    Rng rng(11), replay(11);
    Sample sample{image};
    GaussianNoise(0.0, 0.2).apply(sample, rng);
    EXPECT_EQ(compare(sample.image, gaussian_noise(image, replay, 0.0, 0.2)).max_abs, 0.0);
    EXPECT_EQ(GaussianNoise(0.0, 0.2, false).describe(), "GaussianNoise(mean=0, sigma=0.2, clip=false)");
  }
}

}  // namespace
}  // namespace loom::transforms
