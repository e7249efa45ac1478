// Highway kernels for the uint8 resize passes (Pillow's fixed-point arithmetic, bit-exact with the
// scalar reference in resize_kernels.h), fed an AxisWeights (resize_plan.h).
//
// Vertical pass: SIMD along the row; each output row is sum_t k[t] * row[start + t], with u8 samples
// widened to i32 lanes. Horizontal pass: per output pixel, the window of taps * C interleaved samples
// is read as a few vectors, multiplied by the tap weights expanded to one per sample, and the lanes of
// each channel are summed at the end (RGB goes through RGBX so that vectors hold whole pixels).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "resize/resize_hwy.cc"
#include <hwy/aligned_allocator.h>
#include <hwy/foreach_target.h>  // must come before highway.h
#include <hwy/highway.h>

#include <cstring>

#include "resize/resize_kernels.h"

#ifndef LOOM_TRANSFORMS_RESIZE_HWY_SHARED_
#define LOOM_TRANSFORMS_RESIZE_HWY_SHARED_  // target-independent helpers, defined once
namespace loom::transforms {

// Horizontal-pass weights laid out vector by vector: a window's pixels are `stride` samples apart
// (channels 0..channels-1 used), read `used` samples per vector of `lanes` i32 lanes; sample s of
// output i's window is multiplied by values[(i * chunks_max + s / used) * lanes + s % used] (0 past
// the window, in unused lanes and in padding channels). chunks[i]: vectors that cover output i.
struct ExpandedWeights {
  int chunks_max = 0;
  std::vector<int> chunks;
  hwy::AlignedFreeUniquePtr<int32_t[]> values;
};

inline ExpandedWeights expand_weights(const AxisWeights& c, int64_t out_w, int lanes, int used, int stride,
                                      int channels) {
  ExpandedWeights e;
  e.chunks_max = (c.taps * stride + used - 1) / used;
  const size_t size = static_cast<size_t>(out_w) * e.chunks_max * lanes;
  e.values = hwy::AllocateAligned<int32_t>(size);
  std::fill(e.values.get(), e.values.get() + size, 0);
  e.chunks.resize(out_w);
  for (int64_t i = 0; i < out_w; ++i) {
    e.chunks[i] = (c.count[i] * stride + used - 1) / used;
    for (int t = 0; t < c.count[i]; ++t) {
      for (int ch = 0; ch < channels; ++ch) {
        const int s = t * stride + ch;
        e.values[(i * e.chunks_max + s / used) * lanes + s % used] = c.fixed[i * c.taps + t];
      }
    }
  }
  return e;
}

// True when no sum of the fast vertical pass with these n weights can pass 65535 (samples of 255
// give the largest), so that a plain addition equals the reference's saturating one: every output
// row of a filter whose weights are in [0, 1] and sum to 1, up to some 127 taps.
inline bool FastSumsFit(const uint16_t* k, int n) {
  uint32_t largest = fast_column_bias(n);
  for (int t = 0; t < n; ++t) largest += (255 * uint32_t{k[t]}) >> 8;
  return largest <= 65535;
}

}  // namespace loom::transforms
#endif  // LOOM_TRANSFORMS_RESIZE_HWY_SHARED_

HWY_BEFORE_NAMESPACE();
namespace loom::transforms::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// sum_j samples(window + j * step) * weights(k + j * lanes) over `chunks` vectors: one output pixel's
// window against its expanded weights (see ExpandedWeights), in i32 lanes.
template <class D32>
hn::Vec<D32> WindowProducts(D32 d32, const uint8_t* HWY_RESTRICT window, int step, const int32_t* HWY_RESTRICT k,
                            int chunks) {
  const hn::Rebind<uint8_t, D32> d8;
  const int lanes = static_cast<int>(hn::Lanes(d32));
  auto acc = hn::Zero(d32);
  for (int j = 0; j < chunks; ++j) {
    acc = hn::Add(acc, hn::Mul(hn::PromoteTo(d32, hn::LoadU(d8, window + j * step)), hn::Load(d32, k + j * lanes)));
  }
  return acc;
}

template <int C>
void RowsFixedC(const uint8_t* HWY_RESTRICT src, int64_t in_w, uint8_t* HWY_RESTRICT dst, int64_t out_w, int64_t rows,
                const AxisWeights& c) {
  const hn::ScalableTag<int32_t> d32;
  const int lanes = static_cast<int>(hn::Lanes(d32));
  const int used = lanes / C * C;  // lanes per vector that hold samples
  if (used == 0) {                 // a vector narrower than one pixel (HWY_SCALAR)
    resample_rows<C>(src, in_w, dst, out_w, rows, c);
    return;
  }
  const ExpandedWeights w = expand_weights(c, out_w, lanes, used, /*stride=*/C, /*channels=*/C);
  HWY_ALIGN int32_t sums[hn::MaxLanes(d32)];
  const int64_t row_bytes = in_w * C;
  for (int64_t y = 0; y < rows; ++y) {
    const uint8_t* in = src + y * row_bytes;
    // Bytes readable from `in` on: vectors may reach up to `lanes` samples past a window, which is
    // fine inside the image (their weights are 0) but not past its end.
    const int64_t readable = (rows - y) * row_bytes;
    uint8_t* out = dst + y * out_w * C;
    for (int64_t i = 0; i < out_w; ++i) {
      const int64_t offset = static_cast<int64_t>(c.start[i]) * C;
      if (offset + static_cast<int64_t>(w.chunks[i] - 1) * used + lanes > readable) {
        // Near the end of the image: the scalar reference for this one pixel.
        const int32_t* k = &c.fixed[i * c.taps];
        for (int ch = 0; ch < C; ++ch) {
          int32_t acc = 1 << (kPrecisionBits - 1);
          for (int t = 0; t < c.count[i]; ++t) acc += in[offset + t * C + ch] * k[t];
          out[i * C + ch] = clip8(acc);
        }
        continue;
      }
      const int32_t* k = w.values.get() + i * w.chunks_max * lanes;
      hn::Store(WindowProducts(d32, in + offset, used, k, w.chunks[i]), d32, sums);
      for (int ch = 0; ch < C; ++ch) {
        int32_t total = 1 << (kPrecisionBits - 1);
        for (int l = ch; l < used; l += C) total += sums[l];
        out[i * C + ch] = clip8(total);
      }
    }
  }
}

// Output pixel i of a row of C-channel pixels, from the lanes32 i32 sums that a kernel stored at
// `sums`: each 128-bit block holds the four channel sums of some taps. Their total plus the rounding
// half, shifted right by `bits` and clamped to 0..255 (clip8 on 4 lanes), is stored at out + i * C;
// for RGB the 4th byte is overwritten by the next pixel, and the row's last pixel goes through a copy.
template <int C>
HWY_INLINE void StoreBlockSums(const int32_t* HWY_RESTRICT sums, int lanes32, int bits, uint8_t* HWY_RESTRICT out,
                               int64_t i, int64_t out_w) {
  const hn::CappedTag<int32_t, 4> d4;
  const hn::Rebind<uint8_t, decltype(d4)> d4u8;
  auto pixel = hn::Add(hn::Set(d4, 1 << (bits - 1)), hn::Load(d4, sums));
  for (int block = 4; block < lanes32; block += 4) pixel = hn::Add(pixel, hn::Load(d4, sums + block));
  const auto bytes = hn::DemoteTo(d4u8, hn::ShiftRightSame(pixel, bits));
  if (C == 4 || i + 1 < out_w) {
    hn::StoreU(bytes, d4u8, out + i * C);
  } else {
    HWY_ALIGN uint8_t last[4];
    hn::StoreU(bytes, d4u8, last);
    std::copy(last, last + C, out + i * C);
  }
}

// RGB or RGBA rows: each row is first widened to 4 bytes per pixel in a zero-padded buffer, so that a
// vector holds whole pixels (lanes / 4 taps of all four channels) and may read past the window
// safely; the four channel sums come from adding the vector's 128-bit blocks.
template <int C>
void RowsRgbx(const uint8_t* HWY_RESTRICT src, int64_t in_w, uint8_t* HWY_RESTRICT dst, int64_t out_w, int64_t rows,
              const AxisWeights& c) {
  static_assert(C == 3 || C == 4);
  const hn::ScalableTag<int32_t> d32;
  const hn::CappedTag<int32_t, 4> d4;
  const int lanes = static_cast<int>(hn::Lanes(d32));
  if (lanes < 4 || hn::Lanes(d4) < 4) {  // narrower than a pixel (HWY_SCALAR)
    resample_rows<C>(src, in_w, dst, out_w, rows, c);
    return;
  }
  const ExpandedWeights w = expand_weights(c, out_w, lanes, /*used=*/lanes, /*stride=*/4, /*channels=*/C);
  // One widened row plus room for the last window's whole vectors.
  const size_t padded = static_cast<size_t>(in_w + static_cast<int64_t>(w.chunks_max) * lanes / 4 + lanes) * 4;
  auto rgbx = hwy::AllocateAligned<uint8_t>(padded);
  std::fill(rgbx.get(), rgbx.get() + padded, 0);
  HWY_ALIGN int32_t sums[hn::MaxLanes(d32)];
  for (int64_t y = 0; y < rows; ++y) {
    const uint8_t* in = src + y * in_w * C;
    if constexpr (C == 4) {
      std::copy(in, in + in_w * 4, rgbx.get());
    } else {
      const hn::ScalableTag<uint8_t> db;
      const int64_t nb = static_cast<int64_t>(hn::Lanes(db));
      int64_t x = 0;
      for (; x + nb <= in_w; x += nb) {
        hn::Vec<decltype(db)> r, g, b;
        hn::LoadInterleaved3(db, in + 3 * x, r, g, b);
        hn::StoreInterleaved4(r, g, b, hn::Zero(db), db, rgbx.get() + 4 * x);
      }
      for (; x < in_w; ++x) {
        for (int ch = 0; ch < 3; ++ch) rgbx[4 * x + ch] = in[3 * x + ch];
        rgbx[4 * x + 3] = 0;
      }
    }
    uint8_t* out = dst + y * out_w * C;
    for (int64_t i = 0; i < out_w; ++i) {
      const uint8_t* window = rgbx.get() + static_cast<int64_t>(c.start[i]) * 4;
      const int32_t* k = w.values.get() + i * w.chunks_max * lanes;
      hn::Store(WindowProducts(d32, window, lanes, k, w.chunks[i]), d32, sums);
      StoreBlockSums<C>(sums, lanes, kPrecisionBits, out, i, out_w);
    }
  }
}

// Lays out an RGB or RGBA row of in_w pixels as pairs of 16-bit channel pairs: pair q is [r g b a] of
// pixels 2q and 2q + 1, byte by byte [r r g g b b a a] (a = 0 for RGB; a missing second pixel is 0).
// Writes (in_w + 1) / 2 pairs.
template <int C>
void PixelPairs(const uint8_t* HWY_RESTRICT row, int64_t in_w, uint8_t* HWY_RESTRICT pairs) {
  // Four pixels (4 * C bytes of the 16 read) at a time, one byte shuffle into two pairs.
  const hn::CappedTag<uint8_t, 16> d8;
  alignas(16) static constexpr uint8_t kRgb[16] = {0, 3, 1, 4, 2, 5, 0x80, 0x80, 6, 9, 7, 10, 8, 11, 0x80, 0x80};
  alignas(16) static constexpr uint8_t kRgba[16] = {0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15};
  int64_t p = 0;
  uint8_t* out = pairs;
  if (hn::Lanes(d8) == 16) {
    const auto order = hn::Load(d8, C == 3 ? kRgb : kRgba);
    for (; p * C + 16 <= in_w * C; p += 4, out += 16) {
      hn::StoreU(hn::TableLookupBytesOr0(hn::LoadU(d8, row + p * C), order), d8, out);
    }
  }
  for (; p < in_w; p += 2, out += 8) {
    for (int ch = 0; ch < 4; ++ch) {
      out[2 * ch] = ch < C ? row[p * C + ch] : 0;
      out[2 * ch + 1] = ch < C && p + 1 < in_w ? row[(p + 1) * C + ch] : 0;
    }
  }
}

#if HWY_TARGET != HWY_SCALAR  // the fast horizontal pass needs a vector of a pixel pair
// The first `bytes` (3 or 4) bytes of `pixel` at out, as constant-size copies.
HWY_INLINE void StorePixel(uint32_t pixel, uint8_t* HWY_RESTRICT out, size_t bytes) {
  if (bytes == 4) {
    std::memcpy(out, &pixel, 4);
  } else {
    std::memcpy(out, &pixel, 3);
  }
}

// The sums v (of four lanes per pixel, in one or two 128-bit blocks), rounded, shifted right by
// `bits` and clamped to 0..255: the first pixel's `bytes` stored at out0 and, with out1, the second's
// at out1.
template <class D32>
HWY_INLINE void StorePixels(D32 d32, hn::Vec<D32> v, int bits, uint8_t* HWY_RESTRICT out0, uint8_t* HWY_RESTRICT out1,
                            size_t bytes) {
  const hn::Rebind<uint8_t, D32> d8;
  const hn::Repartition<uint32_t, decltype(d8)> du32;
  const auto rounded = hn::ShiftRightSame(hn::Add(v, hn::Set(d32, 1 << (bits - 1))), bits);
  const auto pixels = hn::BitCast(du32, hn::DemoteTo(d8, rounded));
  StorePixel(hn::GetLane(pixels), out0, bytes);
  if (out1 != nullptr) StorePixel(hn::ExtractLane(pixels, 1), out1, bytes);
}

// Output pixel i of two rows from their sums sum_a and sum_b, vectors
// whose 128-bit blocks each hold the four channel sums of some taps: a row's blocks are added and
// stored by StorePixels at out + i * C (RGB writes a 4th byte, which the next pixel then overwrites;
// the row's last pixel writes 3).
template <int C, class D32>
HWY_INLINE void StorePixelOfTwoRows(D32 d32, hn::Vec<D32> sum_a, hn::Vec<D32> sum_b, int bits,
                                    uint8_t* HWY_RESTRICT out_a, uint8_t* HWY_RESTRICT out_b, int64_t i,
                                    int64_t out_w) {
  const size_t bytes = C == 4 || i + 1 < out_w ? 4 : 3;
  if (hn::Lanes(d32) == 8) {  // [a0 | a1], [b0 | b1] -> [a0 + a1 | b0 + b1]
    const auto both = hn::Add(hn::ConcatLowerLower(d32, sum_b, sum_a), hn::ConcatUpperUpper(d32, sum_b, sum_a));
    StorePixels(d32, both, bits, out_a + i * C, out_b + i * C, bytes);
  } else {  // one block each
    StorePixels(d32, sum_a, bits, out_a + i * C, nullptr, bytes);
    StorePixels(d32, sum_b, bits, out_b + i * C, nullptr, bytes);
  }
}

// The fast horizontal pass for RGB and RGBA (resample_rows_fast): each row is laid out as pixel
// pairs (PixelPairs), and a pairwise multiply-add of 16-bit lanes (ReorderWidenMulAccumulate) takes
// two taps of all four channels; a window that starts at an odd pixel starts at the pair before, its
// first weight 0. The vector's 128-bit blocks then add up to the four channel sums.
template <int C>
void RowsPairs(const uint8_t* HWY_RESTRICT src, int64_t in_w, uint8_t* HWY_RESTRICT dst, int64_t out_w, int64_t rows,
               const AxisWeights& c) {
  // At most 256 bits: a window holds a few pairs, and on AVX-512 the wider vectors lose more to padding
  // and to adding four blocks per output than they gain (measured: 0.8-0.9x the speed of AVX2).
  const hn::CappedTag<int16_t, 16> d16;
  const hn::Repartition<int32_t, decltype(d16)> d32;
  const hn::Rebind<uint8_t, decltype(d16)> d8;         // Lanes(d16) bytes, widened to d16
  const int lanes = static_cast<int>(hn::Lanes(d16));  // at least 8: one pixel pair
  const int pairs_per_vector = lanes / 8;
  // Weights vector by vector: lane l of output i's vectors multiplies tap 2 * (l / 8) + l % 2 -
  // start[i] % 2 of channel (l % 8) / 2 (0 for the padding channel and outside the window).
  const int chunks_max = ((c.taps + 2) / 2 + pairs_per_vector - 1) / pairs_per_vector;
  auto weights = hwy::AllocateAligned<int16_t>(static_cast<size_t>(out_w) * chunks_max * lanes);
  std::vector<int> chunks(static_cast<size_t>(out_w));
  for (int64_t i = 0; i < out_w; ++i) {
    const int odd = c.start[i] % 2;
    chunks[i] = ((c.count[i] + odd + 1) / 2 + pairs_per_vector - 1) / pairs_per_vector;
    int16_t* k = weights.get() + i * chunks_max * lanes;
    for (int l = 0; l < chunks_max * lanes; ++l) {
      const int tap = 2 * (l / 8) + l % 2 - odd, channel = (l % 8) / 2;
      k[l] = channel < C && tap >= 0 && tap < c.count[i] ? c.w16[i * c.taps + tap] : 0;
    }
  }
  // Four rows' pairs, each with room for the last window's whole vectors (zeros).
  const int64_t pair_bytes = (in_w / 2 + 1 + chunks_max * pairs_per_vector) * 8;
  auto pairs = hwy::AllocateAligned<uint8_t>(static_cast<size_t>(4 * pair_bytes));
  std::fill(pairs.get(), pairs.get() + 4 * pair_bytes, 0);
  // Four rows at a time, so that each weight vector is loaded once for the four; a last group of
  // fewer rows repeats its last row (computing and storing it again).
  const int64_t row = out_w * C;
  for (int64_t y = 0; y < rows; y += 4) {
    const int64_t more = std::min<int64_t>(rows - 1 - y, 3);  // rows y .. y + more are real
    for (int r = 0; r < 4; ++r) {
      PixelPairs<C>(src + (y + std::min<int64_t>(r, more)) * in_w * C, in_w, pairs.get() + r * pair_bytes);
    }
    uint8_t* out[4];
    for (int r = 0; r < 4; ++r) out[r] = dst + (y + std::min<int64_t>(r, more)) * row;
    for (int64_t i = 0; i < out_w; ++i) {
      const uint8_t* window = pairs.get() + static_cast<int64_t>(c.start[i] / 2) * 8;
      const int16_t* k = weights.get() + i * chunks_max * lanes;
      auto a0 = hn::Zero(d32), a1 = a0, b0 = a0, b1 = a0, c0 = a0, c1 = a0, d0 = a0, d1 = a0;
      for (int j = 0; j < chunks[i]; ++j) {
        const auto w = hn::Load(d16, k + j * lanes);
        const uint8_t* at = window + j * lanes;
        a0 = hn::ReorderWidenMulAccumulate(d32, hn::PromoteTo(d16, hn::LoadU(d8, at)), w, a0, a1);
        b0 = hn::ReorderWidenMulAccumulate(d32, hn::PromoteTo(d16, hn::LoadU(d8, at + pair_bytes)), w, b0, b1);
        c0 = hn::ReorderWidenMulAccumulate(d32, hn::PromoteTo(d16, hn::LoadU(d8, at + 2 * pair_bytes)), w, c0, c1);
        d0 = hn::ReorderWidenMulAccumulate(d32, hn::PromoteTo(d16, hn::LoadU(d8, at + 3 * pair_bytes)), w, d0, d1);
      }
      StorePixelOfTwoRows<C>(d32, hn::RearrangeToOddPlusEven(a0, a1), hn::RearrangeToOddPlusEven(b0, b1), c.w16_bits,
                             out[0], out[1], i, out_w);
      StorePixelOfTwoRows<C>(d32, hn::RearrangeToOddPlusEven(c0, c1), hn::RearrangeToOddPlusEven(d0, d1), c.w16_bits,
                             out[2], out[3], i, out_w);
    }
  }
}

#endif  // HWY_TARGET != HWY_SCALAR

void ResampleRowsU8(const uint8_t* src, int64_t in_w, uint8_t* dst, int64_t out_w, int64_t rows, int channels,
                    const AxisWeights& c) {
  switch (channels) {
    case 1: return RowsFixedC<1>(src, in_w, dst, out_w, rows, c);
    case 2: return RowsFixedC<2>(src, in_w, dst, out_w, rows, c);
    case 3: return RowsRgbx<3>(src, in_w, dst, out_w, rows, c);
    default: return RowsRgbx<4>(src, in_w, dst, out_w, rows, c);
  }
}

void ResampleRowsU8Fast(const uint8_t* src, int64_t in_w, uint8_t* dst, int64_t out_w, int64_t rows, int channels,
                        const AxisWeights& c) {
#if HWY_TARGET == HWY_SCALAR  // a vector narrower than a pixel pair
  if (channels == 3) return resample_rows_fast<3>(src, in_w, dst, out_w, rows, c);
  if (channels == 4) return resample_rows_fast<4>(src, in_w, dst, out_w, rows, c);
#else
  if (channels == 3) return RowsPairs<3>(src, in_w, dst, out_w, rows, c);
  if (channels == 4) return RowsPairs<4>(src, in_w, dst, out_w, rows, c);
#endif
  ResampleRowsU8(src, in_w, dst, out_w, rows, channels, c);
}

void ResampleColumnsU8(const uint8_t* HWY_RESTRICT src, uint8_t* HWY_RESTRICT dst, int64_t len, const AxisWeights& c) {
  const hn::ScalableTag<int32_t> d32;
  const hn::Rebind<uint8_t, decltype(d32)> d8;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d32));
  const auto half = hn::Set(d32, 1 << (kPrecisionBits - 1));
  for (int64_t i = 0; i < c.size; ++i) {
    const uint8_t* first = src + static_cast<int64_t>(c.start[i]) * len;
    const int32_t* k = &c.fixed[i * c.taps];
    const int n = c.count[i];
    uint8_t* out = dst + i * len;
    int64_t x = 0;
    for (; x + lanes <= len; x += lanes) {
      auto acc = half;
      for (int t = 0; t < n; ++t) {
        const auto samples = hn::PromoteTo(d32, hn::LoadU(d8, first + t * len + x));
        acc = hn::Add(acc, hn::Mul(samples, hn::Set(d32, k[t])));
      }
      // Saturating i32 -> u8 is clip8's clamp to 0..255.
      hn::StoreU(hn::DemoteTo(d8, hn::ShiftRight<kPrecisionBits>(acc)), d8, out + x);
    }
    for (; x < len; ++x) {
      int32_t acc = 1 << (kPrecisionBits - 1);
      for (int t = 0; t < n; ++t) acc += first[t * len + x] * k[t];
      out[x] = clip8(acc);
    }
  }
}

// The fast vertical pass's sums (resample_columns_fast) of the 2 * Lanes(d16) samples at `row` of
// one tap: a vector of bytes read as u16 lanes holds an even sample in the low byte and an odd one
// in the high byte, so a shift moves the even ones to the high byte and a mask keeps the odd ones
// there, each then multiplied (high half) by the weight and summed (saturating with kSaturate).
template <bool kSaturate, class D16>
HWY_INLINE void AddFastTap(D16 d16, const uint8_t* HWY_RESTRICT row, hn::Vec<D16> weight, hn::Vec<D16>& even,
                           hn::Vec<D16>& odd) {
  const hn::Repartition<uint8_t, D16> d8;
  const auto pairs = hn::BitCast(d16, hn::LoadU(d8, row));
  const auto even_products = hn::MulHigh(hn::ShiftLeft<8>(pairs), weight);
  const auto odd_products = hn::MulHigh(hn::And(pairs, hn::Set(d16, 0xFF00)), weight);
  if constexpr (kSaturate) {
    even = hn::SaturatedAdd(even, even_products);
    odd = hn::SaturatedAdd(odd, odd_products);
  } else {
    even = hn::Add(even, even_products);
    odd = hn::Add(odd, odd_products);
  }
}

// The high bytes of the even and odd sums, back in their places, stored at out.
template <class D16>
HWY_INLINE void StoreFastSums(D16 d16, hn::Vec<D16> even, hn::Vec<D16> odd, uint8_t* HWY_RESTRICT out) {
  const hn::Repartition<uint8_t, D16> d8;
  const auto bytes = hn::Or(hn::And(odd, hn::Set(d16, 0xFF00)), hn::ShiftRight<8>(even));
  hn::StoreU(hn::BitCast(d8, bytes), d8, out);
}

// One output row of resample_columns_fast: the n rows from `first` on (`len` samples each, apart)
// times the weights k, into out.
template <bool kSaturate>
HWY_INLINE void FastColumnRow(const uint8_t* HWY_RESTRICT first, int64_t len, const uint16_t* HWY_RESTRICT k, int n,
                              uint8_t* HWY_RESTRICT out) {
  const hn::ScalableTag<uint16_t> d16;
  const int64_t bytes = 2 * static_cast<int64_t>(hn::Lanes(d16));
  const auto bias = hn::Set(d16, static_cast<uint16_t>(fast_column_bias(n)));
  int64_t x = 0;
  for (; x + 2 * bytes <= len; x += 2 * bytes) {
    auto even0 = bias, odd0 = bias, even1 = bias, odd1 = bias;
    for (int t = 0; t < n; ++t) {
      const auto weight = hn::Set(d16, k[t]);
      const uint8_t* row = first + t * len + x;
      AddFastTap<kSaturate>(d16, row, weight, even0, odd0);
      AddFastTap<kSaturate>(d16, row + bytes, weight, even1, odd1);
    }
    StoreFastSums(d16, even0, odd0, out + x);
    StoreFastSums(d16, even1, odd1, out + x + bytes);
  }
  // The rest as whole vectors, the last one ending at the row's end (overlapping the one before).
  for (; x < len && len >= bytes; x += bytes) {
    const int64_t at = std::min(x, len - bytes);
    auto even = bias, odd = bias;
    for (int t = 0; t < n; ++t) AddFastTap<kSaturate>(d16, first + t * len + at, hn::Set(d16, k[t]), even, odd);
    StoreFastSums(d16, even, odd, out + at);
  }
  for (; x < len; ++x) out[x] = fast_column_sample(first, len, k, n, x);
}

// resample_columns_fast (resize_kernels.h) along the row: one 16-bit multiply per sample and tap,
// each tap's weight broadcast once for two vectors of bytes.
void ResampleColumnsU8Fast(const uint8_t* HWY_RESTRICT src, uint8_t* HWY_RESTRICT dst, int64_t len,
                           const AxisWeights& c) {
#if HWY_TARGET == HWY_SCALAR  // a vector narrower than a pair of samples
  resample_columns_fast(src, dst, len, c);
#else
  for (int64_t i = 0; i < c.size; ++i) {
    const uint8_t* first = src + static_cast<int64_t>(c.start[i]) * len;
    const uint16_t* k = &c.u16[i * c.taps];
    if (FastSumsFit(k, c.count[i])) {
      FastColumnRow<false>(first, len, k, c.count[i], dst + i * len);
    } else {
      FastColumnRow<true>(first, len, k, c.count[i], dst + i * len);
    }
  }
#endif
}

}  // namespace loom::transforms::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace loom::transforms {

HWY_EXPORT(ResampleRowsU8);
HWY_EXPORT(ResampleColumnsU8);
HWY_EXPORT(ResampleColumnsU8Fast);
HWY_EXPORT(ResampleRowsU8Fast);

void resample_rows_u8(const uint8_t* src, int64_t in_w, uint8_t* dst, int64_t out_w, int64_t rows, int channels,
                      const AxisWeights& c) {
  HWY_DYNAMIC_DISPATCH(ResampleRowsU8)(src, in_w, dst, out_w, rows, channels, c);
}

void resample_columns_u8(const uint8_t* src, uint8_t* dst, int64_t len, const AxisWeights& c) {
  HWY_DYNAMIC_DISPATCH(ResampleColumnsU8)(src, dst, len, c);
}

void resample_rows_u8_fast(const uint8_t* src, int64_t in_w, uint8_t* dst, int64_t out_w, int64_t rows, int channels,
                           const AxisWeights& c) {
  HWY_DYNAMIC_DISPATCH(ResampleRowsU8Fast)(src, in_w, dst, out_w, rows, channels, c);
}

void resample_columns_u8_fast(const uint8_t* src, uint8_t* dst, int64_t len, const AxisWeights& c) {
  HWY_DYNAMIC_DISPATCH(ResampleColumnsU8Fast)(src, dst, len, c);
}

}  // namespace loom::transforms
#endif  // HWY_ONCE
