// Helpers of the transforms GPU tests (tests/transforms/*_gpu_test.cc, the ctest label gpu): copies
// to and from device 0, synthetic images (random noise and a "real-ish" scene of smooth gradients,
// hard edges, fine texture and saturated areas) and host-side comparisons. Every test skips without
// a usable CUDA device (LOOM_SKIP_WITHOUT_CUDA).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "loom/accel/cuda.h"
#include "loom/codec/tensor.h"

#define LOOM_SKIP_WITHOUT_CUDA() \
  if (loom::accel::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device"

namespace loom::transforms::gpu_test {

// A copy on CUDA device 0 and back (synchronous: accel::to_device waits for the current stream,
// where the ops queue their work).
inline Tensor to_cuda(const Tensor& t) {
  return accel::to_device(t, Device::cuda(0));
}
inline Tensor to_cpu(const Tensor& t) {
  EXPECT_FALSE(t.device().is_cpu()) << "the result should be on the device";
  return accel::to_device(t, Device::cpu());
}

// splitmix64: the tests' own deterministic generator.
inline uint64_t next_random(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// A value in [0, 1] of pixel (y, x), channel c: `noise` = uniform random; otherwise a scene of a
// diagonal gradient, a bright disc with a hard edge, a fine checkerboard (aliasing), a black bar
// and a sinusoid per channel, clamped to [0, 1].
inline double scene_value(int64_t y, int64_t x, int64_t c, int64_t h, int64_t w, bool noise, uint64_t& state) {
  if (noise) return static_cast<double>(next_random(state) >> 11) * 0x1.0p-53;
  const double u = (x + 0.5) / w, v = (y + 0.5) / h;
  double value = 0.35 * u + 0.25 * v + 0.1 * c;
  const double dx = u - 0.6, dy = v - 0.4;
  if (dx * dx + dy * dy < 0.04) value = 0.95 - 0.05 * c;
  if (u < 0.3 && v > 0.6) value = ((x / 2 + y / 2) % 2) ? 1.0 : 0.0;
  if (v > 0.85 && u > 0.5) value = 0.0;
  value += 0.08 * std::sin(0.37 * x + 0.21 * y + c);
  value += 0.02 * (static_cast<double>(next_random(state) >> 11) * 0x1.0p-53 - 0.5);
  return std::clamp(value, 0.0, 1.0);
}

// A contiguous CPU image (kCHW: c x h x w, else h x w x c): uint8 and uint16 on their full range,
// float32 in [0, 1], other dtypes as integers 0..255.
inline Tensor synthetic_image(int64_t h, int64_t w, int64_t c, DType dtype, bool hwc, bool noise, uint64_t seed) {
  Tensor t = hwc ? Tensor::empty({h, w, c}, dtype) : Tensor::empty({c, h, w}, dtype);
  uint64_t state = seed;
  for (int64_t y = 0; y < h; ++y) {
    for (int64_t x = 0; x < w; ++x) {
      for (int64_t k = 0; k < c; ++k) {
        const double v = scene_value(y, x, k, h, w, noise, state);
        const int64_t i = hwc ? (y * w + x) * c + k : (k * h + y) * w + x;
        switch (dtype) {
          case DType::kUInt8: t.data<uint8_t>()[i] = static_cast<uint8_t>(std::lround(v * 255.0)); break;
          case DType::kUInt16: t.data<uint16_t>()[i] = static_cast<uint16_t>(std::lround(v * 65535.0)); break;
          case DType::kFloat32: t.data<float>()[i] = static_cast<float>(v); break;
          case DType::kFloat64: t.data<double>()[i] = std::round(v * 255.0); break;
          case DType::kInt16: t.data<int16_t>()[i] = static_cast<int16_t>(std::lround(v * 255.0)); break;
          default: t.data<int32_t>()[i] = static_cast<int32_t>(std::lround(v * 255.0)); break;
        }
      }
    }
  }
  return t;
}

// The element at flat index i of a contiguous CPU tensor, as a double.
inline double value_at(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DType::kUInt8: return t.data<uint8_t>()[i];
    case DType::kUInt16: return t.data<uint16_t>()[i];
    case DType::kFloat32: return t.data<float>()[i];
    case DType::kFloat64: return t.data<double>()[i];
    case DType::kInt16: return t.data<int16_t>()[i];
    default: return t.data<int32_t>()[i];
  }
}

// Same shape, dtype and bytes (contiguous CPU tensors); the first differing element otherwise.
inline ::testing::AssertionResult same_bytes(const Tensor& expected, const Tensor& actual) {
  if (expected.dtype() != actual.dtype() || !std::ranges::equal(expected.shape(), actual.shape())) {
    return ::testing::AssertionFailure() << "shape or dtype differs";
  }
  const size_t esize = element_size(expected.dtype());
  const auto* a = static_cast<const uint8_t*>(expected.data());
  const auto* b = static_cast<const uint8_t*>(actual.data());
  for (int64_t i = 0; i < expected.numel(); ++i) {
    if (std::memcmp(a + i * esize, b + i * esize, esize) != 0) {
      return ::testing::AssertionFailure() << "element " << i << " of " << expected.numel() << ": expected "
                                           << value_at(expected, i) << ", got " << value_at(actual, i);
    }
  }
  return ::testing::AssertionSuccess();
}

// The largest |expected - actual| (same shape, contiguous CPU tensors), with `relative` dividing
// each difference by max(1, |expected|).
inline double max_difference(const Tensor& expected, const Tensor& actual, bool relative = false) {
  EXPECT_TRUE(std::ranges::equal(expected.shape(), actual.shape()));
  double worst = 0.0;
  for (int64_t i = 0; i < expected.numel(); ++i) {
    const double e = value_at(expected, i), d = std::fabs(e - value_at(actual, i));
    worst = std::max(worst, relative ? d / std::max(1.0, std::fabs(e)) : d);
  }
  return worst;
}

}  // namespace loom::transforms::gpu_test
