// Resize: analytic expectations (constant images, identity, box averages, nearest indices, torch's
// non-antialiased border rule) and the shorter-side rule. Parity with Pillow and torch on the same
// inputs is in resize_parity_test.cc, and through the CLI in tests/parity.
#include "loom/transforms/resize.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

#include "loom/accel/cuda.h"
#include "loom/codec/error.h"

namespace loom::transforms {
namespace {

Tensor gradient(int64_t h, int64_t w, int64_t c, DType dtype) {
  Tensor t = Tensor::empty({h, w, c}, dtype);
  for (int64_t i = 0; i < t.numel(); ++i) {
    const int64_t x = (i / c) % w, y = i / (c * w);
    const double v = static_cast<double>((x * 3 + y * 5 + (i % c) * 40) % 256);
    if (dtype == DType::kUInt8) {
      t.data<uint8_t>()[i] = static_cast<uint8_t>(v);
    } else {
      t.data<float>()[i] = static_cast<float>(v);
    }
  }
  return t;
}

ResizeOptions hwc(Interpolation interp, bool antialias = true) {
  ResizeOptions o;
  o.interpolation = interp;
  o.antialias = antialias;
  o.layout = Layout::kHWC;
  return o;
}

TEST(Resize, ConstantImageStaysConstant) {
  for (Interpolation interp : {Interpolation::kNearest, Interpolation::kNearestExact, Interpolation::kBilinear,
                               Interpolation::kBicubic, Interpolation::kBox}) {
    Tensor t = Tensor::empty({40, 60, 3}, DType::kUInt8);
    std::fill_n(t.data<uint8_t>(), t.numel(), uint8_t{77});
    for (auto [s, antialias] : {std::pair{Size{13, 17}, true},
                                {Size{97, 143}, true},
                                {Size{40, 60}, true},
                                {Size{13, 17}, false},
                                {Size{97, 143}, false}}) {
      const Tensor r = resize(t, s, hwc(interp, antialias));
      ASSERT_EQ(r.size(0), s.height);
      ASSERT_EQ(r.size(1), s.width);
      for (int64_t i = 0; i < r.numel(); ++i) ASSERT_EQ(r.data<uint8_t>()[i], 77);
    }
  }
}

TEST(Resize, SameSizeIsIdentity) {
  const Tensor t = gradient(21, 34, 4, DType::kUInt8);
  for (Interpolation interp : {Interpolation::kBilinear, Interpolation::kBicubic, Interpolation::kNearest}) {
    const Tensor r = resize(t, {21, 34}, hwc(interp));
    for (int64_t i = 0; i < t.numel(); ++i) ASSERT_EQ(r.data<uint8_t>()[i], t.data<uint8_t>()[i]);
  }
}

TEST(Resize, HalvingWithAntialiasedBilinearAveragesPairs) {
  // Downscale by exactly 2 with the triangle filter widened to support 2: weights 1/8, 3/8, 3/8, 1/8.
  const Tensor t = gradient(1, 64, 1, DType::kFloat32);
  const Tensor r = resize(t, {1, 32}, hwc(Interpolation::kBilinear));
  const float* in = t.data<float>();
  for (int i = 1; i < 31; ++i) {
    const double expected = (in[2 * i - 1] + 3.0 * in[2 * i] + 3.0 * in[2 * i + 1] + in[2 * i + 2]) / 8.0;
    EXPECT_NEAR(r.data<float>()[i], expected, 1e-4) << i;
  }
}

TEST(Resize, BoxDownscaleByAnIntegerFactorIsTheBlockMean) {
  const Tensor t = gradient(12, 12, 1, DType::kFloat32);
  const Tensor r = resize(t, {4, 4}, hwc(Interpolation::kBox));
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 4; ++x) {
      double sum = 0;
      for (int dy = 0; dy < 3; ++dy)
        for (int dx = 0; dx < 3; ++dx) sum += t.data<float>()[(3 * y + dy) * 12 + 3 * x + dx];
      EXPECT_NEAR(r.data<float>()[y * 4 + x], sum / 9.0, 1e-4);
    }
}

TEST(Resize, NearestPicksFloorOfScaledIndex) {
  const Tensor t = gradient(7, 9, 2, DType::kUInt8);
  const Tensor r = resize(t, {3, 5}, hwc(Interpolation::kNearest));
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 5; ++x)
      for (int c = 0; c < 2; ++c) {
        const int sy = static_cast<int>(y * 7.0 / 3), sx = static_cast<int>(x * 9.0 / 5);
        EXPECT_EQ(r.data<uint8_t>()[(y * 5 + x) * 2 + c], t.data<uint8_t>()[(sy * 9 + sx) * 2 + c]);
      }
}

TEST(Resize, NearestExactPicksTheCenterIndex) {
  // torch "nearest-exact": floor((dst + 0.5) * in / out), here with exactly representable products.
  const Tensor t = gradient(8, 12, 3, DType::kUInt8);
  const Tensor r = resize(t, {4, 16}, hwc(Interpolation::kNearestExact));
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 16; ++x)
      for (int c = 0; c < 3; ++c) {
        const int sy = static_cast<int>((y + 0.5) * 2.0), sx = static_cast<int>((x + 0.5) * 0.75);
        ASSERT_EQ(r.data<uint8_t>()[(y * 16 + x) * 3 + c], t.data<uint8_t>()[(sy * 12 + sx) * 3 + c]) << y << " " << x;
      }
  // Downscaling 3 -> 1 picks the middle sample, where "nearest" picks the first.
  const Tensor row = gradient(1, 3, 1, DType::kFloat32);
  EXPECT_EQ(resize(row, {1, 1}, hwc(Interpolation::kNearestExact)).data<float>()[0], row.data<float>()[1]);
  EXPECT_EQ(resize(row, {1, 1}, hwc(Interpolation::kNearest)).data<float>()[0], row.data<float>()[0]);
}

TEST(Resize, BicubicWithoutAntialiasIsTorchsKeysWithAReplicatedBorder) {
  // torch's upsample_bicubic2d: src = (dst + 0.5) * in / out - 0.5, taps floor(src) - 1 .. + 2 with
  // indices clamped to the row, a = -0.75.
  const float in[5] = {0.0f, 10.0f, 40.0f, 20.0f, 90.0f};
  Tensor t = Tensor::empty({1, 5, 1}, DType::kFloat32);
  std::copy(in, in + 5, t.data<float>());
  const Tensor r = resize(t, {1, 12}, hwc(Interpolation::kBicubic, /*antialias=*/false));
  auto cubic = [](double x) {
    constexpr double a = -0.75;
    x = std::fabs(x);
    return x <= 1 ? ((a + 2) * x - (a + 3)) * x * x + 1 : x < 2 ? ((a * x - 5 * a) * x + 8 * a) * x - 4 * a : 0.0;
  };
  for (int i = 0; i < 12; ++i) {
    const double src = (i + 0.5) * 5.0 / 12.0 - 0.5;
    const int x0 = static_cast<int>(std::floor(src));
    double expected = 0;
    for (int k = -1; k <= 2; ++k) expected += cubic(src - (x0 + k)) * in[std::clamp(x0 + k, 0, 4)];
    EXPECT_NEAR(r.data<float>()[i], expected, 1e-4) << i;
  }
  // The antialiased bicubic (Pillow's a = -0.5, border taps dropped) differs on the same upscale.
  const Tensor aa = resize(t, {1, 12}, hwc(Interpolation::kBicubic, /*antialias=*/true));
  double most = 0;
  for (int i = 0; i < 12; ++i) most = std::max<double>(most, std::fabs(aa.data<float>()[i] - r.data<float>()[i]));
  EXPECT_GT(most, 0.5);
}

TEST(Resize, Uint8FollowsTheFloatPathWithinOne) {
  // A smooth ramp that stays inside 0..255 even with bicubic overshoot, so clipping plays no part.
  Tensor u = Tensor::empty({50, 70, 3}, DType::kUInt8), f = Tensor::empty({50, 70, 3}, DType::kFloat32);
  for (int64_t i = 0; i < u.numel(); ++i) {
    const int64_t c = i % 3, x = (i / 3) % 70, y = i / 210;
    u.data<uint8_t>()[i] = static_cast<uint8_t>(10 + x + 2 * y + 20 * c);
    f.data<float>()[i] = static_cast<float>(u.data<uint8_t>()[i]);
  }
  for (Interpolation interp : {Interpolation::kBilinear, Interpolation::kBicubic}) {
    for (Size s : {Size{23, 31}, Size{120, 90}, Size{50, 31}, Size{23, 70}}) {  // both, one or the other axis
      const Tensor ru = resize(u, s, hwc(interp)), rf = resize(f, s, hwc(interp));
      for (int64_t i = 0; i < ru.numel(); ++i) {
        const double clamped = std::clamp<double>(rf.data<float>()[i], 0, 255);
        // Two roundings to uint8 (after each pass) against none; bicubic's negative lobes can
        // amplify the first rounding (sum of |weights| above 1).
        const double tolerance = interp == Interpolation::kBilinear ? 1.0 + 1e-6 : 1.5;
        ASSERT_NEAR(ru.data<uint8_t>()[i], clamped, tolerance) << i;
      }
    }
  }
}

TEST(Resize, Uint16FollowsTheFloatPath) {
  Tensor u = Tensor::empty({40, 30, 2}, DType::kUInt16), f = Tensor::empty({40, 30, 2}, DType::kFloat32);
  for (int64_t i = 0; i < u.numel(); ++i) {
    u.data<uint16_t>()[i] = static_cast<uint16_t>(1000 + 37 * (i % 60) + 211 * (i / 60));
    f.data<float>()[i] = static_cast<float>(u.data<uint16_t>()[i]);
  }
  const Tensor ru = resize(u, {13, 45}, hwc(Interpolation::kBilinear));
  const Tensor rf = resize(f, {13, 45}, hwc(Interpolation::kBilinear));
  ASSERT_EQ(ru.dtype(), DType::kUInt16);
  for (int64_t i = 0; i < ru.numel(); ++i) ASSERT_NEAR(ru.data<uint16_t>()[i], rf.data<float>()[i], 1.0) << i;
}

TEST(Resize, ChwEqualsHwcPermuted) {
  // uint8 CHW with a horizontal pass is resized as interleaved pixels: every channel count, both orders.
  for (DType dtype : {DType::kUInt8, DType::kFloat32}) {
    for (int64_t channels : {2, 3, 4}) {
      const Tensor h = gradient(30, 40, channels, dtype);
      const Tensor c = h.permute({2, 0, 1});
      for (Interpolation interp : {Interpolation::kNearestExact, Interpolation::kBilinear, Interpolation::kBicubic}) {
        for (bool antialias : {true, false}) {
          for (Size s : {Size{17, 55}, Size{11, 13}, Size{60, 20}, Size{30, 7}, Size{9, 40}}) {
            ResizeOptions chw = hwc(interp, antialias);
            chw.layout = Layout::kCHW;
            const Tensor rh = resize(h, s, hwc(interp, antialias));
            const Tensor back = resize(c, s, chw).permute({1, 2, 0}).contiguous();
            ASSERT_EQ(0, std::memcmp(rh.data(), back.data(), rh.nbytes()))
                << static_cast<int>(interp) << antialias << " C=" << channels << " " << s.height << "x" << s.width;
          }
        }
      }
    }
  }
}

// A noisy image (every value 0..255 appears), so that rounding between the passes shows.
Tensor noise(int64_t h, int64_t w, int64_t c, DType dtype) {
  Tensor t = Tensor::empty({h, w, c}, dtype);
  uint32_t state = 12345;
  for (int64_t i = 0; i < t.numel(); ++i) {
    state = state * 1664525u + 1013904223u;
    const auto v = static_cast<uint8_t>(state >> 24);
    if (dtype == DType::kUInt8) {
      t.data<uint8_t>()[i] = v;
    } else {
      t.data<float>()[i] = static_cast<float>(v);
    }
  }
  return t;
}

bool same_bytes(const Tensor& a, const Tensor& b) {
  return a.nbytes() == b.nbytes() && std::memcmp(a.data(), b.data(), a.nbytes()) == 0;
}

TEST(Resize, DefaultRunsTheCheaperPassFirstAndPillowExactHorizontalFirst) {
  // Each single-axis resize runs one pass, so composing two of them spells out an order.
  const auto horizontal_then_vertical = [](const Tensor& t, Size s, const ResizeOptions& o) {
    return resize(resize(t, {t.size(0), s.width}, o), s, o);
  };
  const auto vertical_then_horizontal = [](const Tensor& t, Size s, const ResizeOptions& o) {
    return resize(resize(t, {s.height, t.size(1)}, o), s, o);
  };
  for (DType dtype : {DType::kUInt8, DType::kFloat32}) {
    for (Interpolation interp : {Interpolation::kBilinear, Interpolation::kBicubic, Interpolation::kBox}) {
      // A downscale of both axes does less work vertical first; a mostly horizontal downscale with the
      // height almost kept does less horizontal first.
      const Tensor image = noise(100, 120, 3, dtype);
      const Size both{17, 23}, mostly_horizontal{90, 30};
      ResizeOptions pillow = hwc(interp), cheaper = hwc(interp);
      pillow.pillow_exact = true;
      for (Size s : {both, mostly_horizontal}) {
        EXPECT_TRUE(same_bytes(resize(image, s, pillow), horizontal_then_vertical(image, s, pillow)));
      }
      const bool clamped_between_passes = dtype == DType::kUInt8 && interp == Interpolation::kBicubic;
      EXPECT_TRUE(same_bytes(resize(image, both, cheaper), clamped_between_passes
                                                               ? horizontal_then_vertical(image, both, cheaper)
                                                               : vertical_then_horizontal(image, both, cheaper)))
          << static_cast<int>(interp);
      EXPECT_TRUE(same_bytes(resize(image, mostly_horizontal, cheaper),
                             horizontal_then_vertical(image, mostly_horizontal, cheaper)));
    }
  }
}

TEST(Resize, Uint8DefaultIsWithinOneOfPillowExact) {
  // The two orders round a different intermediate image, each by at most half a level, bilinear and
  // box weights are positive and sum to 1, and the 16-bit vertical kernel's products are off by at
  // most 1/256 of a level each: the results differ by at most 1 here.
  for (Interpolation interp : {Interpolation::kBilinear, Interpolation::kBox}) {
    for (int64_t channels : {1, 3, 4}) {
      const Tensor image = noise(90, 160, channels, DType::kUInt8);
      for (Size s : {Size{17, 23}, Size{45, 80}, Size{30, 150}, Size{200, 300}}) {
        ResizeOptions pillow = hwc(interp), cheaper = hwc(interp);
        pillow.pillow_exact = true;
        const Tensor a = resize(image, s, pillow), b = resize(image, s, cheaper);
        int worst = 0;
        for (int64_t i = 0; i < a.numel(); ++i) {
          worst = std::max(worst, std::abs(a.data<uint8_t>()[i] - b.data<uint8_t>()[i]));
        }
        EXPECT_LE(worst, 1) << static_cast<int>(interp) << " C=" << channels << " " << s.height << "x" << s.width;
      }
    }
  }
}

TEST(Resize, NoAntialiasKeepsTheNarrowFilter) {
  // Downscale by 4 without antialias: bilinear reads only the two inputs around each center.
  const Tensor t = gradient(1, 64, 1, DType::kFloat32);
  const Tensor r = resize(t, {1, 16}, hwc(Interpolation::kBilinear, /*antialias=*/false));
  const float* in = t.data<float>();
  for (int i = 1; i < 15; ++i) {
    const double center = (i + 0.5) * 4 - 0.5;  // in pixel-index coordinates
    const int lo = static_cast<int>(std::floor(center));
    const double frac = center - lo;
    EXPECT_NEAR(r.data<float>()[i], in[lo] * (1 - frac) + in[lo + 1] * frac, 1e-4);
  }
}

TEST(Resize, ShorterSideRuleMatchesTorchvision) {
  EXPECT_EQ(size_for_shorter_side({1080, 1920}, 256).width, 455);  // int(256 * 1920 / 1080)
  EXPECT_EQ(size_for_shorter_side({1080, 1920}, 256).height, 256);
  EXPECT_EQ(size_for_shorter_side({500, 333}, 224).width, 224);
  EXPECT_EQ(size_for_shorter_side({500, 333}, 224).height, 336);  // int(224 * 500 / 333) = 336
  EXPECT_EQ(size_for_shorter_side({100, 100}, 7).width, 7);
  EXPECT_THROW(size_for_shorter_side({0, 10}, 5), Error);
}

TEST(Resize, RejectsBadArguments) {
  const Tensor t = gradient(4, 4, 3, DType::kUInt8);
  EXPECT_THROW(resize(t, {0, 4}, hwc(Interpolation::kBilinear)), Error);
  EXPECT_THROW(resize(Tensor::zeros({4, 4, 5}, DType::kUInt8), {2, 2}, hwc(Interpolation::kBilinear)), Error);
  EXPECT_THROW(resize(Tensor::zeros({4, 4, 3}, DType::kInt32), {2, 2}, hwc(Interpolation::kBilinear)), Error);
  EXPECT_THROW(resize(Tensor::zeros({4, 4, 3}, DType::kFloat64), {2, 2}, hwc(Interpolation::kBilinear)), Error);
  // A tensor on a CUDA device this process cannot use (the first index past the usable ones) is
  // refused before any element is read (the pointer here is not even valid).
  const int64_t shape[] = {4, 4, 3};
  const Tensor on_gpu = Tensor::from_blob(reinterpret_cast<void*>(0x10), shape, {}, DType::kUInt8,
                                          Device::cuda(accel::cuda_device_count()));
  try {
    resize(on_gpu, {2, 2}, hwc(Interpolation::kBilinear));
    FAIL() << "resized a tensor on an unusable CUDA device";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUnsupported);
  }
  EXPECT_THROW(resize(Tensor::zeros({4, 4}, DType::kUInt8), {2, 2}, hwc(Interpolation::kBilinear)), Error);
}

}  // namespace
}  // namespace loom::transforms
