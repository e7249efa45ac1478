// Highway kernel for the uint8 warps: the same bits as the scalar reference warp_u8_run (warp.cc,
// which states the arithmetic), on every target. Built with -ffp-contract=off.
//
// A vector holds N consecutive output pixels of one row. Their source positions come from the row's
// lines (warp_row): x0 + x * dx (and a per-lane divide for perspective), in float32. Nearest rounds
// them half to even; bilinear takes the floor, the four taps and their float weights (the weight and
// the offset of each tap outside the image zeroed; a vector whose taps are all inside skips that
// masking), then the weights in 15-bit fixed point. Source bytes are read as 32-bit words at byte
// offsets, one scalar load per lane (Words: vector gathers wait far longer on some cores, e.g. AMD's
// AVX2 gather): an interleaved image of up to 4 channels (HWC) reads each tap's pixel once (an interior
// pixel reads each tap row's two pixels with one 8-byte load, TapPairs) and blends its
// bytes as 16-bit lanes (bytes 0 and 2, then 1 and 3: a 16-bit high multiply by the weight per tap);
// a planar image (CHW) reads each channel's tap pairs (the word at the left tap holds the right one
// in byte 1). Runs of interior vectors go in two passes (RowRuns): offsets and weights first, then
// the reads, blends and copies. Reads are 4 or 8 bytes, so a vector whose reads would pass the end
// of `src` (the last pixels of the image) is left to the scalar reference, as are row tails shorter
// than a vector. With a fill, the blend of the sums with the fill is in float. On AVX2 and up, 3- and
// 4-channel pixels are stored as packed 32-bit words; interior nearest interleaved pixels are copied
// as 4-byte words, and interior nearest planar pixels byte by byte.
//
// The tap structs hold vectors, which SVE's sizeless vector types cannot be members of: on aarch64 this
// file builds NEON only (SVE hardware runs the NEON kernel).
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SVE | HWY_SVE2 | HWY_SVE_256 | HWY_SVE2_128)
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "geometry/warp_hwy.cc"
#include <hwy/foreach_target.h>  // must come before highway.h
#include <hwy/highway.h>

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "geometry/geometry_kernels.h"

HWY_BEFORE_NAMESPACE();
namespace loom::transforms::detail::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR  // a vector of one lane holds no pixel pair: HWY_SCALAR runs the reference

using DF = hn::ScalableTag<float>;
using DI = hn::RebindToSigned<DF>;
using DU8 = hn::Rebind<uint8_t, DI>;
using VF = hn::Vec<DF>;
using VI = hn::Vec<DI>;

// The source positions of output pixels x .. x + N - 1 of a row.
template <bool kPerspective>
HWY_INLINE void Positions(DF df, const WarpRow& row, int64_t x, VF& sx, VF& sy) {
  const VF xf = hn::Iota(df, static_cast<float>(x));
  sx = hn::Add(hn::Set(df, row.x0), hn::Mul(xf, hn::Set(df, row.dx)));
  sy = hn::Add(hn::Set(df, row.y0), hn::Mul(xf, hn::Set(df, row.dy)));
  if constexpr (kPerspective) {
    const VF d = hn::Add(hn::Set(df, row.w0), hn::Mul(xf, hn::Set(df, row.dw)));
    const VF half = hn::Set(df, 0.5f);
    sx = hn::Sub(hn::Div(sx, d), half);
    sy = hn::Sub(hn::Div(sy, d), half);
  }
}

// The 32-bit words at base + offset, per lane (offsets in bytes).
HWY_INLINE VI Words(DI di, const void* base, VI offset) {
  HWY_ALIGN int32_t at[hn::MaxLanes(di)];
  HWY_ALIGN int32_t words[hn::MaxLanes(di)];
  hn::Store(offset, di, at);
  const auto* bytes = static_cast<const uint8_t*>(base);
  for (size_t j = 0; j < hn::Lanes(di); ++j) std::memcpy(&words[j], bytes + at[j], 4);
  return hn::Load(di, words);
}

// Byte 0 of the 32-bit word at base + offset, per lane (offsets in bytes).
HWY_INLINE VI GatherByte(DI di, const uint8_t* base, VI offset) {
  return hn::And(Words(di, base, offset), hn::Set(di, 0xFF));
}

using D16 = hn::Repartition<uint16_t, DI>;
using V16 = hn::Vec<D16>;

// Bytes 0 and 2 of each 32-bit lane as 16-bit lanes times 256, and bytes 1 and 3 likewise.
HWY_INLINE V16 EvenBytes(VI word) {
  return hn::ShiftLeft<8>(hn::BitCast(D16(), word));
}
HWY_INLINE V16 OddBytes(VI word) {
  const D16 d16;
  return hn::And(hn::BitCast(d16, word), hn::Set(d16, 0xFF00));
}

// The fixed-point blend (warp.cc) per 16-bit lane: sum_j (sample_j * q_j) >> 8 for samples given
// times 256, in units of 2^-kAccBits grey level.
HWY_INLINE V16 Taps(V16 s0, V16 s1, V16 s2, V16 s3, V16 q0, V16 q1, V16 q2, V16 q3) {
  return hn::Add(hn::Add(hn::Add(hn::MulHigh(s0, q0), hn::MulHigh(s1, q1)), hn::MulHigh(s2, q2)), hn::MulHigh(s3, q3));
}

// round_acc per 16-bit lane.
HWY_INLINE V16 RoundAcc(V16 acc) {
  const D16 d16;
  const V16 bias =
      hn::Add(hn::Set(d16, (1 << (kAccBits - 1)) - 1), hn::And(hn::ShiftRight<kAccBits>(acc), hn::Set(d16, 1)));
  return hn::ShiftRight<kAccBits>(hn::Add(acc, bias));
}

// With a fill: round_u8(mask * (acc * 2^-kAccBits - fill) + fill), acc in 32-bit lanes.
HWY_INLINE VI FillBlend(DF df, VI acc, VF mask, double fill) {
  const DI di;
  const VF f = hn::Set(df, static_cast<float>(fill));
  VF v = hn::Add(hn::Mul(mask, hn::Sub(hn::Mul(hn::ConvertTo(df, acc), hn::Set(df, kAccStep)), f)), f);
  v = hn::Min(hn::Max(v, hn::Zero(df)), hn::Set(df, 255.0f));
  return hn::ConvertTo(di, hn::Round(v));
}

// Everything a vector of output pixels needs, per layout: where to read and how to store.
struct Geometry {
  int32_t w, h, ps, cs;  // input width, height, pixel and channel strides
  int32_t limit;         // the largest tap offset whose 4-byte reads stay inside src
  int32_t pair_limit;    // the largest top-left tap offset whose TapPairs reads stay inside src
  int64_t channels;
  int64_t out_ps, out_cs;  // output pixel and channel strides
  const double* fill;
  const uint8_t* outside;      // per channel: the value of a pixel with no tap inside the image
  const uint8_t* outside_row;  // interleaved output (HWC): a row of such pixels
};

// Whether no lane of a bilinear vector has a tap inside the image: then every pixel is `outside`.
HWY_INLINE bool AllOutside(DF df, const Geometry& g, VF sx, VF sy) {
  const VF minus1 = hn::Set(df, -1.0f);
  const auto some_inside = hn::And(hn::And(hn::Gt(sx, minus1), hn::Lt(sx, hn::Set(df, static_cast<float>(g.w)))),
                                   hn::And(hn::Gt(sy, minus1), hn::Lt(sy, hn::Set(df, static_cast<float>(g.h)))));
  return hn::AllFalse(df, some_inside);
}

// The end of the stretch of whole vectors from x on whose pixels have no tap inside the image (x when
// the vector at x has one; no further than `width`), nearest or bilinear (a nearest pixel is inside
// only where some bilinear tap is). sx, sy: on entry the vector at x's positions, on return those of
// the vector at the end where it is within the row.
template <bool kPerspective>
HWY_INLINE int64_t OutsideEnd(DF df, const Geometry& g, const WarpRow& row, int64_t x, int64_t width, VF& sx, VF& sy) {
  const int64_t n = static_cast<int64_t>(hn::Lanes(df));
  while (AllOutside(df, g, sx, sy)) {
    x += n;
    if (x + n > width) break;
    Positions<kPerspective>(df, row, x, sx, sy);
  }
  return x;
}

// Output pixels 0 .. count - 1 from `out` on, every channel, set to the outside value.
HWY_INLINE void FillOutside(const Geometry& g, uint8_t* out, int64_t count) {
  if (g.outside_row != nullptr) return static_cast<void>(std::memcpy(out, g.outside_row, count * g.out_ps));
  for (int64_t k = 0; k < g.channels; ++k) std::memset(out + k * g.out_cs, g.outside[k], count);
}

// Bilinear taps of N output pixels: offsets (zero where the tap is outside), the weights times
// kWeightOne (zero there too; the scaling by a power of two commutes with every float rounding, so
// these are the reference's weights, scaled), the weights in fixed point, and (EdgeTaps) the largest
// offset.
struct Bilinear {
  VI o0, o1, o2, o3, hi;
  VF w0, w1, w2, w3;
  VI q0, q1, q2, q3;  // in the low 16 bits of each lane, junk above (LowWeights, PairWeights)
};

constexpr int64_t kRunPixels = 256;  // the most pixels of a Run; a multiple of every lane count

// A run of interior pixels, as the vector pass of RowRuns leaves it for the second pass: pixel j's
// source offset at[j] (nearest: its pixel; bilinear: its top-left tap), and bilinear's fixed-point
// weights q[0..3][j] (Quantize) and, with a fill, inside weight mask[j] (Mask).
struct Run {
  HWY_ALIGN int32_t at[kRunPixels];
  HWY_ALIGN int32_t q[4][kRunPixels];
  HWY_ALIGN float mask[kRunPixels];
};

// 2^23 + 2^22: a float of magnitude below 2^22 added to it rounds to an integer (half to even), held
// in the low mantissa bits: the reference's nearest_int, and floor's result as an integer. (Highway's
// ConvertTo and NearestInt add fix-ups for values out of the int32 range, which cost more than this.)
constexpr float kMagic = 0x1.8p23f;
constexpr int32_t kMagicBits = 0x4B400000;

HWY_INLINE VI MagicInt(DF df, VF v) {
  return hn::BitCast(DI(), hn::Add(v, hn::Set(df, kMagic)));
}

// An integral v (a floor or a rounding of a position below 2^22 in magnitude) as an integer.
HWY_INLINE VI Integral(DF df, VF v) {
  return hn::Sub(MagicInt(df, v), hn::Set(DI(), kMagicBits));
}

// The four weights from the fractional parts, and their fixed-point forms.
HWY_INLINE void Weights(DF df, VF ax, VF ay, Bilinear& t) {
  const VF one = hn::Set(df, 1.0f), scale = hn::Set(df, kWeightOne);
  const VF bx = hn::Mul(hn::Sub(one, ax), scale), by = hn::Sub(one, ay);
  const VF sax = hn::Mul(ax, scale);
  t.w0 = hn::Mul(bx, by);
  t.w1 = hn::Mul(sax, by);
  t.w2 = hn::Mul(bx, ay);
  t.w3 = hn::Mul(sax, ay);
}

HWY_INLINE void Quantize(DF df, Bilinear& t) {
  t.q0 = MagicInt(df, t.w0);
  t.q1 = MagicInt(df, t.w1);
  t.q2 = MagicInt(df, t.w2);
  t.q3 = MagicInt(df, t.w3);
}

// The weights' float sum (the inside weight), for the fill blend.
HWY_INLINE VF Mask(DF df, const Bilinear& t) {
  return hn::Mul(hn::Add(hn::Add(hn::Add(t.w0, t.w1), t.w2), t.w3), hn::Set(df, 1.0f / kWeightOne));
}

// The fixed-point weights in the low 16-bit half of each lane, 0 in the high half; and in both halves.
HWY_INLINE V16 LowWeights(VI q) {
  const DI di;
  return hn::BitCast(D16(), hn::And(q, hn::Set(di, 0xFFFF)));
}
HWY_INLINE V16 PairWeights(VI q) {
  const DI di;
  return hn::BitCast(D16(), hn::Or(hn::And(q, hn::Set(di, 0xFFFF)), hn::ShiftLeft<16>(q)));
}

// The taps when every lane's four taps are inside the image (the bulk of a warp), without the masking
// of EdgeTaps and with the same bits (there floor(s) < size - 1 exactly when s < size - 1).
// False, and `t` untouched, when some lane has a tap outside.
HWY_INLINE bool InteriorTaps(DF df, const Geometry& g, VF sx, VF sy, Bilinear& t) {
  const DI di;
  const auto interior =
      hn::And(hn::And(hn::Ge(sx, hn::Zero(df)), hn::Lt(sx, hn::Set(df, static_cast<float>(g.w - 1)))),
              hn::And(hn::Ge(sy, hn::Zero(df)), hn::Lt(sy, hn::Set(df, static_cast<float>(g.h - 1)))));
  if (!hn::AllTrue(df, interior)) return false;
  const VF fx = hn::Floor(sx), fy = hn::Floor(sy);
  const VI x0 = Integral(df, fx), y0 = Integral(df, fy);
  const VI right = hn::Set(di, g.ps), down = hn::Set(di, g.w * g.ps);
  t.o0 = hn::Mul(hn::Add(hn::Mul(y0, hn::Set(di, g.w)), x0), right);
  t.o1 = hn::Add(t.o0, right);
  t.o2 = hn::Add(t.o0, down);
  t.o3 = hn::Add(t.o2, right);
  Weights(df, hn::Sub(sx, fx), hn::Sub(sy, fy), t);
  Quantize(df, t);
  return true;
}

// The taps of a vector with some tap outside the image (after InteriorTaps declined it).
HWY_INLINE Bilinear EdgeTaps(DF df, const Geometry& g, VF sx, VF sy) {
  Bilinear t;
  const DI di;
  const VF wf = hn::Set(df, static_cast<float>(g.w)), hf = hn::Set(df, static_cast<float>(g.h));
  const VF minus1 = hn::Set(df, -1.0f);
  const auto inside_f =
      hn::And(hn::And(hn::Gt(sx, minus1), hn::Lt(sx, wf)), hn::And(hn::Gt(sy, minus1), hn::Lt(sy, hf)));
  sx = hn::IfThenElseZero(inside_f, sx);
  sy = hn::IfThenElseZero(inside_f, sy);
  const VF fx = hn::Floor(sx), fy = hn::Floor(sy);
  const VI x0 = Integral(df, fx), y0 = Integral(df, fy);
  const VI x1 = hn::Add(x0, hn::Set(di, 1)), y1 = hn::Add(y0, hn::Set(di, 1));
  const auto inside = hn::RebindMask(di, inside_f);
  const auto vx0 = hn::Gt(x0, hn::Set(di, -1)), vy0 = hn::Gt(y0, hn::Set(di, -1));
  const auto vx1 = hn::Lt(x1, hn::Set(di, g.w)), vy1 = hn::Lt(y1, hn::Set(di, g.h));
  const auto v0 = hn::And(inside, hn::And(vx0, vy0)), v1 = hn::And(inside, hn::And(vx1, vy0));
  const auto v2 = hn::And(inside, hn::And(vx0, vy1)), v3 = hn::And(inside, hn::And(vx1, vy1));
  const VI o = hn::Mul(hn::Add(hn::Mul(y0, hn::Set(di, g.w)), x0), hn::Set(di, g.ps));
  const VI right = hn::Set(di, g.ps), down = hn::Set(di, g.w * g.ps);
  t.o0 = hn::IfThenElseZero(v0, o);
  t.o1 = hn::IfThenElseZero(v1, hn::Add(o, right));
  t.o2 = hn::IfThenElseZero(v2, hn::Add(o, down));
  t.o3 = hn::IfThenElseZero(v3, hn::Add(hn::Add(o, down), right));
  t.hi = hn::Max(hn::Max(t.o0, t.o1), hn::Max(t.o2, t.o3));
  Weights(df, hn::Sub(sx, fx), hn::Sub(sy, fy), t);
  t.w0 = hn::IfThenElseZero(hn::RebindMask(df, v0), t.w0);
  t.w1 = hn::IfThenElseZero(hn::RebindMask(df, v1), t.w1);
  t.w2 = hn::IfThenElseZero(hn::RebindMask(df, v2), t.w2);
  t.w3 = hn::IfThenElseZero(hn::RebindMask(df, v3), t.w3);
  Quantize(df, t);
  return t;
}

// Nearest: the offset of each lane's pixel (times the pixel stride if kPixelStride, else in a plane),
// 0 where it is outside, and whether it is inside. rx, ry below 2^22 in magnitude where inside.
template <bool kPixelStride>
HWY_INLINE VI NearestTap(DF df, const Geometry& g, VF sx, VF sy, hn::Mask<DI>& inside) {
  const DI di;
  const VF rx = hn::Round(sx), ry = hn::Round(sy);
  const auto inside_f = hn::And(hn::And(hn::Ge(rx, hn::Zero(df)), hn::Lt(rx, hn::Set(df, static_cast<float>(g.w)))),
                                hn::And(hn::Ge(ry, hn::Zero(df)), hn::Lt(ry, hn::Set(df, static_cast<float>(g.h)))));
  inside = hn::RebindMask(di, inside_f);
  const VI ix = Integral(df, hn::IfThenElseZero(inside_f, rx)), iy = Integral(df, hn::IfThenElseZero(inside_f, ry));
  const VI o = hn::Add(hn::Mul(iy, hn::Set(di, g.w)), ix);
  return kPixelStride ? hn::Mul(o, hn::Set(di, g.ps)) : o;
}

// Whether gathers at offsets up to `hi` stay inside src.
HWY_INLINE bool Safe(DI di, const Geometry& g, VI hi) {
  return hn::AllFalse(di, hn::Gt(hi, hn::Set(di, g.limit)));
}

// Interleaved output of C channels (HWC, 1 <= C <= 4); `channel(k)` gives channel k's uint8 lanes.
template <int C, class Channel>
HWY_INLINE void StorePixels(uint8_t* out, const Channel& channel) {
  const DU8 du8;
  if constexpr (C == 1) {
    hn::StoreU(channel(0), du8, out);
  } else if constexpr (C == 2) {
    hn::StoreInterleaved2(channel(0), channel(1), du8, out);
  } else if constexpr (C == 3) {
    hn::StoreInterleaved3(channel(0), channel(1), channel(2), du8, out);
  } else {
    hn::StoreInterleaved4(channel(0), channel(1), channel(2), channel(3), du8, out);
  }
}

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
constexpr bool kWordStores = true;

// Pixels of C = 3 or 4 channels in the low bytes of 32-bit lanes, stored interleaved (AVX2 and up):
// C = 4 as is; C = 3 with each lane's 4th byte squeezed out by a byte shuffle within each 16-byte
// block, the blocks' 12 bytes joined by a lane permutation, and a store of 4N bytes where that ends
// by `stop` (the N bytes past the pixels belong to later pixels, made after these), else a masked
// store of 3N bytes.
template <int C>
HWY_INLINE void StoreWords(VI words, uint8_t* out, const uint8_t* stop) {
  const DI di;
  if constexpr (C == 4) {
    hn::StoreU(words, di, reinterpret_cast<int32_t*>(out));
  } else {
    const hn::Repartition<uint8_t, DI> d8;
    alignas(16) static constexpr uint8_t kSqueeze[16] = {0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 3, 7, 11, 15};
    alignas(64) static constexpr int32_t kJoin8[8] = {0, 1, 2, 4, 5, 6, 3, 7};
    alignas(64) static constexpr int32_t kJoin16[16] = {0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 3, 7, 11, 15};
    const size_t n = hn::Lanes(di);
    const VI squeezed = hn::BitCast(di, hn::TableLookupBytes(hn::BitCast(d8, words), hn::LoadDup128(d8, kSqueeze)));
    const VI joined = hn::TableLookupLanes(squeezed, hn::SetTableIndices(di, n == 8 ? kJoin8 : kJoin16));
    if (out + 4 * n <= stop) {
      hn::StoreU(joined, di, reinterpret_cast<int32_t*>(out));
    } else {
      hn::BlendedStore(joined, hn::FirstN(di, 3 * n / 4), di, reinterpret_cast<int32_t*>(out));
    }
  }
}
#else
constexpr bool kWordStores = false;
template <int C>
void StoreWords(VI words, uint8_t* out, const uint8_t* stop);  // not used below AVX2
#endif

// The four taps' pixels of interior bilinear lanes of an interleaved image of 2 to 4 channels, as the
// 32-bit words at at[j], at[j] + C (right), at[j] + w * C (below) and below right: each tap row's two
// pixels come from one 8-byte read (at[j] <= g.pair_limit), split into words by vector shifts.
template <int C>
HWY_INLINE void TapPairs(const uint8_t* src, const Geometry& g, const int32_t* at, VI& p0, VI& p1, VI& p2, VI& p3) {
  const DI di;
  const hn::Repartition<uint64_t, DI> d64;
  HWY_ALIGN uint64_t top[hn::MaxLanes(di)], bottom[hn::MaxLanes(di)];
  const int64_t down = int64_t{g.w} * g.ps;
  const size_t n = hn::Lanes(di);
  for (size_t j = 0; j < n; ++j) {
    std::memcpy(&top[j], src + at[j], 8);
    std::memcpy(&bottom[j], src + at[j] + down, 8);
  }
  // A vector of n / 2 pairs holds the left pixels in its even 32-bit lanes and, shifted right by C
  // bytes, the right ones.
  const auto split = [&](const uint64_t* pairs, VI& left, VI& right) {
    const auto lo = hn::Load(d64, pairs), hi = hn::Load(d64, pairs + n / 2);
    left = hn::ConcatEven(di, hn::BitCast(di, hi), hn::BitCast(di, lo));
    right = hn::ConcatEven(di, hn::BitCast(di, hn::ShiftRight<8 * C>(hi)), hn::BitCast(di, hn::ShiftRight<8 * C>(lo)));
  };
  split(top, p0, p1);
  split(bottom, p2, p3);
}

// The blend of N interleaved output pixels of C channels from their taps' pixels p0..p3 (32-bit words,
// channel k in byte k) and fixed-point weights q0..q3 (Quantize), with g.fill blended by `mask`.
template <int C>
HWY_INLINE void BlendPixels(VI p0, VI p1, VI p2, VI p3, VI q0, VI q1, VI q2, VI q3, VF mask, const Geometry& g,
                            uint8_t* out, const uint8_t* stop) {
  const DF df;
  const DI di;
  const DU8 du8;
  constexpr bool kWords = kWordStores && C >= 3;
  // The weight of each pixel in both 16-bit halves of its lane.
  const V16 w0 = PairWeights(q0), w1 = PairWeights(q1), w2 = PairWeights(q2), w3 = PairWeights(q3);
  const V16 even = Taps(EvenBytes(p0), EvenBytes(p1), EvenBytes(p2), EvenBytes(p3), w0, w1, w2, w3);
  const V16 odd = Taps(OddBytes(p0), OddBytes(p1), OddBytes(p2), OddBytes(p3), w0, w1, w2, w3);
  if (g.fill == nullptr) {
    const VI word = hn::Or(hn::BitCast(di, RoundAcc(even)), hn::BitCast(di, hn::ShiftLeft<8>(RoundAcc(odd))));
    if constexpr (kWords) {
      StoreWords<C>(word, out, stop);
    } else {
      StorePixels<C>(
          out, [&](int k) { return hn::DemoteTo(du8, hn::And(hn::ShiftRightSame(word, 8 * k), hn::Set(di, 0xFF))); });
    }
    return;
  }
  auto channel = [&](int k) {  // channel k's sum, fill-blended, in 32-bit lanes
    const VI sums = hn::BitCast(di, (k & 1) != 0 ? odd : even);
    const VI acc = (k & 2) != 0 ? hn::ShiftRight<16>(sums) : hn::And(sums, hn::Set(di, 0xFFFF));
    return FillBlend(df, acc, mask, g.fill[k]);
  };
  if constexpr (kWords) {
    VI words = hn::Or(channel(0), hn::Or(hn::ShiftLeft<8>(channel(1)), hn::ShiftLeft<16>(channel(2))));
    if constexpr (C == 4) words = hn::Or(words, hn::ShiftLeft<24>(channel(3)));
    StoreWords<C>(words, out, stop);
  } else {
    StorePixels<C>(out, [&](int k) { return hn::DemoteTo(du8, channel(k)); });
  }
}

// The first `count` pixels of a run (a multiple of the lane count) of an interleaved image of C = 2 to
// 4 channels, from TapPairs' reads. Not inlined (RowRuns says why).
template <int C>
HWY_NOINLINE void BlendPacked(const uint8_t* HWY_RESTRICT src, const Geometry& g, const Run& run, int64_t count,
                              uint8_t* HWY_RESTRICT out, const uint8_t* stop) {
  const DF df;
  const DI di;
  const int64_t n = static_cast<int64_t>(hn::Lanes(di));
  for (int64_t x = 0; x < count; x += n) {
    VI p0, p1, p2, p3;
    TapPairs<C>(src, g, run.at + x, p0, p1, p2, p3);
    const VF mask = g.fill != nullptr ? hn::Load(df, run.mask + x) : hn::Zero(df);
    BlendPixels<C>(p0, p1, p2, p3, hn::Load(di, run.q[0] + x), hn::Load(di, run.q[1] + x), hn::Load(di, run.q[2] + x),
                   hn::Load(di, run.q[3] + x), mask, g, out + C * x, stop);
  }
}

// One vector of output pixels of an interleaved image of C channels that RowRuns left (some pixel or
// tap outside the image, none of the runs' reads; never a vector with no tap inside), writing nothing at
// or past `stop`. Returns false (nothing written) when a gather would pass the end of src.
template <int C, bool kBilinear>
HWY_INLINE bool PackedVector(const uint8_t* src, uint8_t* out, const uint8_t* stop, const Geometry& g, VF sx, VF sy) {
  const DF df;
  const DI di;
  const DU8 du8;
  constexpr bool kWords = kWordStores && C >= 3;
  if constexpr (kBilinear) {
    const Bilinear t = EdgeTaps(df, g, sx, sy);
    if (!Safe(di, g, t.hi)) return false;
    const VI p0 = Words(di, src, t.o0), p1 = Words(di, src, t.o1), p2 = Words(di, src, t.o2), p3 = Words(di, src, t.o3);
    BlendPixels<C>(p0, p1, p2, p3, t.q0, t.q1, t.q2, t.q3, g.fill != nullptr ? Mask(df, t) : hn::Zero(df), g, out,
                   stop);
  } else {
    hn::Mask<DI> inside;
    const VI o = NearestTap<true>(df, g, sx, sy, inside);
    if (!Safe(di, g, o)) return false;
    const VI word = Words(di, src, o);
    if constexpr (kWords) {
      int32_t outside = 0;
      for (int k = 0; k < C; ++k) outside |= static_cast<int32_t>(static_cast<uint32_t>(g.outside[k]) << (8 * k));
      StoreWords<C>(hn::IfThenElse(inside, word, hn::Set(di, outside)), out, stop);
    } else {
      StorePixels<C>(out, [&](int k) {
        const VI v = hn::IfThenElse(inside, hn::And(hn::ShiftRightSame(word, 8 * k), hn::Set(di, 0xFF)),
                                    hn::Set(di, g.outside[k]));
        return hn::DemoteTo(du8, v);
      });
    }
  }
  return true;
}

// One vector of output pixels of a planar image (CHW) that RowRuns left, likewise, every channel
// gathering its own bytes.
template <bool kBilinear>
HWY_INLINE bool PlanarVector(const uint8_t* src, uint8_t* out, const Geometry& g, VF sx, VF sy) {
  const DF df;
  const DI di;
  const DU8 du8;
  if constexpr (kBilinear) {
    const Bilinear t = EdgeTaps(df, g, sx, sy);
    if (!Safe(di, g, t.hi)) return false;
    // The weights in the low 16-bit half of each lane, 0 in the high half (whose products vanish).
    const V16 q0 = LowWeights(t.q0), q1 = LowWeights(t.q1), q2 = LowWeights(t.q2), q3 = LowWeights(t.q3);
    const VF mask = g.fill != nullptr ? Mask(df, t) : hn::Zero(df);
    for (int64_t k = 0; k < g.channels; ++k) {
      const auto s = reinterpret_cast<const int32_t*>(src + k * g.cs);
      const V16 sum = Taps(EvenBytes(Words(di, s, t.o0)), EvenBytes(Words(di, s, t.o1)), EvenBytes(Words(di, s, t.o2)),
                           EvenBytes(Words(di, s, t.o3)), q0, q1, q2, q3);
      const VI value =
          g.fill == nullptr ? hn::BitCast(di, RoundAcc(sum)) : FillBlend(df, hn::BitCast(di, sum), mask, g.fill[k]);
      hn::StoreU(hn::DemoteTo(du8, value), du8, out + k * g.out_cs);
    }
  } else {
    hn::Mask<DI> inside;
    const VI o = NearestTap<false>(df, g, sx, sy, inside);
    if (!Safe(di, g, o)) return false;
    for (int64_t k = 0; k < g.channels; ++k) {
      const VI outside = hn::Set(di, g.outside[k]);
      hn::StoreU(hn::DemoteTo(du8, hn::IfThenElse(inside, GatherByte(di, src + k * g.cs, o), outside)), du8,
                 out + k * g.out_cs);
    }
  }
  return true;
}

// Copies `count` pixels of each of C planes (channel strides cs in src, out_cs in out) from their
// source offsets within a plane, every channel of a pixel in turn. Not inlined: inside the warp's
// loops, short of registers, GCC kept a pointer of the loop in memory.
template <int C>
HWY_NOINLINE void CopyPlanes(const uint8_t* HWY_RESTRICT src, int64_t cs, const int32_t* HWY_RESTRICT offsets,
                             int64_t count, uint8_t* HWY_RESTRICT out, int64_t out_cs) {
  for (int64_t j = 0; j < count; ++j) {
    const int32_t at = offsets[j];
    for (int k = 0; k < C; ++k) out[k * out_cs + j] = src[k * cs + at];
  }
}

// Blends the first `count` pixels of `run` (a multiple of the lane count) for each of C planes (channel
// strides g.cs in src, out_cs in out; the word at a top-left tap holds the top-right one in byte 1,
// likewise one row below), with `fill` (C values, or null for none). Not inlined (RowRuns says why).
template <int C>
HWY_NOINLINE void BlendPlanes(const uint8_t* HWY_RESTRICT src, const Geometry& g, const Run& run, int64_t count,
                              const double* fill, uint8_t* HWY_RESTRICT out, int64_t out_cs) {
  const DF df;
  const DI di;
  const DU8 du8;
  const int64_t n = static_cast<int64_t>(hn::Lanes(di)), cs = g.cs, down = g.w;
  HWY_ALIGN int32_t rows[2 * C][hn::MaxLanes(di)];
  for (int64_t x = 0; x < count; x += n) {
    for (int64_t j = 0; j < n; ++j) {
      const uint8_t* tap = src + run.at[x + j];
      for (int k = 0; k < C; ++k) {
        std::memcpy(&rows[2 * k][j], tap + k * cs, 4);
        std::memcpy(&rows[2 * k + 1][j], tap + k * cs + down, 4);
      }
    }
    const auto weights = [&](int i) { return LowWeights(hn::Load(di, run.q[i] + x)); };
    const V16 q0 = weights(0), q1 = weights(1), q2 = weights(2), q3 = weights(3);
    for (int k = 0; k < C; ++k) {
      const VI top = hn::Load(di, rows[2 * k]), bottom = hn::Load(di, rows[2 * k + 1]);
      const V16 sum = Taps(EvenBytes(top), OddBytes(top), EvenBytes(bottom), OddBytes(bottom), q0, q1, q2, q3);
      const VI value = fill == nullptr ? hn::BitCast(di, RoundAcc(sum))
                                       : FillBlend(df, hn::BitCast(di, sum), hn::Load(df, run.mask + x), fill[k]);
      hn::StoreU(hn::DemoteTo(du8, value), du8, out + k * out_cs + x);
    }
  }
}

// Copies the first `count` pixels of a nearest run of an interleaved image of C = 2 to 4 channels as
// 4-byte words (the last pixel byte by byte where its word would pass `stop`). Not inlined (RowRuns
// says why); unrolled, as the one-pass vectors were (the plain loop was up to 1.3x slower on the
// expanded rotation).
template <int C>
HWY_NOINLINE void CopyPixels(const uint8_t* HWY_RESTRICT src, const Run& run, int64_t count, uint8_t* HWY_RESTRICT out,
                             const uint8_t* stop) {
  const int64_t words = out + C * count + (4 - C) <= stop ? count : count - 1;
#pragma GCC unroll 8
  for (int64_t j = 0; j < words; ++j) std::memcpy(out + C * j, src + run.at[j], 4);
  if (words < count) std::memcpy(out + C * words, src + run.at[words], C);
}

// The vector pass of a nearest run: takes the vector (positions sx, sy) as pixels i .. i + N - 1 of
// `run`, or returns false (nothing taken) when some pixel is outside the image or a read would pass
// the end of src. kPixelStride: offsets in bytes of an interleaved image, else within a plane.
template <bool kPixelStride>
HWY_INLINE bool TakeNearest(DF df, const Geometry& g, VF sx, VF sy, Run& run, int64_t i) {
  const DI di;
  hn::Mask<DI> inside;
  const VI o = NearestTap<kPixelStride>(df, g, sx, sy, inside);
  if (!hn::AllTrue(di, inside) || !Safe(di, g, o)) return false;
  hn::Store(o, di, run.at + i);
  return true;
}

// The vector pass of a bilinear run, likewise: false when some tap is outside the image or a read
// would pass the end of src (with kPairs, TapPairs' reads).
template <bool kPairs>
HWY_INLINE bool TakeBilinear(DF df, const Geometry& g, VF sx, VF sy, Run& run, int64_t i) {
  const DI di;
  Bilinear t;
  if (!InteriorTaps(df, g, sx, sy, t)) return false;
  if (kPairs ? !hn::AllFalse(di, hn::Gt(t.o0, hn::Set(di, g.pair_limit))) : !Safe(di, g, t.o2)) return false;
  hn::Store(t.o0, di, run.at + i);
  hn::Store(t.q0, di, run.q[0] + i);
  hn::Store(t.q1, di, run.q[1] + i);
  hn::Store(t.q2, di, run.q[2] + i);
  hn::Store(t.q3, di, run.q[3] + i);
  if (g.fill != nullptr) hn::Store(Mask(df, t), df, run.mask + i);
  return true;
}

// Pixels begin .. end - 1 of output row y (`row`: its lines), in two passes over each run of interior
// vectors (up to kRunPixels pixels): `take(sx, sy, i)` takes a vector as pixels i .. i + N - 1 of the
// run, or declines it (a TakeNearest or TakeBilinear), then `finish(count, out, stop)` makes the run's
// pixels from `out` on. Stretches of vectors with no tap inside the image get the outside value; any
// other vector goes to `vector(sx, sy, out, stop)`, else (and the row's tail) to the scalar reference.
// `stop` is the end of the piece: the stores of `finish` and `vector` that pass their pixels (4-byte
// words for 3-byte pixels) must stay before it, as the pixels after the piece may be made already.
// The second passes (CopyPlanes, CopyPixels, BlendPlanes, BlendPacked) are not inlined and hold few
// vectors live, where a one-pass vector kept the weights and the position arithmetic in registers
// across every read and channel (GCC then spilled, or kept a loop pointer in memory).
template <bool kPerspective, class Take, class Finish, class Vector>
HWY_INLINE void RowRuns(const uint8_t* src, uint8_t* dst, const WarpPlan& plan, const Geometry& g, const WarpRow& row,
                        int64_t y, int64_t begin, int64_t end, const Take& take, const Finish& finish,
                        const Vector& vector) {
  const DF df;
  const int64_t n = static_cast<int64_t>(hn::Lanes(df));
  uint8_t* out = dst + y * plan.out.width * g.out_ps;
  const uint8_t* stop = out + end * g.out_ps;
  int64_t x = begin;
  while (x + n <= end) {
    int64_t run_end = x;
    VF sx, sy;
    for (; run_end + n <= end && run_end - x < kRunPixels; run_end += n) {
      Positions<kPerspective>(df, row, run_end, sx, sy);
      if (!take(sx, sy, run_end - x)) break;
    }
    if (run_end > x) finish(run_end - x, out + x * g.out_ps, stop);
    const bool full = run_end - x == kRunPixels;
    x = run_end;
    if (full) continue;  // the next vector may be interior too
    if (x + n > end) break;
    const int64_t outside_end = OutsideEnd<kPerspective>(df, g, row, x, end, sx, sy);
    if (outside_end > x) {
      FillOutside(g, out + x * g.out_ps, outside_end - x);
      x = outside_end;
      continue;
    }
    if (!vector(sx, sy, out + x * g.out_ps, stop)) warp_u8_run(src, dst, plan, row, y, x, x + n);
    x += n;
  }
  warp_u8_run(src, dst, plan, row, y, x, end);
}

// The whole image by RowRuns, row by row; with `tiles` in tiles of kTileRows rows by kRunPixels
// pixels, left to right in bands of kTileRows rows. Tiles are for nearest: along a whole output row
// the reads follow a slanted line across hundreds of input rows (on planes, for each plane). Measured
// on 1920x1080 on Zen 4 against whole rows, planes: affine (15 degrees, sheared) 5.2 -> 3.1 ms, rotate
// 30 degrees up to 10% slower, the benchmark's perspective (nearly horizontal rows) 1.1-1.6x slower
// (taller or wider tiles were slower still on those); interleaved, against the one-pass vectors:
// perspective 1.7-2.5x, rotate 1.2x, affine 1.05-1.2x faster, the expanded rotation 0.93x, and every
// 224x224 warp 1.06-1.28x faster. Bilinear was no faster in tiles.
template <bool kPerspective, class Take, class Finish, class Vector>
HWY_INLINE void Runs(const uint8_t* src, uint8_t* dst, const WarpPlan& plan, const Geometry& g, bool tiles,
                     const Take& take, const Finish& finish, const Vector& vector) {
  constexpr int64_t kTileRows = 4;
  const int64_t width = plan.out.width, height = plan.out.height;
  const int64_t tile_rows = tiles ? kTileRows : 1, tile_cols = tiles ? kRunPixels : width;
  for (int64_t y0 = 0; y0 < height; y0 += tile_rows) {
    const int64_t y1 = std::min(y0 + tile_rows, height);
    for (int64_t x0 = 0; x0 < width; x0 += tile_cols) {
      const int64_t x1 = std::min(x0 + tile_cols, width);
      for (int64_t y = y0; y < y1; ++y) {
        RowRuns<kPerspective>(src, dst, plan, g, warp_row(plan, y), y, x0, x1, take, finish, vector);
      }
    }
  }
}

// Calls f(std::integral_constant<int, C>(), k) for planes k .. k + C - 1 of `channels`, up to three
// planes at a time.
template <class PerPlanes>
HWY_INLINE void ByThreePlanes(int64_t channels, const PerPlanes& f) {
  for (int64_t k = 0; k < channels; k += 3) {
    switch (std::min<int64_t>(channels - k, 3)) {
      case 1: f(std::integral_constant<int, 1>(), k); break;
      case 2: f(std::integral_constant<int, 2>(), k); break;
      default: f(std::integral_constant<int, 3>(), k);
    }
  }
}

// A planar image (CHW): nearest copies bytes in tiles, bilinear blends three planes at a time.
template <bool kPerspective, bool kBilinear>
HWY_INLINE void PlanarRuns(const uint8_t* src, uint8_t* dst, const WarpPlan& plan, const Geometry& g) {
  const DF df;
  Run run;
  const auto vector = [&](VF sx, VF sy, uint8_t* out, const uint8_t*) {
    return PlanarVector<kBilinear>(src, out, g, sx, sy);
  };
  if constexpr (kBilinear) {
    Runs<kPerspective>(
        src, dst, plan, g, false, [&](VF sx, VF sy, int64_t i) { return TakeBilinear<false>(df, g, sx, sy, run, i); },
        [&](int64_t count, uint8_t* out, const uint8_t*) {
          ByThreePlanes(g.channels, [&](auto planes, int64_t k) {
            const double* fill = g.fill != nullptr ? g.fill + k : nullptr;
            BlendPlanes<planes.value>(src + k * g.cs, g, run, count, fill, out + k * g.out_cs, g.out_cs);
          });
        },
        vector);
  } else {
    Runs<kPerspective>(
        src, dst, plan, g, true, [&](VF sx, VF sy, int64_t i) { return TakeNearest<false>(df, g, sx, sy, run, i); },
        [&](int64_t count, uint8_t* out, const uint8_t*) {
          ByThreePlanes(g.channels, [&](auto planes, int64_t k) {
            CopyPlanes<planes.value>(src + k * g.cs, g.cs, run.at, count, out + k * g.out_cs, g.out_cs);
          });
        },
        vector);
  }
}

// An interleaved image (HWC) of C = 2 to 4 channels: nearest copies 4-byte words in tiles, bilinear
// blends tap pairs.
template <int C, bool kPerspective, bool kBilinear>
HWY_INLINE void PackedRuns(const uint8_t* src, uint8_t* dst, const WarpPlan& plan, const Geometry& g) {
  const DF df;
  Run run;
  const auto vector = [&](VF sx, VF sy, uint8_t* out, const uint8_t* stop) {
    return PackedVector<C, kBilinear>(src, out, stop, g, sx, sy);
  };
  if constexpr (kBilinear) {
    Runs<kPerspective>(
        src, dst, plan, g, false, [&](VF sx, VF sy, int64_t i) { return TakeBilinear<true>(df, g, sx, sy, run, i); },
        [&](int64_t count, uint8_t* out, const uint8_t* stop) { BlendPacked<C>(src, g, run, count, out, stop); },
        vector);
  } else {
    Runs<kPerspective>(
        src, dst, plan, g, true, [&](VF sx, VF sy, int64_t i) { return TakeNearest<true>(df, g, sx, sy, run, i); },
        [&](int64_t count, uint8_t* out, const uint8_t* stop) { CopyPixels<C>(src, run, count, out, stop); }, vector);
  }
}

// `g` by value: a local copy, which the stores through `dst` cannot alias, so that the compiler keeps
// its fields (and the vectors made of them) in registers across vectors.
template <bool kPerspective, bool kBilinear>
void WarpLayout(const uint8_t* src, uint8_t* dst, const WarpPlan& plan, const Geometry g) {
  if (plan.in_strides.pixel == 1 && plan.out_strides.pixel == 1) {
    return PlanarRuns<kPerspective, kBilinear>(src, dst, plan, g);
  }
  switch (plan.channels) {  // interleaved, 2..4 channels (WarpU8 checked)
    case 2: return PackedRuns<2, kPerspective, kBilinear>(src, dst, plan, g);
    case 3: return PackedRuns<3, kPerspective, kBilinear>(src, dst, plan, g);
    default: return PackedRuns<4, kPerspective, kBilinear>(src, dst, plan, g);
  }
}

#endif  // HWY_TARGET != HWY_SCALAR

void WarpU8(const uint8_t* src, uint8_t* dst, const WarpPlan& plan) {
  const int64_t c = plan.channels, w = plan.in.width, h = plan.in.height;
  const int64_t ps = plan.in_strides.pixel, cs = plan.in_strides.channel;
  const bool planar = ps == 1 && plan.out_strides.pixel == 1;
  const bool packed = ps == c && cs == 1 && plan.out_strides.pixel == c && plan.out_strides.channel == 1 && c <= 4;
  const int64_t bytes = (w * h - 1) * ps + (c - 1) * cs + 1;  // of src
#if HWY_TARGET == HWY_SCALAR
  (void)planar, (void)packed, (void)bytes;
  return warp_u8_reference(src, dst, plan);
#else
  const DF df;
  // The scalar reference for other layouts, and where offsets or positions would not fit int32 lanes
  // or float32 integers.
  if (!(planar || packed) || bytes >= (int64_t{1} << 31) || w >= (1 << 22) || h >= (1 << 22) ||
      plan.out.width >= (1 << 22) || hn::Lanes(df) < 4) {
    return warp_u8_reference(src, dst, plan);
  }
  // What warp_u8_run gives a pixel with no tap inside: nearest the rounded fill; bilinear a zero sum
  // blended with the fill by a zero inside weight (the same float expression, so also for inf fills).
  std::vector<uint8_t> outside(static_cast<size_t>(c), 0);
  for (int64_t k = 0; k < c && plan.fill != nullptr; ++k) {
    const float f = static_cast<float>(plan.fill[k]);
    outside[k] = plan.bilinear ? round_u8(0.0f * (0.0f * kAccStep - f) + f) : round_u8(f);
  }
  std::vector<uint8_t> outside_row(packed ? static_cast<size_t>(plan.out.width * c) : 0);
  for (size_t i = 0; i < outside_row.size(); ++i) outside_row[i] = outside[i % c];
  const Geometry g{static_cast<int32_t>(w),
                   static_cast<int32_t>(h),
                   static_cast<int32_t>(ps),
                   static_cast<int32_t>(cs),
                   static_cast<int32_t>(bytes - 4 - (packed ? 0 : (c - 1) * cs)),
                   static_cast<int32_t>(std::max<int64_t>(bytes - 8 - w * ps, -1)),
                   c,
                   plan.out_strides.pixel,
                   plan.out_strides.channel,
                   plan.fill,
                   outside.data(),
                   packed ? outside_row.data() : nullptr};
  const bool perspective = plan.map == WarpMap::kPerspective;
  if (perspective) {
    return plan.bilinear ? WarpLayout<true, true>(src, dst, plan, g) : WarpLayout<true, false>(src, dst, plan, g);
  }
  return plan.bilinear ? WarpLayout<false, true>(src, dst, plan, g) : WarpLayout<false, false>(src, dst, plan, g);
#endif
}

}  // namespace loom::transforms::detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace loom::transforms::detail {

HWY_EXPORT(WarpU8);

void warp_u8(const uint8_t* src, uint8_t* dst, const WarpPlan& plan) {
  HWY_DYNAMIC_DISPATCH(WarpU8)(src, dst, plan);
}

}  // namespace loom::transforms::detail
#endif  // HWY_ONCE
