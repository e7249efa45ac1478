// Highway kernel for polyphase_fir.h: the output blocks go across the lanes (4 vectors at a time, then
// one, then the scalar reference for the tail), the taps one after another, each broadcast and
// multiplied into the consecutive inputs at its offset. Compiled with -ffp-contract=off (CMakeLists.txt)
// so that neither the vector Mul/Add pairs nor the scalar loops become fused multiply-adds.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "polyphase_fir_hwy.cc"
#include <hwy/foreach_target.h>  // must come before highway.h
#include <hwy/highway.h>

#include "loom/accel/polyphase_fir.h"

#ifndef LOOM_ACCEL_POLYPHASE_FIR_SCALAR  // once, not per SIMD target
#define LOOM_ACCEL_POLYPHASE_FIR_SCALAR
namespace loom::accel {
namespace {

// The reference for blocks [first, n): the contract's sum, one block at a time.
inline void fir_blocks_scalar(const float* src, const float* taps, const int64_t* offsets, size_t count, size_t first,
                              size_t n, float* dst) {
  for (size_t b = first; b < n; ++b) {
    float acc = 0.0f;
    for (size_t t = 0; t < count; ++t) acc = acc + taps[t] * src[offsets[t] + static_cast<int64_t>(b)];
    dst[b] = acc;
  }
}

}  // namespace
}  // namespace loom::accel
#endif

HWY_BEFORE_NAMESPACE();
namespace loom::accel::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void PolyphaseFir(const float* HWY_RESTRICT src, const float* HWY_RESTRICT taps, const int64_t* HWY_RESTRICT offsets,
                  size_t count, size_t n, float* HWY_RESTRICT dst) {
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  size_t b = 0;
  for (; b + 4 * lanes <= n; b += 4 * lanes) {
    auto a0 = hn::Zero(d), a1 = hn::Zero(d), a2 = hn::Zero(d), a3 = hn::Zero(d);
    for (size_t t = 0; t < count; ++t) {
      const float* p = src + offsets[t] + static_cast<int64_t>(b);
      const auto k = hn::Set(d, taps[t]);
      a0 = hn::Add(a0, hn::Mul(k, hn::LoadU(d, p)));
      a1 = hn::Add(a1, hn::Mul(k, hn::LoadU(d, p + lanes)));
      a2 = hn::Add(a2, hn::Mul(k, hn::LoadU(d, p + 2 * lanes)));
      a3 = hn::Add(a3, hn::Mul(k, hn::LoadU(d, p + 3 * lanes)));
    }
    hn::StoreU(a0, d, dst + b);
    hn::StoreU(a1, d, dst + b + lanes);
    hn::StoreU(a2, d, dst + b + 2 * lanes);
    hn::StoreU(a3, d, dst + b + 3 * lanes);
  }
  for (; b + lanes <= n; b += lanes) {
    auto a = hn::Zero(d);
    for (size_t t = 0; t < count; ++t) {
      a = hn::Add(a, hn::Mul(hn::Set(d, taps[t]), hn::LoadU(d, src + offsets[t] + static_cast<int64_t>(b))));
    }
    hn::StoreU(a, d, dst + b);
  }
  fir_blocks_scalar(src, taps, offsets, count, b, n, dst);
}

}  // namespace loom::accel::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace loom::accel {

void polyphase_fir_scalar(const float* src, const float* taps, const int64_t* offsets, size_t count, size_t n,
                          float* dst) {
  fir_blocks_scalar(src, taps, offsets, count, 0, n, dst);
}

HWY_EXPORT(PolyphaseFir);

void polyphase_fir(const float* src, const float* taps, const int64_t* offsets, size_t count, size_t n, float* dst) {
  HWY_DYNAMIC_DISPATCH(PolyphaseFir)(src, taps, offsets, count, n, dst);
}

}  // namespace loom::accel
#endif  // HWY_ONCE
