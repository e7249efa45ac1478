// Highway kernels for the uint8 resize passes, bit-exact with their scalar references in
// resize_kernels.h, fed an AxisWeights (resize_plan.h).
//
// Pillow's arithmetic (pillow_exact): the vertical pass is SIMD along the row, each output row
// sum_t k[t] * row[start + t] with u8 samples widened to i32 lanes; the horizontal pass reads each
// output pixel's window of taps * C interleaved samples as a few vectors, multiplied by the tap
// weights expanded to one per sample, and sums each channel's lanes at the end (RGB goes through RGBX
// so that vectors hold whole pixels). The fast vertical pass multiplies 16-bit lanes along the row
// (the fast horizontal pass is resize_tiles_hwy.cc).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "resize/resize_hwy.cc"
#include <hwy/aligned_allocator.h>
#include <hwy/foreach_target.h>  // must come before highway.h
#include <hwy/highway.h>

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
// half, shifted right by kPrecisionBits and clamped to 0..255 (clip8 on 4 lanes), is stored at out + i * C;
// for RGB the 4th byte is overwritten by the next pixel, and the row's last pixel goes through a copy.
template <int C>
HWY_INLINE void StoreBlockSums(const int32_t* HWY_RESTRICT sums, int lanes32, uint8_t* HWY_RESTRICT out, int64_t i,
                               int64_t out_w) {
  const hn::CappedTag<int32_t, 4> d4;
  const hn::Rebind<uint8_t, decltype(d4)> d4u8;
  auto pixel = hn::Add(hn::Set(d4, 1 << (kPrecisionBits - 1)), hn::Load(d4, sums));
  for (int block = 4; block < lanes32; block += 4) pixel = hn::Add(pixel, hn::Load(d4, sums + block));
  const auto bytes = hn::DemoteTo(d4u8, hn::ShiftRight<kPrecisionBits>(pixel));
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
      StoreBlockSums<C>(sums, lanes, out, i, out_w);
    }
  }
}

void ResampleRowsU8(const uint8_t* src, int64_t in_w, uint8_t* dst, int64_t out_w, int64_t rows, int channels,
                    const AxisWeights& c) {
  switch (channels) {
    case 1: return RowsFixedC<1>(src, in_w, dst, out_w, rows, c);
    case 2: return RowsFixedC<2>(src, in_w, dst, out_w, rows, c);
    case 3: return RowsRgbx<3>(src, in_w, dst, out_w, rows, c);
    default: return RowsRgbx<4>(src, in_w, dst, out_w, rows, c);
  }
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

void resample_rows_u8(const uint8_t* src, int64_t in_w, uint8_t* dst, int64_t out_w, int64_t rows, int channels,
                      const AxisWeights& c) {
  HWY_DYNAMIC_DISPATCH(ResampleRowsU8)(src, in_w, dst, out_w, rows, channels, c);
}

void resample_columns_u8(const uint8_t* src, uint8_t* dst, int64_t len, const AxisWeights& c) {
  HWY_DYNAMIC_DISPATCH(ResampleColumnsU8)(src, dst, len, c);
}

void resample_columns_u8_fast(const uint8_t* src, uint8_t* dst, int64_t len, const AxisWeights& c) {
  HWY_DYNAMIC_DISPATCH(ResampleColumnsU8Fast)(src, dst, len, c);
}

}  // namespace loom::transforms
#endif  // HWY_ONCE
