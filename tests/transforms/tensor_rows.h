// Test helpers shared by the transforms tests: small float32/float64 tensors from rows, and back.
#pragma once

#include <cstdint>
#include <vector>

#include "loom/codec/tensor.h"

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

}  // namespace loom::transforms::test_util
