// Interleaved samples <-> planes: the one SIMD (Highway) kernel that image decode (CHW rows), image
// encode, video decode (NCHW) and encode (GBRP planes) and audio load ([channels, frames]) share.
//
// Layout: an interleaved buffer holds n groups ("pixels", "frames") of `channels` elements each,
// group-major: element c of group i is at [i * channels + c]. Plane c holds element c of every group:
// planes[c][i], for 0 <= i < n. Units are elements (not bytes); nothing is converted, only moved.
//
// Contract of every function here:
//   - channels >= 1 (fewer does nothing); n may be 0 (then no pointer is dereferenced).
//   - Pointers are aligned to the element size (no vector alignment is needed: any offset works).
//   - The output overlaps no input, and deinterleave's planes do not overlap each other (interleave's
//     input planes may: e.g. one plane passed for every channel). To permute channels
//     (e.g. FFmpeg's GBRP plane order G, B, R for R, G, B samples), pass the plane pointers in the
//     order wanted.
//   - channels 1 is a copy; 2, 3 and 4 take the SIMD path (Highway's LoadInterleaved{2,3,4} /
//     StoreInterleaved{2,3,4}, whole vectors then a scalar tail); channels > 4 take a portable loop
//     (blocks of about 16 KiB, one strided pass per channel).
//   - Highway dynamic dispatch picks the best SIMD target of this CPU on the first call; the functions
//     keep no state, so concurrent calls are safe when their outputs are disjoint. They throw nothing,
//     except the element-size overloads: loom::Error (kInternal) for a size other than 1, 2, 4 or 8,
//     and std::bad_alloc when a copy of more than 16 plane pointers cannot be allocated.
//   - Results are bit-identical to the *_scalar references below on every target.
#pragma once

#include <cstddef>
#include <cstdint>

#include "loom/codec/api.h"

LOOM_API_BEGIN

namespace loom::accel {

// planes[c][i] = src[i * channels + c] for i < n, c < channels.
void deinterleave(const uint8_t* src, size_t n, int channels, uint8_t* const* planes);
void deinterleave(const uint16_t* src, size_t n, int channels, uint16_t* const* planes);
void deinterleave(const uint32_t* src, size_t n, int channels, uint32_t* const* planes);
void deinterleave(const uint64_t* src, size_t n, int channels, uint64_t* const* planes);
// The same for elements of `element_bytes` (1, 2, 4 or 8) bytes of any type (float, int16, ...).
void deinterleave(const void* src, size_t n, int channels, size_t element_bytes, void* const* planes);

// dst[i * channels + c] = planes[c][i] for i < n, c < channels.
void interleave(const uint8_t* const* planes, size_t n, int channels, uint8_t* dst);
void interleave(const uint16_t* const* planes, size_t n, int channels, uint16_t* dst);
void interleave(const uint32_t* const* planes, size_t n, int channels, uint32_t* dst);
void interleave(const uint64_t* const* planes, size_t n, int channels, uint64_t* dst);
// The same for elements of `element_bytes` (1, 2, 4 or 8) bytes of any type.
void interleave(const void* const* planes, size_t n, int channels, size_t element_bytes, void* dst);

// The scalar references that the tests compare every compiled SIMD target against.
template <typename T>
void deinterleave_scalar(const T* src, size_t n, int channels, T* const* planes) {
  const auto c_count = static_cast<size_t>(channels);
  for (size_t i = 0; i < n; ++i)
    for (size_t c = 0; c < c_count; ++c) planes[c][i] = src[i * c_count + c];
}

template <typename T>
void interleave_scalar(const T* const* planes, size_t n, int channels, T* dst) {
  const auto c_count = static_cast<size_t>(channels);
  for (size_t i = 0; i < n; ++i)
    for (size_t c = 0; c < c_count; ++c) dst[i * c_count + c] = planes[c][i];
}

}  // namespace loom::accel

LOOM_API_END
