// Resize: analytic expectations (constant images, identity, box averages, nearest indices) and the
// shorter-side rule. Parity with Pillow is checked through the CLI in tests/parity.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "loom/codec/error.h"
#include "loom/transforms/resize.h"

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
  o.layout = vision::Layout::kHWC;
  return o;
}

TEST(Resize, ConstantImageStaysConstant) {
  for (Interpolation interp : {Interpolation::kNearest, Interpolation::kBilinear, Interpolation::kBicubic, Interpolation::kBox}) {
    Tensor t = Tensor::empty({40, 60, 3}, DType::kUInt8);
    std::fill_n(t.data<uint8_t>(), t.numel(), uint8_t{77});
    for (Size s : {Size{13, 17}, Size{97, 143}, Size{40, 60}}) {
      const Tensor r = resize(t, s, hwc(interp));
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
  const Tensor h = gradient(30, 40, 3, DType::kUInt8);
  const Tensor c = h.permute({2, 0, 1});
  ResizeOptions chw;
  chw.layout = vision::Layout::kCHW;
  const Tensor rh = resize(h, {17, 25}, hwc(Interpolation::kBilinear));
  const Tensor rc = resize(c, {17, 25}, chw);
  const Tensor back = rc.permute({1, 2, 0}).contiguous();
  for (int64_t i = 0; i < rh.numel(); ++i) ASSERT_EQ(rh.data<uint8_t>()[i], back.data<uint8_t>()[i]);
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
  // A device tensor is refused before any element is read (the pointer here is not even valid).
  const int64_t shape[] = {4, 4, 3};
  const Tensor on_gpu = Tensor::from_blob(reinterpret_cast<void*>(0x10), shape, {}, DType::kUInt8, Device::cuda());
  try {
    resize(on_gpu, {2, 2}, hwc(Interpolation::kBilinear));
    FAIL() << "resized a CUDA tensor on the CPU";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUnsupported);
  }
  EXPECT_THROW(resize(Tensor::zeros({4, 4}, DType::kUInt8), {2, 2}, hwc(Interpolation::kBilinear)), Error);
}

}  // namespace
}  // namespace loom::transforms
