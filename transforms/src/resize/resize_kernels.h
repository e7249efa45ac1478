// The resize kernels (private to loom::transforms): the scalar reference passes, here, and their
// Highway twins for uint8 (resize_hwy.cc), all fed the plan of resize_plan.h. resize.cc runs them;
// the tests compare every SIMD target with the reference.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "loom/codec/api.h"
#include "resize/resize_plan.h"

namespace loom::transforms {

// clip8, from_double, fast_row_sample and fast_column_sample are LOOM_HOST_DEVICE: the CUDA twin
// (resize.cu, built with --expt-relaxed-constexpr for std::clamp and --fmad=false) runs this very code.
LOOM_HOST_DEVICE inline uint8_t clip8(int32_t acc, int bits = kPrecisionBits) {
  return static_cast<uint8_t>(std::clamp(acc >> bits, 0, 255));
}

// One uint8 output pixel of C interleaved channels: its window of n pixels times the fixed weights k,
// rounded and clamped (Pillow's arithmetic).
template <int C>
inline void u8_pixel(const uint8_t* window, const int32_t* k, int n, uint8_t* out) {
  int32_t acc[C];
  for (int ch = 0; ch < C; ++ch) acc[ch] = 1 << (kPrecisionBits - 1);
  for (int t = 0; t < n; ++t)
    for (int ch = 0; ch < C; ++ch) acc[ch] += window[t * C + ch] * k[t];
  for (int ch = 0; ch < C; ++ch) out[ch] = clip8(acc[ch]);
}

// A double-precision sum as the sample type: rounded and clamped for uint16, as is for float.
template <typename T>
LOOM_HOST_DEVICE inline T from_double(double v) {
  if constexpr (std::is_same_v<T, uint16_t>) {
    return static_cast<uint16_t>(std::clamp(rint(v), 0.0, 65535.0));  // half to even, as nearbyint
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
        u8_pixel<C>(window, &c.fixed[i * c.taps], n, out + i * C);
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

// The fast uint8 horizontal pass's arithmetic: Pillow's (u8_pixel) with the w16 weights (`bits`
// fraction bits) in place of the fixed ones: the n samples first[0], first[step], ... times k, summed
// in 32 bits from the rounding half, shifted and clamped.
LOOM_HOST_DEVICE inline uint8_t fast_row_sample(const uint8_t* first, int64_t step, const int16_t* k, int n, int bits) {
  int32_t acc = 1 << (bits - 1);
  for (int t = 0; t < n; ++t) acc += first[t * step] * k[t];
  return clip8(acc, bits);
}

// Scalar reference. The fast uint8 horizontal pass: as resample_rows<C, uint8_t>, each sample a
// fast_row_sample of its window.
inline void resample_rows_fast(const uint8_t* src, int64_t in_w, uint8_t* dst, int64_t out_w, int64_t rows,
                               int channels, const AxisWeights& c) {
  for (int64_t y = 0; y < rows; ++y) {
    for (int64_t i = 0; i < out_w; ++i) {
      const uint8_t* window = src + (y * in_w + c.start[i]) * channels;
      for (int ch = 0; ch < channels; ++ch) {
        dst[(y * out_w + i) * channels + ch] =
            fast_row_sample(window + ch, channels, &c.w16[i * c.taps], c.count[i], c.w16_bits);
      }
    }
  }
}

// Scalar reference. The fast uint8 vertical pass, for weights in [0, 1] (every filter but bicubic):
// each product is a sample times its u16 weight in units of 2^-8 of a level, truncated (a 16-bit
// high multiply of the sample placed in the high byte); the sum starts at the rounding half plus
// n / 2 units (the truncations' mean) and saturates at 65535 (the products are >= 0, so a saturated
// sum is at least 255.99 and rounds to 255 anyway); the result is its high byte. Each product is off
// by less than 2^-8 of a level before the bias.
LOOM_HOST_DEVICE inline uint32_t fast_column_bias(int n) {
  return 128 + n / 2;
}

LOOM_HOST_DEVICE inline uint8_t fast_column_sample(const uint8_t* first, int64_t len, const uint16_t* k, int n,
                                                   int64_t x) {
  uint32_t acc = fast_column_bias(n);
  for (int t = 0; t < n; ++t) acc = std::min<uint32_t>(acc + ((first[t * len + x] * uint32_t{k[t]}) >> 8), 65535);
  return static_cast<uint8_t>(acc >> 8);
}

inline void resample_columns_fast(const uint8_t* src, uint8_t* dst, int64_t len, const AxisWeights& c) {
  for (int64_t i = 0; i < c.size; ++i) {
    const uint8_t* first = src + static_cast<int64_t>(c.start[i]) * len;
    for (int64_t x = 0; x < len; ++x) {
      dst[i * len + x] = fast_column_sample(first, len, &c.u16[i * c.taps], c.count[i], x);
    }
  }
}

// Where the samples of a uint8 image are: sample (y, x, ch) at data[y * row + x * pixel + ch *
// channel]. Interleaved (HWC) images have pixel = channels and channel = 1, planar (CHW) ones pixel =
// 1 and channel = the plane's size; the fast horizontal pass takes either.
struct ImageStrides {
  int64_t row = 0, pixel = 0, channel = 0;
};

// SIMD passes for uint8 (Highway dynamic dispatch; resize_hwy.cc). Same arguments and bit-exact the
// same results as resample_rows<C, uint8_t> and resample_columns<uint8_t>.
void resample_rows_u8(const uint8_t* src, int64_t in_w, uint8_t* dst, int64_t out_w, int64_t rows, int channels,
                      const AxisWeights& c);
void resample_columns_u8(const uint8_t* src, uint8_t* dst, int64_t len, const AxisWeights& c);
// The fast passes: bit-exact the same results as resample_rows_fast (on either layout, the same for
// `in` and `out`: `rows` rows of in_w pixels of `channels` (1..4) channels read through `in`, out_w
// pixels written through `out`) and resample_columns_fast. The horizontal pass needs resample_rows_u8_fast_scratch(...)
// bytes of scratch memory, which it overwrites.
size_t resample_rows_u8_fast_scratch(int64_t in_w, int64_t out_w, int channels);
void resample_rows_u8_fast(const uint8_t* src, const ImageStrides& in, int64_t in_w, uint8_t* dst,
                           const ImageStrides& out, int64_t out_w, int64_t rows, int channels, const AxisWeights& c,
                           uint8_t* scratch);
void resample_columns_u8_fast(const uint8_t* src, uint8_t* dst, int64_t len, const AxisWeights& c);

// CUDA twins (resize.cu, built with LOOM_WITH_CUDA) over `planes` images at once (image p at src + p *
// src_plane and dst + p * dst_plane, in elements; CHW runs each channel as a 1-channel plane, HWC one
// plane of `channels` interleaved channels), for uint8, uint16 and float32: resample_rows<C, T> and
// resample_columns<T>, or with `fast` (uint8 only) resample_rows_fast (the w16 weights) and
// resample_columns_fast (the u16 weights). The same sums in the same order (uint8: integers; uint16
// and float32: double products and sums, no fused multiply-add), so the same bits as the scalar
// references. src, dst and the weights' start, count and the weights the pass reads are device
// addresses; the pass is queued on `stream` (a cudaStream_t).
template <typename T>
void resample_rows_cuda(const T* src, int64_t src_plane, int64_t in_w, T* dst, int64_t dst_plane, int64_t out_w,
                        int64_t rows, int64_t planes, int channels, const AxisWeights& c, bool fast, void* stream);
template <typename T>
void resample_columns_cuda(const T* src, int64_t src_plane, T* dst, int64_t dst_plane, int64_t len, int64_t planes,
                           const AxisWeights& c, bool fast, void* stream);

}  // namespace loom::transforms
