// Highway kernel of the mirrored runs of the remap (remap.cc: horizontal flips, reflections): n pixels
// of 1 to 4 bytes copied in reverse order. A vector of pixels is loaded whole (3-byte pixels
// de-interleaved into three vectors of bytes), its lanes reversed, and stored; a run that is not a whole
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

HWY_INLINE int64_t ReverseRgb(uint8_t* out, const uint8_t* in_first, int64_t n) {
  const hn::ScalableTag<uint8_t> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  return Vectors(n, lanes, [&](int64_t i) {
    hn::Vec<decltype(d)> r, g, b;
    hn::LoadInterleaved3(d, in_first - (i + lanes - 1) * 3, r, g, b);
    hn::StoreInterleaved3(ReverseLanes(d, r), ReverseLanes(d, g), ReverseLanes(d, b), d, out + i * 3);
  });
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
