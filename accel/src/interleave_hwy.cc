// Highway kernels for interleave.h: channels 2, 3 and 4 move whole vectors with LoadInterleaved{2,3,4}
// (deinterleave) or StoreInterleaved{2,3,4} (interleave) and finish the tail with the scalar reference.
// Channels 1 (a copy) and channels > 4 (a blocked portable loop) need no per-target code.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "interleave_hwy.cc"
#include <hwy/foreach_target.h>  // must come before highway.h
#include <hwy/highway.h>

#include "loom/accel/interleave.h"

HWY_BEFORE_NAMESPACE();
namespace loom::accel::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// 2 <= channels <= 4.
template <typename T>
void DeinterleaveSimd(const T* HWY_RESTRICT src, size_t n, int channels, T* const* planes) {
  const hn::ScalableTag<T> d;
  using V = hn::Vec<decltype(d)>;
  const size_t lanes = hn::Lanes(d);
  T* HWY_RESTRICT p0 = planes[0];
  T* HWY_RESTRICT p1 = planes[1];
  size_t i = 0;
  if (channels == 2) {
    for (; i + lanes <= n; i += lanes) {
      V a, b;
      hn::LoadInterleaved2(d, src + 2 * i, a, b);
      hn::StoreU(a, d, p0 + i);
      hn::StoreU(b, d, p1 + i);
    }
  } else if (channels == 3) {
    T* HWY_RESTRICT p2 = planes[2];
    for (; i + lanes <= n; i += lanes) {
      V a, b, c;
      hn::LoadInterleaved3(d, src + 3 * i, a, b, c);
      hn::StoreU(a, d, p0 + i);
      hn::StoreU(b, d, p1 + i);
      hn::StoreU(c, d, p2 + i);
    }
  } else {
    T* HWY_RESTRICT p2 = planes[2];
    T* HWY_RESTRICT p3 = planes[3];
    for (; i + lanes <= n; i += lanes) {
      V a, b, c, e;
      hn::LoadInterleaved4(d, src + 4 * i, a, b, c, e);
      hn::StoreU(a, d, p0 + i);
      hn::StoreU(b, d, p1 + i);
      hn::StoreU(c, d, p2 + i);
      hn::StoreU(e, d, p3 + i);
    }
  }
  T* tail[4] = {};
  for (int c = 0; c < channels; ++c) tail[c] = planes[c] + i;
  deinterleave_scalar(src + i * static_cast<size_t>(channels), n - i, channels, tail);
}

// 2 <= channels <= 4.
template <typename T>
void InterleaveSimd(const T* const* planes, size_t n, int channels, T* HWY_RESTRICT dst) {
  const hn::ScalableTag<T> d;
  const size_t lanes = hn::Lanes(d);
  const T* HWY_RESTRICT p0 = planes[0];
  const T* HWY_RESTRICT p1 = planes[1];
  size_t i = 0;
  if (channels == 2) {
    for (; i + lanes <= n; i += lanes) {
      hn::StoreInterleaved2(hn::LoadU(d, p0 + i), hn::LoadU(d, p1 + i), d, dst + 2 * i);
    }
  } else if (channels == 3) {
    const T* HWY_RESTRICT p2 = planes[2];
    for (; i + lanes <= n; i += lanes) {
      hn::StoreInterleaved3(hn::LoadU(d, p0 + i), hn::LoadU(d, p1 + i), hn::LoadU(d, p2 + i), d, dst + 3 * i);
    }
  } else {
    const T* HWY_RESTRICT p2 = planes[2];
    const T* HWY_RESTRICT p3 = planes[3];
    for (; i + lanes <= n; i += lanes) {
      hn::StoreInterleaved4(hn::LoadU(d, p0 + i), hn::LoadU(d, p1 + i), hn::LoadU(d, p2 + i), hn::LoadU(d, p3 + i), d,
                            dst + 4 * i);
    }
  }
  const T* tail[4] = {};
  for (int c = 0; c < channels; ++c) tail[c] = planes[c] + i;
  interleave_scalar(tail, n - i, channels, dst + i * static_cast<size_t>(channels));
}

void DeinterleaveU8(const uint8_t* src, size_t n, int channels, uint8_t* const* planes) {
  DeinterleaveSimd(src, n, channels, planes);
}
void DeinterleaveU16(const uint16_t* src, size_t n, int channels, uint16_t* const* planes) {
  DeinterleaveSimd(src, n, channels, planes);
}
void DeinterleaveU32(const uint32_t* src, size_t n, int channels, uint32_t* const* planes) {
  DeinterleaveSimd(src, n, channels, planes);
}
void DeinterleaveU64(const uint64_t* src, size_t n, int channels, uint64_t* const* planes) {
  DeinterleaveSimd(src, n, channels, planes);
}
void InterleaveU8(const uint8_t* const* planes, size_t n, int channels, uint8_t* dst) {
  InterleaveSimd(planes, n, channels, dst);
}
void InterleaveU16(const uint16_t* const* planes, size_t n, int channels, uint16_t* dst) {
  InterleaveSimd(planes, n, channels, dst);
}
void InterleaveU32(const uint32_t* const* planes, size_t n, int channels, uint32_t* dst) {
  InterleaveSimd(planes, n, channels, dst);
}
void InterleaveU64(const uint64_t* const* planes, size_t n, int channels, uint64_t* dst) {
  InterleaveSimd(planes, n, channels, dst);
}

}  // namespace loom::accel::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "loom/codec/error.h"

namespace loom::accel {
namespace {

// Groups per block of the channels > 4 loop: about 16 KiB of interleaved input, so that the strided
// pass of each channel finds the block in the L1 cache.
template <typename T>
size_t block_groups(int channels) {
  const size_t groups = 16384 / (static_cast<size_t>(channels) * sizeof(T));
  return groups > 0 ? groups : 1;
}

// channels > 4: one strided pass per channel over each block.
template <typename T>
void deinterleave_wide(const T* src, size_t n, int channels, T* const* planes) {
  const auto c_count = static_cast<size_t>(channels);
  const size_t block = block_groups<T>(channels);
  for (size_t i0 = 0; i0 < n; i0 += block) {
    const size_t end = n - i0 < block ? n : i0 + block;
    for (size_t c = 0; c < c_count; ++c) {
      T* out = planes[c];
      const T* in = src + c;
      for (size_t i = i0; i < end; ++i) out[i] = in[i * c_count];
    }
  }
}

template <typename T>
void interleave_wide(const T* const* planes, size_t n, int channels, T* dst) {
  const auto c_count = static_cast<size_t>(channels);
  const size_t block = block_groups<T>(channels);
  for (size_t i0 = 0; i0 < n; i0 += block) {
    const size_t end = n - i0 < block ? n : i0 + block;
    for (size_t c = 0; c < c_count; ++c) {
      const T* in = planes[c];
      T* out = dst + c;
      for (size_t i = i0; i < end; ++i) out[i * c_count] = in[i];
    }
  }
}

template <typename T, typename Simd>
void deinterleave_any(const T* src, size_t n, int channels, T* const* planes, Simd simd) {
  if (n == 0 || channels < 1) return;
  if (channels == 1) {
    std::memcpy(planes[0], src, n * sizeof(T));
  } else if (channels <= 4) {
    simd(src, n, channels, planes);
  } else {
    deinterleave_wide(src, n, channels, planes);
  }
}

template <typename T, typename Simd>
void interleave_any(const T* const* planes, size_t n, int channels, T* dst, Simd simd) {
  if (n == 0 || channels < 1) return;
  if (channels == 1) {
    std::memcpy(dst, planes[0], n * sizeof(T));
  } else if (channels <= 4) {
    simd(planes, n, channels, dst);
  } else {
    interleave_wide(planes, n, channels, dst);
  }
}

// Calls f with the plane pointers as T* (T may be const): a copy of the array, on the stack for up to
// 16 channels (the void* objects are not read through another pointer type).
template <typename T, typename VoidPtr, typename F>
void with_typed_planes(VoidPtr const* planes, int channels, F&& f) {
  T* small[16] = {};
  std::vector<T*> large;
  T** typed = small;
  if (channels > 16) {
    large.resize(static_cast<size_t>(channels));
    typed = large.data();
  }
  for (int c = 0; c < channels; ++c) typed[c] = static_cast<T*>(planes[c]);
  f(typed);
}

[[noreturn]] void bad_element_size(size_t element_bytes) {
  throw Error(ErrorCode::kInternal, "",
              "interleave: element size " + std::to_string(element_bytes) + " bytes is not 1, 2, 4 or 8");
}

}  // namespace

HWY_EXPORT(DeinterleaveU8);
HWY_EXPORT(DeinterleaveU16);
HWY_EXPORT(DeinterleaveU32);
HWY_EXPORT(DeinterleaveU64);
HWY_EXPORT(InterleaveU8);
HWY_EXPORT(InterleaveU16);
HWY_EXPORT(InterleaveU32);
HWY_EXPORT(InterleaveU64);

void deinterleave(const uint8_t* src, size_t n, int channels, uint8_t* const* planes) {
  deinterleave_any(src, n, channels, planes, HWY_DYNAMIC_DISPATCH(DeinterleaveU8));
}
void deinterleave(const uint16_t* src, size_t n, int channels, uint16_t* const* planes) {
  deinterleave_any(src, n, channels, planes, HWY_DYNAMIC_DISPATCH(DeinterleaveU16));
}
void deinterleave(const uint32_t* src, size_t n, int channels, uint32_t* const* planes) {
  deinterleave_any(src, n, channels, planes, HWY_DYNAMIC_DISPATCH(DeinterleaveU32));
}
void deinterleave(const uint64_t* src, size_t n, int channels, uint64_t* const* planes) {
  deinterleave_any(src, n, channels, planes, HWY_DYNAMIC_DISPATCH(DeinterleaveU64));
}

void interleave(const uint8_t* const* planes, size_t n, int channels, uint8_t* dst) {
  interleave_any(planes, n, channels, dst, HWY_DYNAMIC_DISPATCH(InterleaveU8));
}
void interleave(const uint16_t* const* planes, size_t n, int channels, uint16_t* dst) {
  interleave_any(planes, n, channels, dst, HWY_DYNAMIC_DISPATCH(InterleaveU16));
}
void interleave(const uint32_t* const* planes, size_t n, int channels, uint32_t* dst) {
  interleave_any(planes, n, channels, dst, HWY_DYNAMIC_DISPATCH(InterleaveU32));
}
void interleave(const uint64_t* const* planes, size_t n, int channels, uint64_t* dst) {
  interleave_any(planes, n, channels, dst, HWY_DYNAMIC_DISPATCH(InterleaveU64));
}

void deinterleave(const void* src, size_t n, int channels, size_t element_bytes, void* const* planes) {
  const auto typed = [&](auto* first) {
    using T = std::remove_pointer_t<decltype(first)>;
    with_typed_planes<T>(planes, channels,
                         [&](T* const* p) { deinterleave(static_cast<const T*>(src), n, channels, p); });
  };
  switch (element_bytes) {
    case 1: typed(static_cast<uint8_t*>(nullptr)); break;
    case 2: typed(static_cast<uint16_t*>(nullptr)); break;
    case 4: typed(static_cast<uint32_t*>(nullptr)); break;
    case 8: typed(static_cast<uint64_t*>(nullptr)); break;
    default: bad_element_size(element_bytes);
  }
}

void interleave(const void* const* planes, size_t n, int channels, size_t element_bytes, void* dst) {
  const auto typed = [&](auto* first) {
    using T = std::remove_pointer_t<decltype(first)>;
    with_typed_planes<const T>(planes, channels,
                               [&](const T* const* p) { interleave(p, n, channels, static_cast<T*>(dst)); });
  };
  switch (element_bytes) {
    case 1: typed(static_cast<uint8_t*>(nullptr)); break;
    case 2: typed(static_cast<uint16_t*>(nullptr)); break;
    case 4: typed(static_cast<uint32_t*>(nullptr)); break;
    case 8: typed(static_cast<uint64_t*>(nullptr)); break;
    default: bad_element_size(element_bytes);
  }
}

}  // namespace loom::accel
#endif  // HWY_ONCE
