// Little-endian PCM samples -> float32 or int32, the conversions of a WAV read: the SIMD (Highway)
// kernels behind audio load's direct PCM path, bit-identical to libsndfile's normalized reads.
//
// Layout: `src` holds n samples of `encoding`, packed (kS24: 3 bytes each), little-endian, with no
// alignment required; `dst` holds n elements. Samples are converted one by one, so interleaved frames
// stay interleaved. Units are samples.
//
// Contract of every function here:
//   - n may be 0 (then no pointer is dereferenced); src and dst do not overlap.
//   - Highway dynamic dispatch picks the best SIMD target of this CPU on the first call; the functions
//     keep no state and throw nothing.
//   - Results are bit-identical to the *_scalar references below on every target.
#pragma once

#include <cstddef>
#include <cstdint>

#include "loom/codec/api.h"

LOOM_API_BEGIN

namespace loom::accel {

enum class PcmEncoding {
  kU8,   // unsigned 8-bit, 128 = 0
  kS16,  // signed 16-bit
  kS24,  // signed 24-bit, 3 bytes
  kS32,  // signed 32-bit
  kF32,  // IEEE float
};

// Bytes of one sample.
constexpr size_t pcm_bytes(PcmEncoding e) {
  switch (e) {
    case PcmEncoding::kU8: return 1;
    case PcmEncoding::kS16: return 2;
    case PcmEncoding::kS24: return 3;
    default: return 4;
  }
}

// The factor that scales an integer sample of `e` into [-1, 1) once it is an int32 (kU8 minus 128; kS24
// as x << 8): 2^-7, 2^-15 or 2^-31; 1 for kF32.
constexpr float pcm_scale(PcmEncoding e) {
  switch (e) {
    case PcmEncoding::kU8: return 1.0f / 128.0f;
    case PcmEncoding::kS16: return 1.0f / 32768.0f;
    case PcmEncoding::kF32: return 1.0f;
    default: return 1.0f / 2147483648.0f;
  }
}

// dst[i] = sample i scaled into [-1, 1) as libsndfile's sf_read_float scales it: (x - 128) / 128 for
// kU8, x / 2^15 for kS16, and float(x << 8) / 2^31 for kS24 and float(x) / 2^31 for kS32 (the int32 ->
// float conversion rounds to nearest even; the scaling by a power of two is exact). kF32: a copy.
void pcm_to_float(const uint8_t* src, size_t n, PcmEncoding encoding, float* dst);

// dst[i] = sample i of kS24 as int32 in the upper 24 bits (x << 8), as libsndfile's sf_read_int gives it.
void s24_to_s32(const uint8_t* src, size_t n, int32_t* dst);

// The scalar references that the tests compare every compiled SIMD target against.
void pcm_to_float_scalar(const uint8_t* src, size_t n, PcmEncoding encoding, float* dst);
void s24_to_s32_scalar(const uint8_t* src, size_t n, int32_t* dst);

}  // namespace loom::accel

LOOM_API_END
