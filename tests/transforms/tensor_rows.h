// Test helpers shared by the transforms tests: small float32/float64 tensors from rows, and back, and
// small uint8 images.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "loom/codec/tensor.h"
#include "loom/transforms/random.h"

namespace loom::transforms::test_util {

// An n x k tensor of `rows` (k = the first row's length, 4 when there are none) in float32 or float64.
inline Tensor rows_tensor(const std::vector<std::vector<double>>& rows, DType dtype = DType::kFloat64) {
  const auto n = static_cast<int64_t>(rows.size());
  const auto k = static_cast<int64_t>(rows.empty() ? 4 : rows[0].size());
  Tensor t = Tensor::empty({n, k}, dtype);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < k; ++j) {
      if (dtype == DType::kFloat32) {
        t.data<float>()[i * k + j] = static_cast<float>(rows[i][j]);
      } else {
        t.data<double>()[i * k + j] = rows[i][j];
      }
    }
  }
  return t;
}

// The elements of a float32 or float64 tensor, in row-major order, as doubles.
inline std::vector<double> tensor_doubles(const Tensor& t) {
  const Tensor c = t.contiguous();
  std::vector<double> v(static_cast<size_t>(c.numel()));
  for (int64_t i = 0; i < c.numel(); ++i) {
    v[i] = c.dtype() == DType::kFloat32 ? static_cast<double>(c.data<float>()[i]) : c.data<double>()[i];
  }
  return v;
}

// A c x h x w uint8 image of uniform random values from `rng`.
inline Tensor random_image(int64_t c, int64_t h, int64_t w, Rng rng) {
  Tensor t = Tensor::empty({c, h, w}, DType::kUInt8);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<uint8_t>()[i] = static_cast<uint8_t>(rng.integer(0, 256));
  return t;
}

// A c x h x w uint8 image of value v.
inline Tensor filled(int64_t c, int64_t h, int64_t w, uint8_t v) {
  Tensor t = Tensor::empty({c, h, w}, DType::kUInt8);
  std::memset(t.data(), v, static_cast<size_t>(t.numel()));
  return t;
}

// A tensor's bytes in row-major order.
inline std::vector<uint8_t> bytes(const Tensor& t) {
  const Tensor c = t.contiguous();
  const auto* p = static_cast<const uint8_t*>(c.data());
  return {p, p + c.nbytes()};
}

}  // namespace loom::transforms::test_util
