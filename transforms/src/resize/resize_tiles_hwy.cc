// The fast uint8 horizontal pass (resample_rows_u8_fast, bit-exact with resample_rows_fast in
// resize_kernels.h) as a vertical pass over transposed tiles: Highway dynamic dispatch.
//
// A tile is kTileRows rows of the image (the last tile repeats its last row), each row's samples a
// row of bytes: in_w * C of them for an interleaved image (HWC), in_w for a plane (CHW runs plane by
// plane). The tile is transposed into T (row s holds the tile's kTileRows values of sample s),
// TileRow sums T's rows (the taps of a channel are C rows apart) into U (row s: output sample s of
// every tile row), and U is transposed back into the output rows. The transposes work on 16 x 16 byte
// blocks, one per 128-bit block of a vector (two on AVX2 and up, where a tile is 32 rows).
//
// The transposes keep 16 vectors in an array, which SVE's sizeless vector types cannot be elements
// of: on aarch64 this file builds NEON only (SVE hardware runs the NEON kernel).
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SVE | HWY_SVE2 | HWY_SVE_256 | HWY_SVE2_128)
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "resize/resize_tiles_hwy.cc"
#include <hwy/foreach_target.h>  // must come before highway.h
#include <hwy/highway.h>

#include <algorithm>
#include <vector>

#include "resize/resize_kernels.h"

#ifndef LOOM_TRANSFORMS_RESIZE_TILES_HWY_SHARED_
#define LOOM_TRANSFORMS_RESIZE_TILES_HWY_SHARED_  // target-independent, defined once
namespace loom::transforms {
// The most rows of a tile on any target.
constexpr int kMaxTileRows = 32;
}  // namespace loom::transforms
#endif  // LOOM_TRANSFORMS_RESIZE_TILES_HWY_SHARED_

HWY_BEFORE_NAMESPACE();
namespace loom::transforms::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
constexpr int kTileRows = 32;
#else
constexpr int kTileRows = 16;
#endif
static_assert(kTileRows <= kMaxTileRows);
using DTile = hn::CappedTag<uint8_t, kTileRows>;  // rows r (block 0) and r + 16 (block 1) of 16 columns
using VTile = hn::Vec<DTile>;

#if HWY_TARGET != HWY_SCALAR
// Transposes the 16 x 16 bytes of each 128-bit block of v[0..15]: byte j of block b of v[k] moves to
// byte k of block b of v[j]. Four rounds of interleaving v[i] with v[i + 8] into v[2i], v[2i + 1]:
// each rotates the 8-bit position (vector, byte) left by one bit, so four swap vector and byte.
HWY_INLINE void Transpose16(VTile (&v)[16]) {
  const DTile d;
  for (int round = 0; round < 4; ++round) {
    VTile t[16];
    for (int i = 0; i < 8; ++i) {
      t[2 * i] = hn::InterleaveLower(d, v[i], v[i + 8]);
      t[2 * i + 1] = hn::InterleaveUpper(d, v[i], v[i + 8]);
    }
    for (int i = 0; i < 16; ++i) v[i] = t[i];
  }
}

// 16 bytes at `lo` in block 0 and, on 32-row tiles, 16 bytes at `hi` in block 1.
HWY_INLINE VTile LoadBlocks(const uint8_t* lo, const uint8_t* hi) {
  const DTile d;
  if constexpr (kTileRows == 32) {
    const hn::Half<DTile> dh;
    return hn::Combine(d, hn::LoadU(dh, hi), hn::LoadU(dh, lo));
  } else {
    (void)hi;
    return hn::LoadU(d, lo);
  }
}

HWY_INLINE void StoreBlocks(VTile v, uint8_t* lo, uint8_t* hi) {
  if constexpr (kTileRows == 32) {
    const hn::Half<DTile> dh;
    hn::StoreU(hn::LowerHalf(dh, v), dh, lo);
    hn::StoreU(hn::UpperHalf(dh, v), dh, hi);
  } else {
    (void)hi;
    hn::StoreU(v, DTile(), lo);
  }
}

// The first 16-column block at or after x0 that ends within `width` (the last block overlaps the one
// before it; its bytes are written twice, the same both times).
HWY_INLINE int64_t BlockAt(int64_t x0, int64_t width) {
  return std::min(x0, width - 16);
}

// T[x * stride + r] = rows[r][x] for r < kTileRows, x < width.
void TransposeIn(const uint8_t* const* rows, int64_t width, uint8_t* HWY_RESTRICT t, int64_t stride) {
  if (width < 16) {
    for (int64_t x = 0; x < width; ++x)
      for (int r = 0; r < kTileRows; ++r) t[x * stride + r] = rows[r][x];
    return;
  }
  const DTile d;
  for (int64_t x0 = 0; x0 < width; x0 += 16) {
    const int64_t x = BlockAt(x0, width);
    VTile v[16];
    for (int r = 0; r < 16; ++r) v[r] = LoadBlocks(rows[r] + x, rows[(r + 16) % kTileRows] + x);
    Transpose16(v);
    for (int k = 0; k < 16; ++k) hn::StoreU(v[k], d, t + (x + k) * stride);
  }
}

// Where TileRow leaves the sum of a tile row: byte m of each 16-byte block holds the block's row
// kTileRowOf[m] (see TileRow's packing).
constexpr int kTileRowOf[16] = {0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15};

// One row of U: the sum over taps t < n of T's row first + t * step (kTileRows bytes) times the
// tap's w16 weight, with fast_row_sample's arithmetic (32-bit sums from the rounding half, shifted by
// `bits` and clamped): taps in pairs, the two rows' bytes side by side in 16-bit lanes for a pairwise
// multiply-add by `pairs` (each pair's weights, the second one in the high half; 0 for the missing
// second tap of an odd n, whose row must still be readable). Each 128-bit block's 16 sums land in
// four vectors of 32-bit lanes (rows 4j + l in lane l of vector j) and are packed four bytes to a
// lane: the block's sum of tile row r goes to its byte 4 * (r % 4) + r / 4 (kTileRowOf, the inverse).
HWY_INLINE void TileRow(const uint8_t* HWY_RESTRICT first, int64_t step, const int32_t* HWY_RESTRICT pairs, int n,
                        int bits, uint8_t* HWY_RESTRICT out) {
  const DTile d8;
  const hn::Repartition<int16_t, DTile> d16;
  const hn::Repartition<int32_t, DTile> d32;
  const auto zero = hn::Zero(d8);
  auto s0 = hn::Zero(d32), s1 = s0, s2 = s0, s3 = s0, r0 = s0, r1 = s0, r2 = s0, r3 = s0;
  for (int p = 0; p < (n + 1) / 2; ++p) {
    const uint8_t* row = first + 2 * p * step;
    const auto a = hn::LoadU(d8, row), b = hn::LoadU(d8, row + step);
    const auto w = hn::BitCast(d16, hn::Set(d32, pairs[p]));
    const auto lo = hn::InterleaveLower(d8, a, b), hi = hn::InterleaveUpper(d8, a, b);
    s0 = hn::ReorderWidenMulAccumulate(d32, hn::BitCast(d16, hn::InterleaveLower(d8, lo, zero)), w, s0, r0);
    s1 = hn::ReorderWidenMulAccumulate(d32, hn::BitCast(d16, hn::InterleaveUpper(d8, lo, zero)), w, s1, r1);
    s2 = hn::ReorderWidenMulAccumulate(d32, hn::BitCast(d16, hn::InterleaveLower(d8, hi, zero)), w, s2, r2);
    s3 = hn::ReorderWidenMulAccumulate(d32, hn::BitCast(d16, hn::InterleaveUpper(d8, hi, zero)), w, s3, r3);
  }
  const auto half = hn::Set(d32, 1 << (bits - 1)), largest = hn::Set(d32, 255);
  const auto sample = [&](hn::Vec<decltype(d32)> sum, hn::Vec<decltype(d32)> rest) {
    const auto total = hn::Add(hn::RearrangeToOddPlusEven(sum, rest), half);
    return hn::Min(hn::Max(hn::ShiftRightSame(total, bits), hn::Zero(d32)), largest);
  };
  const auto bytes = hn::Or(hn::Or(sample(s0, r0), hn::ShiftLeft<8>(sample(s1, r1))),
                            hn::Or(hn::ShiftLeft<16>(sample(s2, r2)), hn::ShiftLeft<24>(sample(s3, r3))));
  hn::StoreU(hn::BitCast(d8, bytes), d8, out);
}

// rows[r][i] = the tile row r sum that TileRow left in U[i * stride ..] (see kTileRowOf), for r <
// kTileRows, i < width: TransposeIn's inverse, after TileRow.
void TransposeOut(const uint8_t* HWY_RESTRICT u, int64_t width, int64_t stride, uint8_t* const* rows) {
  if (width < 16) {
    for (int64_t i = 0; i < width; ++i) {
      for (int m = 0; m < kTileRows; ++m) rows[m / 16 * 16 + kTileRowOf[m % 16]][i] = u[i * stride + m];
    }
    return;
  }
  const DTile d;
  for (int64_t i0 = 0; i0 < width; i0 += 16) {
    const int64_t i = BlockAt(i0, width);
    VTile v[16];
    for (int k = 0; k < 16; ++k) v[k] = hn::LoadU(d, u + (i + k) * stride);
    Transpose16(v);
    for (int m = 0; m < 16; ++m) {
      const int r = kTileRowOf[m];
      StoreBlocks(v[m], rows[r] + i, rows[(r + 16) % kTileRows] + i);
    }
  }
}
#endif  // HWY_TARGET != HWY_SCALAR

void ResampleRowsU8Fast(const uint8_t* src, const ImageStrides& in, int64_t in_w, uint8_t* dst, const ImageStrides& out,
                        int64_t out_w, int64_t rows, int channels, const AxisWeights& c, uint8_t* scratch) {
#if HWY_TARGET == HWY_SCALAR
  (void)in_w, (void)scratch;
  for (int ch = 0; ch < channels; ++ch) {
    for (int64_t y = 0; y < rows; ++y) {
      for (int64_t i = 0; i < out_w; ++i) {
        dst[y * out.row + i * out.pixel + ch * out.channel] =
            fast_row_sample(src + y * in.row + c.start[i] * in.pixel + ch * in.channel, in.pixel, &c.w16[i * c.taps],
                            c.count[i], c.w16_bits);
      }
    }
  }
#else
  // Images of one row of bytes per image row: an interleaved one, or each plane.
  const bool planar = in.pixel == 1;
  const int step = planar ? 1 : channels;  // rows of T between the taps of a channel
  const int64_t in_bytes = in_w * step, out_bytes = out_w * step;
  // The scratch (resample_rows_u8_fast_scratch): T and its `step` rows of zeros (read, times 0, by the
  // second tap of an odd count), U, and the row that the output rows past the image's end go to.
  uint8_t* t = scratch;
  uint8_t* u = t + (in_bytes + step) * kTileRows;
  uint8_t* discard = u + out_bytes * kTileRows;
  std::fill(t + in_bytes * kTileRows, u, uint8_t{0});
  // Each output's weights in pairs (TileRow).
  const int pair_taps = (c.taps + 1) / 2;
  std::vector<int32_t> pairs(static_cast<size_t>(out_w * pair_taps));
  for (int64_t i = 0; i < out_w; ++i) {
    const int16_t* k = &c.w16[i * c.taps];
    for (int p = 0; 2 * p < c.count[i]; ++p) {
      const uint16_t second = 2 * p + 1 < c.count[i] ? static_cast<uint16_t>(k[2 * p + 1]) : 0;
      pairs[i * pair_taps + p] = static_cast<int32_t>(static_cast<uint16_t>(k[2 * p]) | uint32_t{second} << 16);
    }
  }
  for (int ch = 0; ch < (planar ? channels : 1); ++ch) {
    const uint8_t* from = src + ch * in.channel;
    uint8_t* to = dst + ch * out.channel;
    for (int64_t y0 = 0; y0 < rows; y0 += kTileRows) {
      const int real = static_cast<int>(std::min<int64_t>(rows - y0, kTileRows));  // rows of the image
      const uint8_t* tile_rows[kTileRows];
      uint8_t* out_rows[kTileRows];
      for (int r = 0; r < kTileRows; ++r) {
        tile_rows[r] = from + (y0 + std::min(r, real - 1)) * in.row;
        out_rows[r] = r < real ? to + (y0 + r) * out.row : discard;
      }
      TransposeIn(tile_rows, in_bytes, t, kTileRows);
      for (int64_t i = 0; i < out_w; ++i) {
        for (int k = 0; k < step; ++k) {
          TileRow(t + (c.start[i] * step + k) * kTileRows, step * kTileRows, &pairs[i * pair_taps], c.count[i],
                  c.w16_bits, u + (i * step + k) * kTileRows);
        }
      }
      TransposeOut(u, out_bytes, kTileRows, out_rows);
    }
  }
#endif
}

}  // namespace loom::transforms::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace loom::transforms {

HWY_EXPORT(ResampleRowsU8Fast);

size_t resample_rows_u8_fast_scratch(int64_t in_w, int64_t out_w, int channels) {
  return static_cast<size_t>(int64_t{kMaxTileRows} * channels * (in_w + 1 + out_w) + out_w * channels);
}

void resample_rows_u8_fast(const uint8_t* src, const ImageStrides& in, int64_t in_w, uint8_t* dst,
                           const ImageStrides& out, int64_t out_w, int64_t rows, int channels, const AxisWeights& c,
                           uint8_t* scratch) {
  HWY_DYNAMIC_DISPATCH(ResampleRowsU8Fast)(src, in, in_w, dst, out, out_w, rows, channels, c, scratch);
}

}  // namespace loom::transforms
#endif  // HWY_ONCE
