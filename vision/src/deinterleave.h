// Interleaved pixels to planes (private to loom::vision): the CHW half of RowSink, in SIMD.
#pragma once

#include <cstdint>

namespace loom::vision {

// planes[c][x] = src[x * channels + c] for x < width and 2 <= channels <= 4. Highway dynamic dispatch
// picks the best SIMD target of this CPU.
void deinterleave(const uint8_t* src, int width, int channels, uint8_t* const* planes);
void deinterleave(const uint16_t* src, int width, int channels, uint16_t* const* planes);

// The scalar reference that tests compare every compiled target against.
template <typename T>
void deinterleave_scalar(const T* src, int width, int channels, T* const* planes) {
  for (int x = 0; x < width; ++x)
    for (int c = 0; c < channels; ++c) planes[c][x] = src[x * channels + c];
}

}  // namespace loom::vision
