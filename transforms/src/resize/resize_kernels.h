// The resize kernels (private to loom::transforms): the scalar reference passes, here, and their
// Highway twins for uint8 (resize_hwy.cc), all fed the plan of resize_plan.h. resize.cc runs them;
// the tests compare every SIMD target with the reference.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "resize/resize_plan.h"

namespace loom::transforms {

inline uint8_t clip8(int32_t acc) {
  return static_cast<uint8_t>(std::clamp(acc >> kPrecisionBits, 0, 255));
}

// A double-precision sum as the sample type: rounded and clamped for uint16, as is for float.
template <typename T>
inline T from_double(double v) {
  if constexpr (std::is_same_v<T, uint16_t>) {
    return static_cast<uint16_t>(std::clamp(std::nearbyint(v), 0.0, 65535.0));
  } else {
    return static_cast<T>(v);
  }
}

// Scalar reference. Horizontal pass over `rows` rows of C interleaved channels: out[y][i] = sum_t in[y][start[i] + t] *
// w.
template <int C, typename T>
void resample_rows(const T* src, int64_t in_w, T* dst, int64_t out_w, int64_t rows, const AxisWeights& c) {
  for (int64_t y = 0; y < rows; ++y) {
    const T* in = src + y * in_w * C;
    T* out = dst + y * out_w * C;
    for (int64_t i = 0; i < out_w; ++i) {
      const T* window = in + static_cast<int64_t>(c.start[i]) * C;
      const int n = c.count[i];
      if constexpr (std::is_same_v<T, uint8_t>) {
        const int32_t* k = &c.fixed[i * c.taps];
        int32_t acc[C];
        for (int ch = 0; ch < C; ++ch) acc[ch] = 1 << (kPrecisionBits - 1);
        for (int t = 0; t < n; ++t)
          for (int ch = 0; ch < C; ++ch) acc[ch] += window[t * C + ch] * k[t];
        for (int ch = 0; ch < C; ++ch) out[i * C + ch] = clip8(acc[ch]);
      } else {
        // Even and odd taps in two sums, so that two additions are in flight (the same order for every
        // C, so CHW and HWC give the same bits).
        const double* k = &c.w[i * c.taps];
        double even[C] = {}, odd[C] = {};
        int t = 0;
        for (; t + 1 < n; t += 2) {
          for (int ch = 0; ch < C; ++ch) {
            even[ch] += window[t * C + ch] * k[t];
            odd[ch] += window[(t + 1) * C + ch] * k[t + 1];
          }
        }
        if (t < n) {
          for (int ch = 0; ch < C; ++ch) even[ch] += window[t * C + ch] * k[t];
        }
        for (int ch = 0; ch < C; ++ch) out[i * C + ch] = from_double<T>(even[ch] + odd[ch]);
      }
    }
  }
}

// resample_rows<C, T> with the channel count chosen at run time (1..4).
template <typename T>
void resample_rows(const T* src, int64_t in_w, T* dst, int64_t out_w, int64_t rows, int channels,
                   const AxisWeights& c) {
  switch (channels) {
    case 1: return resample_rows<1>(src, in_w, dst, out_w, rows, c);
    case 2: return resample_rows<2>(src, in_w, dst, out_w, rows, c);
    case 3: return resample_rows<3>(src, in_w, dst, out_w, rows, c);
    default: return resample_rows<4>(src, in_w, dst, out_w, rows, c);
  }
}

// Scalar reference. Vertical pass, row by row so that every access is sequential: output row i is the weighted sum of
// input rows start[i] .. start[i] + count[i] - 1, each `len` samples long.
template <typename T>
void resample_columns(const T* src, T* dst, int64_t len, const AxisWeights& c) {
  using Acc = std::conditional_t<std::is_same_v<T, uint8_t>, int32_t, double>;
  std::vector<Acc> acc(len);
  for (int64_t i = 0; i < c.size; ++i) {
    std::fill(acc.begin(), acc.end(), std::is_same_v<T, uint8_t> ? Acc(1 << (kPrecisionBits - 1)) : Acc(0));
    for (int t = 0; t < c.count[i]; ++t) {
      const T* row = src + (static_cast<int64_t>(c.start[i]) + t) * len;
      const Acc k = std::is_same_v<T, uint8_t> ? Acc(c.fixed[i * c.taps + t]) : Acc(c.w[i * c.taps + t]);
      for (int64_t x = 0; x < len; ++x) acc[x] += row[x] * k;
    }
    T* out = dst + i * len;
    for (int64_t x = 0; x < len; ++x) {
      if constexpr (std::is_same_v<T, uint8_t>) {
        out[x] = clip8(acc[x]);
      } else {
        out[x] = from_double<T>(acc[x]);
      }
    }
  }
}

// SIMD passes for uint8 (Highway dynamic dispatch; resize_hwy.cc). Same arguments and bit-exact the
// same results as resample_rows<C, uint8_t> and resample_columns<uint8_t>.
void resample_rows_u8(const uint8_t* src, int64_t in_w, uint8_t* dst, int64_t out_w, int64_t rows, int channels,
                      const AxisWeights& c);
void resample_columns_u8(const uint8_t* src, uint8_t* dst, int64_t len, const AxisWeights& c);

}  // namespace loom::transforms
