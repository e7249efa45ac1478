// Helpers of the color tests (color_test.cc, color_transforms_test.cc): random images, element-wise
// comparison, layout changes.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>

#include "loom/codec/tensor.h"

namespace loom::transforms::color_test {

// A c x h x w image of uniform random values: uint8 0..255, or float32 in [0, 1).
inline Tensor random_image(int64_t c, int64_t h, int64_t w, DType dtype, uint32_t seed) {
  std::mt19937 rng(seed);
  Tensor t = Tensor::empty({c, h, w}, dtype);
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (dtype == DType::kUInt8) {
      t.data<uint8_t>()[i] = static_cast<uint8_t>(rng() & 255);
    } else {
      t.data<float>()[i] = static_cast<float>(rng() >> 8) * 0x1.0p-24f;
    }
  }
  return t;
}

inline double as_double(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DType::kUInt8: return t.data<uint8_t>()[i];
    case DType::kUInt16: return t.data<uint16_t>()[i];
    case DType::kFloat32: return t.data<float>()[i];
    default: return t.data<double>()[i];
  }
}

struct Diff {
  double max_abs = 0, max_rel = 0;
  int64_t mismatches = 0;
};

inline Diff compare(const Tensor& got, const Tensor& want) {
  Diff d;
  const Tensor g = got.contiguous(), w = want.contiguous();
  for (int64_t i = 0; i < g.numel(); ++i) {
    const double a = as_double(g, i), b = as_double(w, i);
    const double e = std::fabs(a - b);
    d.max_abs = std::max(d.max_abs, e);
    d.max_rel = std::max(d.max_rel, e / std::max(std::fabs(b), 1.0));
    d.mismatches += e != 0.0;
  }
  return d;
}

inline bool same_shape(const Tensor& a, const Tensor& b) {
  return std::equal(a.shape().begin(), a.shape().end(), b.shape().begin(), b.shape().end());
}

inline Tensor hwc(const Tensor& chw) {
  return chw.permute({1, 2, 0}).contiguous();
}
inline Tensor chw(const Tensor& hwc_tensor) {
  return hwc_tensor.permute({2, 0, 1}).contiguous();
}

}  // namespace loom::transforms::color_test
