// Highway kernels for deinterleave.h: LoadInterleaved{2,3,4} then one store per plane, with the scalar
// reference for the tail.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "deinterleave_hwy.cc"
#include <hwy/foreach_target.h>  // must come before highway.h
#include <hwy/highway.h>

#include "deinterleave.h"

HWY_BEFORE_NAMESPACE();
namespace loom::vision::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <typename T>
void DeinterleaveRow(const T* HWY_RESTRICT src, int width, int channels, T* const* planes) {
  const hn::ScalableTag<T> d;
  const int n = static_cast<int>(hn::Lanes(d));
  int x = 0;
  if (channels == 2) {
    for (; x + n <= width; x += n) {
      hn::Vec<decltype(d)> a, b;
      hn::LoadInterleaved2(d, src + 2 * x, a, b);
      hn::StoreU(a, d, planes[0] + x);
      hn::StoreU(b, d, planes[1] + x);
    }
  } else if (channels == 3) {
    for (; x + n <= width; x += n) {
      hn::Vec<decltype(d)> a, b, c;
      hn::LoadInterleaved3(d, src + 3 * x, a, b, c);
      hn::StoreU(a, d, planes[0] + x);
      hn::StoreU(b, d, planes[1] + x);
      hn::StoreU(c, d, planes[2] + x);
    }
  } else if (channels == 4) {
    for (; x + n <= width; x += n) {
      hn::Vec<decltype(d)> a, b, c, e;
      hn::LoadInterleaved4(d, src + 4 * x, a, b, c, e);
      hn::StoreU(a, d, planes[0] + x);
      hn::StoreU(b, d, planes[1] + x);
      hn::StoreU(c, d, planes[2] + x);
      hn::StoreU(e, d, planes[3] + x);
    }
  }
  T* tail[4] = {};
  for (int c = 0; c < channels; ++c) tail[c] = planes[c] + x;
  deinterleave_scalar(src + x * channels, width - x, channels, tail);
}

void DeinterleaveU8(const uint8_t* src, int width, int channels, uint8_t* const* planes) {
  DeinterleaveRow(src, width, channels, planes);
}
void DeinterleaveU16(const uint16_t* src, int width, int channels, uint16_t* const* planes) {
  DeinterleaveRow(src, width, channels, planes);
}

}  // namespace loom::vision::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace loom::vision {

HWY_EXPORT(DeinterleaveU8);
HWY_EXPORT(DeinterleaveU16);

void deinterleave(const uint8_t* src, int width, int channels, uint8_t* const* planes) {
  HWY_DYNAMIC_DISPATCH(DeinterleaveU8)(src, width, channels, planes);
}
void deinterleave(const uint16_t* src, int width, int channels, uint16_t* const* planes) {
  HWY_DYNAMIC_DISPATCH(DeinterleaveU16)(src, width, channels, planes);
}

}  // namespace loom::vision
#endif  // HWY_ONCE
