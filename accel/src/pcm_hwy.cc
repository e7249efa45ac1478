// Highway kernels for pcm.h: whole vectors of samples loaded as bytes (no alignment assumed), widened to
// int32, converted and scaled; the tail goes to the scalar reference. kS24 moves 4 samples (12 bytes)
// per 128-bit byte shuffle.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "pcm_hwy.cc"
#include <hwy/foreach_target.h>  // must come before highway.h
#include <hwy/highway.h>

#include <cstring>

#include "loom/accel/pcm.h"

HWY_BEFORE_NAMESPACE();
namespace loom::accel::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR  // single-lane vectors cannot hold a sample's bytes: the scalar reference

// n samples of `bytes` bytes each done with whole vectors of Lanes(ScalableTag<int32_t>) samples; returns
// how many were done. `convert(d32, bytes_ptr)` gives the int32 vector of the samples at bytes_ptr.
template <class Convert>
size_t ToFloat(const uint8_t* HWY_RESTRICT src, size_t n, size_t bytes, float scale, float* HWY_RESTRICT dst,
               Convert convert) {
  const hn::ScalableTag<int32_t> d32;
  const hn::Rebind<float, decltype(d32)> df;
  const auto k = hn::Set(df, scale);
  const size_t lanes = hn::Lanes(d32);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    hn::StoreU(hn::Mul(hn::ConvertTo(df, convert(d32, src + i * bytes)), k), df, dst + i);
  }
  return i;
}

// The int32 lanes of samples that start at p: Lanes(d32) samples of each encoding.
struct FromU8 {
  template <class D32>
  hn::Vec<D32> operator()(D32 d32, const uint8_t* p) const {
    const hn::Rebind<uint8_t, D32> d8;
    return hn::Sub(hn::PromoteTo(d32, hn::LoadU(d8, p)), hn::Set(d32, 128));
  }
};
struct FromS16 {
  template <class D32>
  hn::Vec<D32> operator()(D32 d32, const uint8_t* p) const {
    const hn::Rebind<int16_t, D32> d16;
    const hn::Repartition<uint8_t, decltype(d16)> d8;
    return hn::PromoteTo(d32, hn::BitCast(d16, hn::LoadU(d8, p)));
  }
};
struct FromS32 {
  template <class D32>
  hn::Vec<D32> operator()(D32 d32, const uint8_t* p) const {
    const hn::Repartition<uint8_t, D32> d8;
    return hn::BitCast(d32, hn::LoadU(d8, p));
  }
};

// kS24 with 128-bit vectors: 4 samples from 12 bytes, each as x << 8. Loads 16 bytes, so stops while
// 4 bytes past the last sample it converts remain in `src`.
template <class Store>
size_t S24Blocks(const uint8_t* HWY_RESTRICT src, size_t n, Store store) {
  const hn::FixedTag<uint8_t, 16> d8;
  const hn::FixedTag<int32_t, 4> d32;
  alignas(16) static constexpr uint8_t kOrder[16] = {0x80, 0, 1, 2, 0x80, 3, 4, 5, 0x80, 6, 7, 8, 0x80, 9, 10, 11};
  const auto order = hn::Load(d8, kOrder);
  size_t i = 0;
  for (; i * 3 + 16 <= n * 3; i += 4) {
    store(d32, hn::BitCast(d32, hn::TableLookupBytesOr0(hn::LoadU(d8, src + i * 3), order)), i);
  }
  return i;
}

#endif  // HWY_TARGET != HWY_SCALAR

void PcmToFloat(const uint8_t* HWY_RESTRICT src, size_t n, PcmEncoding encoding, float* HWY_RESTRICT dst) {
  size_t done = 0;
#if HWY_TARGET != HWY_SCALAR
  switch (encoding) {
    case PcmEncoding::kU8: done = ToFloat(src, n, 1, pcm_scale(encoding), dst, FromU8{}); break;
    case PcmEncoding::kS16: done = ToFloat(src, n, 2, pcm_scale(encoding), dst, FromS16{}); break;
    case PcmEncoding::kS32: done = ToFloat(src, n, 4, pcm_scale(encoding), dst, FromS32{}); break;
    case PcmEncoding::kS24:
      done = S24Blocks(src, n, [&](auto d32, auto v, size_t i) {
        const hn::Rebind<float, decltype(d32)> df;
        hn::StoreU(hn::Mul(hn::ConvertTo(df, v), hn::Set(df, pcm_scale(PcmEncoding::kS24))), df, dst + i);
      });
      break;
    case PcmEncoding::kF32: break;
  }
#endif
  pcm_to_float_scalar(src + done * pcm_bytes(encoding), n - done, encoding, dst + done);
}

void S24ToS32(const uint8_t* HWY_RESTRICT src, size_t n, int32_t* HWY_RESTRICT dst) {
  size_t done = 0;
#if HWY_TARGET != HWY_SCALAR
  done = S24Blocks(src, n, [&](auto d32, auto v, size_t i) { hn::StoreU(v, d32, dst + i); });
#endif
  s24_to_s32_scalar(src + done * 3, n - done, dst + done);
}

}  // namespace loom::accel::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace loom::accel {

namespace {

int32_t s24_at(const uint8_t* p) {
  return static_cast<int32_t>(static_cast<uint32_t>(p[0]) << 8 | static_cast<uint32_t>(p[1]) << 16 |
                              static_cast<uint32_t>(p[2]) << 24);
}

// Integer sample `e` at p as int32, before pcm_scale (kU8 minus 128, kS24 as x << 8).
int32_t int_at(const uint8_t* p, PcmEncoding e) {
  switch (e) {
    case PcmEncoding::kU8: return static_cast<int32_t>(p[0]) - 128;
    case PcmEncoding::kS16: {
      int16_t v;
      std::memcpy(&v, p, sizeof(v));
      return v;
    }
    case PcmEncoding::kS24: return s24_at(p);
    default: {
      int32_t v;
      std::memcpy(&v, p, sizeof(v));
      return v;
    }
  }
}

}  // namespace

void pcm_to_float_scalar(const uint8_t* src, size_t n, PcmEncoding encoding, float* dst) {
  if (encoding == PcmEncoding::kF32) {
    if (n > 0) std::memcpy(dst, src, n * sizeof(float));
    return;
  }
  const size_t bytes = pcm_bytes(encoding);
  const float scale = pcm_scale(encoding);
  for (size_t i = 0; i < n; ++i) dst[i] = static_cast<float>(int_at(src + i * bytes, encoding)) * scale;
}

void s24_to_s32_scalar(const uint8_t* src, size_t n, int32_t* dst) {
  for (size_t i = 0; i < n; ++i) dst[i] = s24_at(src + 3 * i);
}

HWY_EXPORT(PcmToFloat);
HWY_EXPORT(S24ToS32);

void pcm_to_float(const uint8_t* src, size_t n, PcmEncoding encoding, float* dst) {
  HWY_DYNAMIC_DISPATCH(PcmToFloat)(src, n, encoding, dst);
}

void s24_to_s32(const uint8_t* src, size_t n, int32_t* dst) {
  HWY_DYNAMIC_DISPATCH(S24ToS32)(src, n, dst);
}

}  // namespace loom::accel
#endif  // HWY_ONCE
