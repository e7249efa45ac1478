// Highway kernel of the YUV 4:2:0 to RGB24 conversion: the bytes of the scalar reference (yuv420_rgb.h,
// which states the arithmetic) on every target; and swscale's coefficients.
//
// Rows go in pairs, which share a chroma row. A step covers N8 pixels (a full byte vector) of both
// rows, as swscale's converter does it: the row's bytes read as 16-bit lanes hold an even pixel (low
// byte) and an odd one (high byte), which share the chroma sample of their lane, so N8 / 2 chroma
// samples give the three chroma terms lane for lane; the even and the odd pixels' sums, clamped to
// 0..255, go back into the low and the high bytes, which is pixel order again. Only the widening of
// the chroma bytes and the interleaved store (HWC) shuffle; planar stores are plain. A row whose width
// is not a whole number of steps ends with one step that overlaps the previous one (the same bytes
// written twice) and, for an odd width, the last pixel from the reference; rows narrower than a step
// are left to the reference.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "yuv420_rgb_hwy.cc"
#include <hwy/foreach_target.h>  // must come before highway.h
#include <hwy/highway.h>

#include <algorithm>

#include "yuv420_rgb.h"

HWY_BEFORE_NAMESPACE();
namespace loom::video::detail::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR

using D8 = hn::ScalableTag<uint8_t>;       // N8 pixels of one row
using D16 = hn::Repartition<int16_t, D8>;  // N8 / 2 lanes: pixel pairs
using DU16 = hn::RebindToUnsigned<D16>;
using DH8 = hn::Rebind<uint8_t, D16>;  // N8 / 2 bytes: a pair's chroma samples
using V16 = hn::Vec<D16>;

HWY_INLINE V16 Luma(const Yuv420Coefficients& c, V16 y) {
  const D16 d16;
  return hn::MulHigh(hn::Sub(hn::ShiftLeft<3>(y), hn::Set(d16, c.y_offset)), hn::Set(d16, c.y_coeff));
}

// (U or V << 3) - 1024 of N8 / 2 chroma samples.
HWY_INLINE V16 Chroma(const uint8_t* samples) {
  const D16 d16;
  return hn::Sub(hn::ShiftLeft<3>(hn::PromoteTo(d16, hn::LoadU(DH8(), samples))), hn::Set(d16, 1024));
}

// One channel of the even and the odd pixels (luma plus the chroma term, clamped to 0..255) as N8
// bytes in pixel order.
HWY_INLINE hn::Vec<D8> Channel(V16 even, V16 odd, V16 term) {
  const D16 d16;
  const auto zero = hn::Zero(d16), max = hn::Set(d16, 255);
  const V16 e = hn::Min(hn::Max(hn::SaturatedAdd(even, term), zero), max);
  const V16 o = hn::Min(hn::Max(hn::SaturatedAdd(odd, term), zero), max);
  return hn::BitCast(D8(), hn::Or(e, hn::ShiftLeft<8>(o)));
}

// Pixels [x, x + N8) of one row, whose pixel pairs have the chroma terms r, g and b.
HWY_INLINE void Step(const Yuv420Plan& plan, V16 r, V16 g, V16 b, int row, int x) {
  const D8 d8;
  const D16 d16;
  const DU16 du16;
  const auto pairs = hn::BitCast(du16, hn::LoadU(d8, plan.y + row * plan.y_pitch + x));
  const V16 even = Luma(plan.coefficients, hn::BitCast(d16, hn::And(pairs, hn::Set(du16, 0xFF))));
  const V16 odd = Luma(plan.coefficients, hn::BitCast(d16, hn::ShiftRight<8>(pairs)));
  const auto red = Channel(even, odd, r), green = Channel(even, odd, g), blue = Channel(even, odd, b);
  const int64_t at = static_cast<int64_t>(row) * plan.width + x;
  if (plan.planar) {
    const int64_t plane = static_cast<int64_t>(plan.width) * plan.height;
    hn::StoreU(red, d8, plan.dst + at);
    hn::StoreU(green, d8, plan.dst + plane + at);
    hn::StoreU(blue, d8, plan.dst + 2 * plane + at);
  } else {
    hn::StoreInterleaved3(red, green, blue, d8, plan.dst + 3 * at);
  }
}

#endif  // HWY_TARGET != HWY_SCALAR

void Yuv420ToRgb(const Yuv420Plan& plan) {
#if HWY_TARGET == HWY_SCALAR
  yuv420_to_rgb_reference(plan);
#else
  const int step = static_cast<int>(hn::Lanes(D8()));
  if (plan.width < step) return yuv420_to_rgb_reference(plan);
  const int even = plan.width & ~1;
  const int last = (even - step) & ~1;  // the last step's start: even, ends at or before `even`
  for (int row = 0; row < plan.height; row += 2) {
    const int rows = std::min(2, plan.height - row);
    const uint8_t* u_row = plan.u + (row / 2) * plan.u_pitch;
    const uint8_t* v_row = plan.v + (row / 2) * plan.v_pitch;
    const Yuv420Coefficients& c = plan.coefficients;
    const D16 d16;
    for (int x = 0;; x = std::min(x + step, last)) {
      const V16 u = Chroma(u_row + x / 2), v = Chroma(v_row + x / 2);
      const V16 r = hn::MulHigh(v, hn::Set(d16, c.v2r));
      const V16 g = hn::SaturatedAdd(hn::MulHigh(u, hn::Set(d16, c.u2g)), hn::MulHigh(v, hn::Set(d16, c.v2g)));
      const V16 b = hn::MulHigh(u, hn::Set(d16, c.u2b));
      for (int k = 0; k < rows; ++k) Step(plan, r, g, b, row + k, x);
      if (x == last) break;
    }
    if (even != plan.width) {
      for (int r = 0; r < rows; ++r) yuv420_to_rgb_span(plan, row + r, even, plan.width);
    }
  }
#endif
}

}  // namespace loom::video::detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace loom::video::detail {

HWY_EXPORT(Yuv420ToRgb);

Yuv420Coefficients swscale_yuv420_coefficients(const int* inv_table, bool full_range, int brightness, int contrast,
                                               int saturation) {
  int64_t crv = inv_table[0], cbu = inv_table[1], cgu = -inv_table[2], cgv = -inv_table[3];
  int64_t cy = 1 << 16, oy = 0;
  if (full_range) {
    crv = crv * 224 / 255;
    cbu = cbu * 224 / 255;
    cgu = cgu * 224 / 255;
    cgv = cgv * 224 / 255;
  } else {
    cy = cy * 255 / 219;
    oy = int64_t{16} << 16;
  }
  cy = (cy * contrast) >> 16;
  const auto scaled = [&](int64_t k) { return (k * contrast * saturation) >> 32; };
  crv = scaled(crv), cbu = scaled(cbu), cgu = scaled(cgu), cgv = scaled(cgv);
  oy -= int64_t{256} * brightness;
  // A 16.16 product to int16, rounded half up and clamped (-32768 below -32767).
  const auto to_int16 = [](int64_t f) {
    const int64_t r = (f + (1 << 15)) >> 16;
    return static_cast<int16_t>(r < -0x7FFF ? -0x8000 : std::min<int64_t>(r, 0x7FFF));
  };
  Yuv420Coefficients c;
  c.y_coeff = to_int16(cy * (1 << 13));
  c.y_offset = to_int16(oy * (1 << 3));
  c.v2r = to_int16(crv * (1 << 13));
  c.u2b = to_int16(cbu * (1 << 13));
  c.u2g = to_int16(cgu * (1 << 13));
  c.v2g = to_int16(cgv * (1 << 13));
  return c;
}

void yuv420_to_rgb(const Yuv420Plan& plan) {
  HWY_DYNAMIC_DISPATCH(Yuv420ToRgb)(plan);
}

}  // namespace loom::video::detail
#endif  // HWY_ONCE
