// Highway kernels for gaussian_noise (see noise_kernels.h for the generator). Per vector of 32-bit
// lanes: hash the element indices, gather the ziggurat bounds and the sigma-scaled layer widths, accept
// most lanes with one compare; a vector with a rejected lane sends those lanes through the scalar
// ziggurat_fallback. Then uint8: truncate mean + noise to an integer, add in int16 arithmetic, clamp
// or wrap; float32: add and clamp. Bit-identical with the scalar reference on every target.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "noise/noise_hwy.cc"
#include <hwy/foreach_target.h>  // must come before highway.h
#include <hwy/highway.h>

#include <algorithm>
#include <cmath>

#include "core/fp_barrier-inl.h"
#include "noise/noise_kernels.h"

HWY_BEFORE_NAMESPACE();
namespace loom::transforms::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;

template <class DU>
HWY_INLINE hn::Vec<DU> Mix32(DU du, hn::Vec<DU> x) {
  x = hn::Xor(x, hn::ShiftRight<16>(x));
  x = hn::Mul(x, hn::Set(du, 0x7feb352dU));
  x = hn::Xor(x, hn::ShiftRight<15>(x));
  x = hn::Mul(x, hn::Set(du, 0x846ca68bU));
  return hn::Xor(x, hn::ShiftRight<16>(x));
}

// The noise of elements [e, e + lanes) before the mean is added: float(int32(h)) * scaled_w[layer].
HWY_INLINE hn::Vec<DF> NoiseVector(DF df, const NoiseJob& job, uint32_t first_index) {
  const hn::RebindToSigned<DF> di;
  const hn::RebindToUnsigned<DF> du;
  const auto index = hn::Add(hn::Set(du, first_index), hn::Iota(du, 0));
  const auto h = Mix32(du, hn::Add(Mix32(du, hn::Xor(index, hn::Set(du, static_cast<uint32_t>(job.key)))),
                                   hn::Set(du, static_cast<uint32_t>(job.key >> 32))));
  const auto hz = hn::BitCast(di, h);
  const auto layer = hn::BitCast(di, hn::And(h, hn::Set(du, 127u)));
  const auto bound = hn::GatherIndex(di, ziggurat().k, layer);
  const auto width = hn::GatherIndex(df, job.scaled_w, layer);
  const auto magnitude = hn::Abs(hz);  // INT32_MIN stays negative: rejected, as in the scalar code
  const auto accepted = hn::And(hn::Lt(magnitude, bound), hn::Gt(magnitude, hn::Set(di, -1)));
  auto noise = Opaque(hn::Mul(hn::ConvertTo(df, hz), width));
  if (HWY_UNLIKELY(!hn::AllTrue(di, accepted))) {
    HWY_ALIGN float values[hn::MaxLanes(df)];
    HWY_ALIGN int32_t draws[hn::MaxLanes(di)];
    HWY_ALIGN int32_t ok[hn::MaxLanes(di)];
    hn::Store(noise, df, values);
    hn::Store(hz, di, draws);
    hn::Store(hn::VecFromMask(di, accepted), di, ok);
    for (size_t l = 0; l < hn::Lanes(df); ++l) {
      if (!ok[l]) values[l] = ziggurat_fallback(job, first_index + static_cast<uint32_t>(l), draws[l]);
    }
    noise = hn::Load(df, values);
  }
  return noise;
}

void NoiseU8(const uint8_t* HWY_RESTRICT src, uint8_t* HWY_RESTRICT dst, int64_t n, const NoiseJob& job) {
  const DF df;
  const hn::RebindToSigned<DF> di;
  const hn::Rebind<uint8_t, DF> d8;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
  const auto mean = hn::Set(df, job.mean);
  const auto lo16 = hn::Set(df, -32768.0f), hi16 = hn::Set(df, 32767.0f);
  const auto zero = hn::Zero(di), max8 = hn::Set(di, 255);
  int64_t e = 0;
  for (; e + lanes <= n; e += lanes) {
    const auto p = NoiseVector(df, job, static_cast<uint32_t>(job.first + e));
    const auto noise = hn::ConvertTo(di, hn::Min(hn::Max(hn::Add(mean, p), lo16), hi16));  // truncates
    auto sum = hn::Add(hn::PromoteTo(di, hn::LoadU(d8, src + e)), noise);
    sum = hn::ShiftRight<16>(hn::ShiftLeft<16>(sum));  // int16 wrap-around
    sum = job.clip ? hn::Min(hn::Max(sum, zero), max8) : hn::And(sum, max8);
    hn::StoreU(hn::DemoteTo(d8, sum), d8, dst + e);
  }
  if (e < n) {
    NoiseJob tail = job;
    tail.first = job.first + static_cast<uint64_t>(e);
    gaussian_noise_u8_scalar(src + e, dst + e, n - e, tail);
  }
}

void NoiseF32(const float* HWY_RESTRICT src, float* HWY_RESTRICT dst, int64_t n, const NoiseJob& job) {
  const DF df;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
  const auto mean = hn::Set(df, job.mean);
  const auto zero = hn::Zero(df), one = hn::Set(df, 1.0f);
  int64_t e = 0;
  for (; e + lanes <= n; e += lanes) {
    const auto p = NoiseVector(df, job, static_cast<uint32_t>(job.first + e));
    auto out = hn::Add(hn::LoadU(df, src + e), hn::Add(mean, p));
    if (job.clip) out = hn::Min(hn::Max(out, zero), one);
    hn::StoreU(out, df, dst + e);
  }
  if (e < n) {
    NoiseJob tail = job;
    tail.first = job.first + static_cast<uint64_t>(e);
    gaussian_noise_f32_scalar(src + e, dst + e, n - e, tail);
  }
}

}  // namespace loom::transforms::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace loom::transforms {

HWY_EXPORT(NoiseU8);
HWY_EXPORT(NoiseF32);

void gaussian_noise_u8(const uint8_t* src, uint8_t* dst, int64_t n, const NoiseJob& job) {
  HWY_DYNAMIC_DISPATCH(NoiseU8)(src, dst, n, job);
}
void gaussian_noise_f32(const float* src, float* dst, int64_t n, const NoiseJob& job) {
  HWY_DYNAMIC_DISPATCH(NoiseF32)(src, dst, n, job);
}

namespace {
// Element `index`'s noise before the mean is added (the scalar form of NoiseVector).
inline float noise_value(const NoiseJob& job, uint32_t index) {
  const uint32_t h = noise_hash(job.key, index);
  const auto hz = static_cast<int32_t>(h);
  const int layer = static_cast<int>(h & 127u);
  if (std::abs(static_cast<int64_t>(hz)) < ziggurat().k[layer]) {
    return opaque(static_cast<float>(hz) * job.scaled_w[layer]);
  }
  return ziggurat_fallback(job, index, hz);
}
}  // namespace

void gaussian_noise_u8_scalar(const uint8_t* src, uint8_t* dst, int64_t n, const NoiseJob& job) {
  for (int64_t e = 0; e < n; ++e) {
    const float noise =
        std::clamp(job.mean + noise_value(job, static_cast<uint32_t>(job.first + e)), -32768.0f, 32767.0f);
    const auto sum = static_cast<int16_t>(static_cast<uint16_t>(src[e] + static_cast<int32_t>(noise)));  // int16 wrap
    dst[e] = job.clip ? static_cast<uint8_t>(std::clamp<int32_t>(sum, 0, 255)) : static_cast<uint8_t>(sum & 255);
  }
}

void gaussian_noise_f32_scalar(const float* src, float* dst, int64_t n, const NoiseJob& job) {
  for (int64_t e = 0; e < n; ++e) {
    float out = src[e] + (job.mean + noise_value(job, static_cast<uint32_t>(job.first + e)));
    if (job.clip) out = std::min(std::max(out, 0.0f), 1.0f);
    dst[e] = out;
  }
}

}  // namespace loom::transforms
#endif  // HWY_ONCE
