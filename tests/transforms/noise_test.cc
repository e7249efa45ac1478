// gaussian_noise: torchvision 0.24 semantics checked through the distribution of (out - in) (loom's
// generator cannot reproduce torch's): moments, normality (Kolmogorov-Smirnov), the truncation of
// uint8 noise toward zero, clipping at 0 and 255, the wrap-around without clipping, int16 arithmetic,
// seeding. Optionally (when /work/venv-tv/bin/python with torchvision 0.24 exists) the histogram of
// uint8 differences against torchvision's own.
#include "loom/transforms/noise.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <vector>

#include "loom/codec/error.h"
#include "python_reference.h"

namespace loom::transforms {
namespace {

double normal_cdf(double x) {
  return 0.5 * std::erfc(-x / std::sqrt(2.0));
}

Tensor filled(int64_t c, int64_t h, int64_t w, uint8_t v) {
  Tensor t = Tensor::empty({c, h, w}, DType::kUInt8);
  std::fill(t.data<uint8_t>(), t.data<uint8_t>() + t.numel(), v);
  return t;
}

Tensor filled_f(int64_t c, int64_t h, int64_t w, float v) {
  Tensor t = Tensor::empty({c, h, w}, DType::kFloat32);
  std::fill(t.data<float>(), t.data<float>() + t.numel(), v);
  return t;
}

struct Moments {
  double mean = 0, sd = 0;
};

Moments moments(const std::vector<double>& v) {
  double s = 0, s2 = 0;
  for (double x : v) s += x, s2 += x * x;
  const double m = s / static_cast<double>(v.size());
  return {m, std::sqrt(s2 / static_cast<double>(v.size()) - m * m)};
}

std::vector<double> u8_diff(const Tensor& out, uint8_t base) {
  std::vector<double> d(static_cast<size_t>(out.numel()));
  for (int64_t i = 0; i < out.numel(); ++i) d[i] = static_cast<double>(out.data<uint8_t>()[i]) - base;
  return d;
}

// E[trunc(m + s z)] for a standard normal z, by summing P(trunc = k) * k.
double expected_truncated_mean(double m, double s) {
  double e = 0.0;
  for (int k = -2000; k <= 2000; ++k) {
    // trunc(x) = k for x in [k, k + 1) when k > 0, (k - 1, k + 1) when k == 0, (k - 1, k] when k < 0.
    const double lo = k > 0 ? k : k - 1, hi = k < 0 ? k : k + 1;
    e += k * (normal_cdf((hi - m) / s) - normal_cdf((lo - m) / s));
  }
  return e;
}

TEST(Noise, Uint8MidGrayMatchesTheTorchvisionFormula) {
  const Tensor gray = filled(3, 512, 512, 128);
  for (auto [mean, sigma] : {std::pair{0.0, 0.1}, {0.1, 0.02}, {-0.05, 0.04}}) {
    Rng rng(7);
    const std::vector<double> d = u8_diff(gaussian_noise(gray, rng, mean, sigma), 128);
    const Moments m = moments(d);
    const double m255 = static_cast<float>(mean * 255.0), s255 = static_cast<float>(sigma * 255.0);
    EXPECT_NEAR(m.mean, expected_truncated_mean(m255, s255), 0.03) << mean << " " << sigma;
    // trunc adds a spread of about 1/sqrt(12)..1/sqrt(6) around each value: close to s255.
    EXPECT_NEAR(m.sd, s255, 0.01 * s255 + 0.3) << mean << " " << sigma;
  }
}

TEST(Noise, Float32IsNormalWithMeanAndSigma) {
  const Tensor gray = filled_f(3, 512, 512, 0.5f);
  Rng rng(11);
  const Tensor out = gaussian_noise(gray, rng, 0.02, 0.1, /*clip=*/false);
  std::vector<double> z(static_cast<size_t>(out.numel()));
  for (int64_t i = 0; i < out.numel(); ++i) z[i] = (out.data<float>()[i] - 0.5 - 0.02) / 0.1;
  const Moments m = moments(z);
  EXPECT_NEAR(m.mean, 0.0, 0.006);  // standard error 0.0011
  EXPECT_NEAR(m.sd, 1.0, 0.005);
  double m4 = 0, beyond2 = 0, beyond3 = 0, beyond4 = 0;
  for (double x : z) {
    m4 += x * x * x * x;
    beyond2 += std::fabs(x) > 2, beyond3 += std::fabs(x) > 3, beyond4 += std::fabs(x) > 4;
  }
  const double n = static_cast<double>(z.size());
  EXPECT_NEAR(m4 / n, 3.0, 0.05);
  EXPECT_NEAR(beyond2 / n, 2 * normal_cdf(-2), 0.002);
  EXPECT_NEAR(beyond3 / n, 2 * normal_cdf(-3), 0.0004);
  EXPECT_NEAR(beyond4 / n, 2 * normal_cdf(-4), 0.00005);
  // Kolmogorov-Smirnov: at the 1% level the statistic stays below 1.63 / sqrt(n).
  std::sort(z.begin(), z.end());
  double ks = 0;
  for (size_t i = 0; i < z.size(); ++i) {
    const double f = normal_cdf(z[i]);
    ks = std::max({ks, std::fabs(f - i / n), std::fabs((i + 1) / n - f)});
  }
  EXPECT_LT(ks, 1.63 / std::sqrt(n));
}

TEST(Noise, ClipsAtTheEndsOfTheRange) {
  Rng rng(3);
  const Tensor black = gaussian_noise(filled(1, 400, 400, 0), rng, 0.0, 0.1);
  const Tensor white = gaussian_noise(filled(1, 400, 400, 255), rng, 0.0, 0.1);
  const double n = static_cast<double>(black.numel());
  double zeros = 0, full = 0;
  for (int64_t i = 0; i < black.numel(); ++i) {
    zeros += black.data<uint8_t>()[i] == 0;
    full += white.data<uint8_t>()[i] == 255;
  }
  // Noise that truncates to <= 0 (or >= 0): trunc(25.5 z) <= 0 <=> 25.5 z < 1.
  const double p = normal_cdf(1.0 / 25.5);
  EXPECT_NEAR(zeros / n, p, 0.005);
  EXPECT_NEAR(full / n, p, 0.005);
  Rng frng(4);
  const Tensor f = gaussian_noise(filled_f(1, 100, 100, 0.95f), frng, 0.0, 0.2);
  double ones = 0;
  for (int64_t i = 0; i < f.numel(); ++i) {
    ASSERT_GE(f.data<float>()[i], 0.0f);
    ASSERT_LE(f.data<float>()[i], 1.0f);
    ones += f.data<float>()[i] == 1.0f;
  }
  EXPECT_NEAR(ones / f.numel(), normal_cdf(-0.05 / 0.2), 0.02);
}

TEST(Noise, WithoutClipUint8WrapsModulo256) {
  const Tensor black = filled(1, 300, 300, 0);
  Rng a(5), b(5);
  const Tensor clipped = gaussian_noise(black, a, 0.0, 0.1, true);
  const Tensor wrapped = gaussian_noise(black, b, 0.0, 0.1, false);
  double high = 0;
  for (int64_t i = 0; i < black.numel(); ++i) {
    const uint8_t c = clipped.data<uint8_t>()[i], w = wrapped.data<uint8_t>()[i];
    if (c > 0) {
      ASSERT_EQ(w, c) << i;  // positive noise: the same value
    } else {
      ASSERT_TRUE(w == 0 || w > 128) << i;  // negative noise n >= -128 (5 sigma) shows as 256 + n
      high += w > 128;
    }
  }
  EXPECT_NEAR(high / black.numel(), normal_cdf(-1.0 / 25.5), 0.005);  // noise truncating to < 0
}

TEST(Noise, Uint8SumsInInt16AndHugeNoiseSaturates) {
  // sigma 200 (51000 on the uint8 scale): noise saturates at the int16 range; 255 + noise wraps to a
  // negative int16 (then clips to 0) when noise > 32767 - 255, as torch's int16 addition does.
  Rng rng(9);
  const Tensor out = gaussian_noise(filled(1, 300, 300, 255), rng, 0.0, 200.0);
  double zeros = 0;
  for (int64_t i = 0; i < out.numel(); ++i) zeros += out.data<uint8_t>()[i] == 0;
  const double s = static_cast<float>(200.0 * 255.0);
  const double want = normal_cdf(-255.0 / s) + normal_cdf(-(32767.0 - 255.0 + 1.0) / s);
  EXPECT_NEAR(zeros / out.numel(), want, 0.01);
}

TEST(Noise, SeedsDecide) {
  const Tensor image = filled(3, 64, 64, 100);
  Rng a(1), b(1), c(2);
  const Tensor x = gaussian_noise(image, a), y = gaussian_noise(image, b), z = gaussian_noise(image, c);
  int64_t same_xy = 0, same_xz = 0;
  for (int64_t i = 0; i < x.numel(); ++i) {
    same_xy += x.data<uint8_t>()[i] == y.data<uint8_t>()[i];
    same_xz += x.data<uint8_t>()[i] == z.data<uint8_t>()[i];
  }
  EXPECT_EQ(same_xy, x.numel());
  EXPECT_LT(same_xz, x.numel() / 10);  // two independent draws agree on about 1.6% of values
  EXPECT_EQ(a.next(), b.next());       // one draw each: a and b still in step
  Rng d(1);
  d.next();
  Rng e(1);
  (void)gaussian_noise(image, e);
  EXPECT_EQ(d.next(), e.next());  // gaussian_noise advances the generator by exactly one step
  // A second call on the same generator gives new noise.
  const Tensor again = gaussian_noise(image, a);
  int64_t same = 0;
  for (int64_t i = 0; i < x.numel(); ++i) same += x.data<uint8_t>()[i] == again.data<uint8_t>()[i];
  EXPECT_LT(same, x.numel() / 10);
}

TEST(Noise, SigmaZeroAddsOnlyTheMeanAndStridedInputWorks) {
  Tensor image = filled(3, 10, 12, 50);
  Rng rng(1);
  const Tensor out = gaussian_noise(image.permute({1, 2, 0}), rng, 0.1, 0.0);  // a strided view
  EXPECT_EQ(out.size(0), 10);
  EXPECT_EQ(out.size(2), 3);
  for (int64_t i = 0; i < out.numel(); ++i) ASSERT_EQ(out.data<uint8_t>()[i], 50 + 25);  // trunc(25.5)
}

TEST(Noise, BadArguments) {
  Rng rng;
  const Tensor image = filled(3, 4, 4, 0);
  EXPECT_THROW(gaussian_noise(image, rng, 0.0, -0.1), Error);
  EXPECT_THROW(gaussian_noise(image, rng, NAN, 0.1), Error);
  EXPECT_THROW(gaussian_noise(image.select(0, 0), rng), Error);
  try {
    gaussian_noise(Tensor::zeros({3, 4, 4}, DType::kInt16), rng);
    ADD_FAILURE() << "int16 accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUnsupported);
  }
}

// Optional: torchvision 0.24 (which has gaussian_noise) in /work/venv-tv. The only test of this file
// that may skip.
TEST(Noise, HistogramMatchesTorchvision024) {
  const std::string python = "/work/venv-tv/bin/python";
  if (!std::filesystem::exists(python)) GTEST_SKIP() << python << " is absent";
  const Tensor gray = filled(3, 256, 256, 128);
  for (auto [mean, sigma] : {std::pair{0.0, 0.1}, {0.1, 0.02}}) {
    const auto out = test::run_python_reference(
        "noise_tv024.py", {{"image", gray}},
        fmt::format(R"({{"mean": {}, "sigma": {}, "clip": true, "seed": 3}})", mean, sigma), python);
    ASSERT_EQ(out.count("image"), 1u);
    Rng rng(3);
    const Tensor ours = gaussian_noise(gray, rng, mean, sigma);
    std::vector<double> hist_tv(256), hist_loom(256);
    for (int64_t i = 0; i < gray.numel(); ++i) {
      hist_tv[out.at("image").data<uint8_t>()[i]] += 1.0 / gray.numel();
      hist_loom[ours.data<uint8_t>()[i]] += 1.0 / gray.numel();
    }
    double cdf_tv = 0, cdf_loom = 0, ks = 0;
    for (int v = 0; v < 256; ++v) {
      cdf_tv += hist_tv[v], cdf_loom += hist_loom[v];
      ks = std::max(ks, std::fabs(cdf_tv - cdf_loom));
      EXPECT_NEAR(hist_tv[v], hist_loom[v], 0.004) << v;
    }
    // Two-sample KS at the 1% level: 1.63 * sqrt(2 / n).
    EXPECT_LT(ks, 1.63 * std::sqrt(2.0 / gray.numel())) << mean << " " << sigma;
  }
}

}  // namespace
}  // namespace loom::transforms
