// Highway kernel of the mirrored runs of the remap (remap.cc: horizontal flips, reflections): n pixels
// of 1 to 4 bytes copied in reverse order. A vector of pixels is loaded whole, its lanes reversed, and
// stored (3-byte pixels: 16 at a time by byte lookups within 16-byte blocks); a run that is not a whole
// number of vectors ends with one vector overlapping the one before, and a run shorter than a vector is
// copied one pixel at a time.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "geometry/reverse_hwy.cc"
#include <hwy/foreach_target.h>  // must come before highway.h
#include <hwy/highway.h>

#include <cstring>

#include "geometry/geometry_kernels.h"

HWY_BEFORE_NAMESPACE();
namespace loom::transforms::detail::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The lanes of `v` in reverse order. Highway 1.0 reverses lanes of 2 bytes and more: bytes are swapped
// within 16-bit lanes, which are then reversed.
template <class D>
HWY_INLINE hn::Vec<D> ReverseLanes(D d, hn::Vec<D> v) {
  if constexpr (sizeof(hn::TFromD<D>) > 1 || HWY_TARGET == HWY_SCALAR) {  // one scalar lane: itself
    return hn::Reverse(d, v);
  } else {
    const hn::Repartition<uint16_t, D> d16;
    const auto w = hn::BitCast(d16, v);
    return hn::BitCast(d, hn::Reverse(d16, hn::Or(hn::ShiftLeft<8>(w), hn::ShiftRight<8>(w))));
  }
}

// Calls vector(i) for the pixels [i, i + lanes) of [0, n): whole vectors, then one ending at n that
// overlaps the one before (the same bytes written twice). Returns the pixels done: n, or 0 if n < lanes.
template <class Vector>
HWY_INLINE int64_t Vectors(int64_t n, int64_t lanes, const Vector& vector) {
  if (n < lanes) return 0;
  for (int64_t i = 0; i + lanes <= n; i += lanes) vector(i);
  if (n % lanes != 0) vector(n - lanes);
  return n;
}

// Pixels of one lane each (1, 2 or 4 bytes: T).
template <typename T>
HWY_INLINE int64_t ReverseRun(uint8_t* out, const uint8_t* in_first, int64_t n) {
  const hn::ScalableTag<T> d;
  return Vectors(n, static_cast<int64_t>(hn::Lanes(d)), [&](int64_t i) {
    // Output pixels i .. i + lanes - 1 are source pixels in_first - i .. in_first - i - lanes + 1.
    const auto v = hn::LoadU(d, reinterpret_cast<const T*>(in_first) - i - (hn::Lanes(d) - 1));
    hn::StoreU(ReverseLanes(d, v), d, reinterpret_cast<T*>(out) + i);
  });
}

// 16 pixels of 3 bytes reversed: output byte j is source byte 45 - 3 * (j / 3) + j % 3. from[b][s] lists,
// for output block b (bytes 16b .. 16b + 15), each byte's index in source block s, or 0x80 (a zero) for
// the bytes another source block gives.
struct RgbReversal {
  uint8_t from[3][3][16];
};

constexpr RgbReversal MakeRgbReversal() {
  RgbReversal t{};
  for (int b = 0; b < 3; ++b) {
    for (int s = 0; s < 3; ++s) {
      for (int k = 0; k < 16; ++k) {
        const int j = 16 * b + k, src = 45 - 3 * (j / 3) + j % 3;
        t.from[b][s][k] = static_cast<uint8_t>(src / 16 == s ? src % 16 : 0x80);
      }
    }
  }
  return t;
}

// 3-byte pixels, 16 at a time: three 16-byte loads, each output block the OR of its byte lookups in
// the three source blocks.
HWY_INLINE int64_t ReverseRgb(uint8_t* out, const uint8_t* in_first, int64_t n) {
#if HWY_TARGET == HWY_SCALAR
  (void)out, (void)in_first, (void)n;
  return 0;
#else
  const hn::CappedTag<uint8_t, 16> d;
  static constexpr RgbReversal kReversal = MakeRgbReversal();
  return Vectors(n, 16, [&](int64_t i) {
    const uint8_t* src = in_first - (i + 15) * 3;  // the chunk's 48 source bytes
    const auto s0 = hn::LoadU(d, src), s1 = hn::LoadU(d, src + 16), s2 = hn::LoadU(d, src + 32);
    for (int b = 0; b < 3; ++b) {
      const auto* from = kReversal.from[b];
      const auto v = hn::Or(hn::Or(hn::TableLookupBytesOr0(s0, hn::LoadU(d, from[0])),
                                   hn::TableLookupBytesOr0(s1, hn::LoadU(d, from[1]))),
                            hn::TableLookupBytesOr0(s2, hn::LoadU(d, from[2])));
      hn::StoreU(v, d, out + i * 3 + 16 * b);
    }
  });
#endif
}

void ReversePixels(uint8_t* out, const uint8_t* in_first, int64_t n, int64_t pixel_bytes) {
  int64_t done = 0;
  switch (pixel_bytes) {
    case 1: done = ReverseRun<uint8_t>(out, in_first, n); break;
    case 2: done = ReverseRun<uint16_t>(out, in_first, n); break;
    case 3: done = ReverseRgb(out, in_first, n); break;
    case 4: done = ReverseRun<uint32_t>(out, in_first, n); break;
    default: break;
  }
  for (int64_t i = done; i < n; ++i) {
    std::memcpy(out + i * pixel_bytes, in_first - i * pixel_bytes, static_cast<size_t>(pixel_bytes));
  }
}

}  // namespace loom::transforms::detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace loom::transforms::detail {

HWY_EXPORT(ReversePixels);

void reverse_pixels(uint8_t* out, const uint8_t* in_first, int64_t n, int64_t pixel_bytes) {
  HWY_DYNAMIC_DISPATCH(ReversePixels)(out, in_first, n, pixel_bytes);
}

}  // namespace loom::transforms::detail
#endif  // HWY_ONCE
