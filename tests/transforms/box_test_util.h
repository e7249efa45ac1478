// Helpers of the box and keypoint tests (annotations_test.cc, box_clamp_test.cc, sanitize_test.cc,
// annotations_parity_test.cc).
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <functional>
#include <string>
#include <vector>

#include "loom/codec/error.h"
#include "loom/transforms/annotations.h"
#include "tensor_rows.h"

namespace loom::transforms::test_util {

inline constexpr std::array<BoxFormat, 3> kAxisFormats = {BoxFormat::kXYXY, BoxFormat::kXYWH, BoxFormat::kCXCYWH};
inline constexpr std::array<BoxFormat, 3> kRotatedFormats = {BoxFormat::kXYWHR, BoxFormat::kCXCYWHR,
                                                             BoxFormat::kXYXYXYXY};

inline Tensor make(const std::vector<std::vector<double>>& rows, DType dtype = DType::kFloat64) {
  return rows_tensor(rows, dtype);
}

inline double at(const Tensor& t, int64_t i) {
  const Tensor c = t.contiguous();
  return c.dtype() == DType::kFloat32 ? c.data<float>()[i] : c.data<double>()[i];
}

inline std::vector<double> row(const Tensor& t, int64_t r) {
  std::vector<double> v;
  for (int64_t j = 0; j < t.size(1); ++j) v.push_back(at(t, r * t.size(1) + j));
  return v;
}

inline void expect_row_near(const Tensor& t, int64_t r, const std::vector<double>& expected, double tol = 1e-9) {
  ASSERT_EQ(t.size(1), static_cast<int64_t>(expected.size()));
  for (size_t j = 0; j < expected.size(); ++j) {
    EXPECT_NEAR(at(t, r * t.size(1) + static_cast<int64_t>(j)), expected[j], tol) << "row " << r << " value " << j;
  }
}

inline void expect_invalid(const std::function<void()>& f, const std::string& fragment = "") {
  try {
    f();
    ADD_FAILURE() << "no Error thrown";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidInput) << e.what();
    if (!fragment.empty()) EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

}  // namespace loom::transforms::test_util
