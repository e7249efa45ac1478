// Highway kernels for normalize: uint8 or float32 in, float32 out, interleaved (HWC) or planar (CHW)
// on either side, one pass. Per vector of float lanes: load (deinterleaving RGB with
// LoadInterleaved3, widening uint8 to float), then (x * float(1/255) - mean) / std with a true
// division, then store (re-interleaving for HWC). Bit-identical with the scalar reference on every
// target: the same float32 operations in the same order, and no contraction into fused multiply-adds.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "color/color_hwy.cc"
#include <hwy/foreach_target.h>  // must come before highway.h
#include <hwy/highway.h>

#include "color/color_kernels.h"
#include "core/fp_barrier-inl.h"

HWY_BEFORE_NAMESPACE();
namespace loom::transforms::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;

template <typename T>
HWY_INLINE hn::Vec<DF> LoadPlane(DF df, const T* HWY_RESTRICT p) {
  if constexpr (std::is_same_v<T, uint8_t>) {
    const hn::Rebind<int32_t, DF> di;
    const hn::Rebind<uint8_t, DF> d8;
    return hn::ConvertTo(df, hn::PromoteTo(di, hn::LoadU(d8, p)));
  } else {
    return hn::LoadU(df, p);
  }
}

template <typename T>
HWY_INLINE void LoadRgb(DF df, const T* HWY_RESTRICT p, hn::Vec<DF>& r, hn::Vec<DF>& g, hn::Vec<DF>& b) {
  if constexpr (std::is_same_v<T, uint8_t>) {
    const hn::Rebind<int32_t, DF> di;
    const hn::Rebind<uint8_t, DF> d8;
    hn::Vec<decltype(d8)> r8, g8, b8;
    hn::LoadInterleaved3(d8, p, r8, g8, b8);
    r = hn::ConvertTo(df, hn::PromoteTo(di, r8));
    g = hn::ConvertTo(df, hn::PromoteTo(di, g8));
    b = hn::ConvertTo(df, hn::PromoteTo(di, b8));
  } else {
    hn::LoadInterleaved3(df, p, r, g, b);
  }
}

template <typename T>
HWY_INLINE hn::Vec<DF> Apply(DF df, hn::Vec<DF> x, hn::Vec<DF> mean, hn::Vec<DF> std) {
  if constexpr (std::is_same_v<T, uint8_t>) x = Opaque(hn::Mul(x, hn::Set(df, kInv255)));
  return hn::Div(hn::Sub(x, mean), std);
}

template <typename T>
void NormalizeImpl(const T* HWY_RESTRICT src, float* HWY_RESTRICT dst, const NormalizeJob& job) {
  const DF df;
  const int64_t n = static_cast<int64_t>(hn::Lanes(df));
  const int64_t pixels = job.pixels;
  int64_t p = 0;
  if (job.channels == 1) {
    const auto mean = hn::Set(df, job.mean[0]), std = hn::Set(df, job.std[0]);
    for (; p + n <= pixels; p += n) hn::StoreU(Apply<T>(df, LoadPlane(df, src + p), mean, std), df, dst + p);
  } else if (job.channels == 3) {
    const auto m0 = hn::Set(df, job.mean[0]), m1 = hn::Set(df, job.mean[1]), m2 = hn::Set(df, job.mean[2]);
    const auto s0 = hn::Set(df, job.std[0]), s1 = hn::Set(df, job.std[1]), s2 = hn::Set(df, job.std[2]);
    for (; p + n <= pixels; p += n) {
      hn::Vec<DF> r, g, b;
      if (job.src_interleaved) {
        LoadRgb(df, src + 3 * p, r, g, b);
      } else {
        r = LoadPlane(df, src + p);
        g = LoadPlane(df, src + pixels + p);
        b = LoadPlane(df, src + 2 * pixels + p);
      }
      r = Apply<T>(df, r, m0, s0);
      g = Apply<T>(df, g, m1, s1);
      b = Apply<T>(df, b, m2, s2);
      if (job.dst_interleaved) {
        hn::StoreInterleaved3(r, g, b, df, dst + 3 * p);
      } else {
        hn::StoreU(r, df, dst + p);
        hn::StoreU(g, df, dst + pixels + p);
        hn::StoreU(b, df, dst + 2 * pixels + p);
      }
    }
  }
  // The remaining pixels (all of them for other channel counts): the scalar reference on the tail.
  if (p == pixels) return;
  for (int64_t q = p; q < pixels; ++q) {
    for (int c = 0; c < job.channels; ++c) {
      const int64_t si = job.src_interleaved ? q * job.channels + c : c * pixels + q;
      const int64_t di = job.dst_interleaved ? q * job.channels + c : c * pixels + q;
      float x = static_cast<float>(src[si]);
      if constexpr (std::is_same_v<T, uint8_t>) x = opaque(x * kInv255);
      dst[di] = (x - job.mean[c]) / job.std[c];
    }
  }
}

void NormalizeU8(const uint8_t* src, float* dst, const NormalizeJob& job) {
  NormalizeImpl(src, dst, job);
}
void NormalizeF32(const float* src, float* dst, const NormalizeJob& job) {
  NormalizeImpl(src, dst, job);
}

}  // namespace loom::transforms::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace loom::transforms {

HWY_EXPORT(NormalizeU8);
HWY_EXPORT(NormalizeF32);

void normalize_u8(const uint8_t* src, float* dst, const NormalizeJob& job) {
  HWY_DYNAMIC_DISPATCH(NormalizeU8)(src, dst, job);
}
void normalize_f32(const float* src, float* dst, const NormalizeJob& job) {
  HWY_DYNAMIC_DISPATCH(NormalizeF32)(src, dst, job);
}

namespace {
template <typename T>
void normalize_scalar(const T* src, float* dst, const NormalizeJob& job) {
  for (int64_t q = 0; q < job.pixels; ++q) {
    for (int c = 0; c < job.channels; ++c) {
      const int64_t si = job.src_interleaved ? q * job.channels + c : c * job.pixels + q;
      const int64_t di = job.dst_interleaved ? q * job.channels + c : c * job.pixels + q;
      float x = static_cast<float>(src[si]);
      if constexpr (std::is_same_v<T, uint8_t>) x = opaque(x * kInv255);
      dst[di] = (x - job.mean[c]) / job.std[c];
    }
  }
}
}  // namespace

void normalize_u8_scalar(const uint8_t* src, float* dst, const NormalizeJob& job) {
  normalize_scalar(src, dst, job);
}
void normalize_f32_scalar(const float* src, float* dst, const NormalizeJob& job) {
  normalize_scalar(src, dst, job);
}

}  // namespace loom::transforms
#endif  // HWY_ONCE
