// Highway kernel of the YUV 4:2:0 to RGB24 conversion: the bytes of the scalar reference (yuv420_rgb.h,
// which states the arithmetic) on every target; and swscale's coefficients.
//
// Rows go in pairs, which share a chroma row. A step covers N8 pixels (a full byte vector) of both
// rows: N8 / 2 chroma samples give the three chroma terms as 16-bit lanes, each widened into two
// vectors with every lane repeated (the term of pixels 2i and 2i + 1); each row's luma is widened in two
// halves, added, narrowed with unsigned saturation, and stored as three planes or interleaved. A row
// whose width is not a whole number of steps ends with one step that overlaps the previous one (the
// same bytes written twice) and, for an odd width, the last pixel from the reference; rows narrower
// than a step are left to the reference.
//
// The chroma terms travel in a struct of vectors, which SVE's sizeless vector types cannot be members
// of: on aarch64 this file builds NEON only (SVE hardware runs the NEON kernel).
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SVE | HWY_SVE2 | HWY_SVE_256 | HWY_SVE2_128)
#endif
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
using D16 = hn::Repartition<int16_t, D8>;  // N8 / 2 lanes
using DU16 = hn::RebindToUnsigned<D16>;
using DH8 = hn::Rebind<uint8_t, D16>;         // N8 / 2 bytes: chroma samples, or half a row step
using DU32 = hn::Repartition<uint32_t, D16>;  // N8 / 4 lanes
using V16 = hn::Vec<D16>;

// The lanes of `t` each repeated: {t0, t0, t1, t1, ...} (lower) and the same for the upper half.
HWY_INLINE void Repeat(V16 t, V16& lower, V16& upper) {
  const D16 d16;
  const DU16 du16;
  const DU32 du32;
  const hn::Half<DU16> dh;
  const auto lo = hn::PromoteTo(du32, hn::LowerHalf(dh, hn::BitCast(du16, t)));
  const auto hi = hn::PromoteTo(du32, hn::UpperHalf(dh, hn::BitCast(du16, t)));
  lower = hn::BitCast(d16, hn::Or(lo, hn::ShiftLeft<16>(lo)));
  upper = hn::BitCast(d16, hn::Or(hi, hn::ShiftLeft<16>(hi)));
}

struct Chroma {
  V16 r[2], g[2], b[2];  // the terms of the step's two halves of pixels
};

HWY_INLINE Chroma ChromaTerms(const Yuv420Coefficients& c, const uint8_t* u_row, const uint8_t* v_row, int x) {
  const D16 d16;
  const DH8 dh8;
  const auto offset = hn::Set(d16, 1024);
  const V16 u = hn::Sub(hn::ShiftLeft<3>(hn::PromoteTo(d16, hn::LoadU(dh8, u_row + x / 2))), offset);
  const V16 v = hn::Sub(hn::ShiftLeft<3>(hn::PromoteTo(d16, hn::LoadU(dh8, v_row + x / 2))), offset);
  const V16 r = hn::MulHigh(v, hn::Set(d16, c.v2r));
  const V16 g = hn::SaturatedAdd(hn::MulHigh(u, hn::Set(d16, c.u2g)), hn::MulHigh(v, hn::Set(d16, c.v2g)));
  const V16 b = hn::MulHigh(u, hn::Set(d16, c.u2b));
  Chroma terms;
  Repeat(r, terms.r[0], terms.r[1]);
  Repeat(g, terms.g[0], terms.g[1]);
  Repeat(b, terms.b[0], terms.b[1]);
  return terms;
}

// Pixels [x, x + N8) of one row.
HWY_INLINE void Step(const Yuv420Plan& plan, const Chroma& terms, int row, int x) {
  const D8 d8;
  const D16 d16;
  const DH8 dh8;
  const Yuv420Coefficients& c = plan.coefficients;
  const uint8_t* y_row = plan.y + row * plan.y_pitch + x;
  hn::Vec<DH8> rgb[3][2];
  for (int half = 0; half < 2; ++half) {
    const V16 y = hn::PromoteTo(d16, hn::LoadU(dh8, y_row + half * hn::Lanes(dh8)));
    const V16 luma = hn::MulHigh(hn::Sub(hn::ShiftLeft<3>(y), hn::Set(d16, c.y_offset)), hn::Set(d16, c.y_coeff));
    rgb[0][half] = hn::DemoteTo(dh8, hn::SaturatedAdd(luma, terms.r[half]));
    rgb[1][half] = hn::DemoteTo(dh8, hn::SaturatedAdd(luma, terms.g[half]));
    rgb[2][half] = hn::DemoteTo(dh8, hn::SaturatedAdd(luma, terms.b[half]));
  }
  const auto r = hn::Combine(d8, rgb[0][1], rgb[0][0]);
  const auto g = hn::Combine(d8, rgb[1][1], rgb[1][0]);
  const auto b = hn::Combine(d8, rgb[2][1], rgb[2][0]);
  const int64_t at = static_cast<int64_t>(row) * plan.width + x;
  if (plan.planar) {
    const int64_t plane = static_cast<int64_t>(plan.width) * plan.height;
    hn::StoreU(r, d8, plan.dst + at);
    hn::StoreU(g, d8, plan.dst + plane + at);
    hn::StoreU(b, d8, plan.dst + 2 * plane + at);
  } else {
    hn::StoreInterleaved3(r, g, b, d8, plan.dst + 3 * at);
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
    for (int x = 0;; x = std::min(x + step, last)) {
      const Chroma terms = ChromaTerms(plan.coefficients, u_row, v_row, x);
      for (int r = 0; r < rows; ++r) Step(plan, terms, row + r, x);
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
