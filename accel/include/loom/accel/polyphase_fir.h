// One phase of a polyphase FIR filter over a block-transposed signal: the SIMD (Highway) kernel behind
// audio::resample's sinc engine (audio/src/resample_sinc.cc), which lays the signal out so that the
// inputs of consecutive output blocks are consecutive floats.
//
// Layout: `src` is any float array; tap t reads src[offsets[t] + b] for block b, so each offset names
// the start of a run of n floats. `taps` and `offsets` hold `count` entries; `dst` holds n floats.
// Units are floats (elements), not bytes.
//
// Contract of every function here:
//   - dst[b] = (((0 + taps[0] * x0) + taps[1] * x1) + ...) with xt = src[offsets[t] + b], for b in
//     [0, n): the taps in order, every product and every sum rounded to float32 (no fused multiply-add),
//     so every SIMD target equals the *_scalar reference bit for bit and the result does not depend on
//     the CPU.
//   - n and count may be 0 (dst is then all +0, or untouched when n is 0); src does not overlap dst.
//   - Highway dynamic dispatch picks the best SIMD target of this CPU on the first call; the functions
//     keep no state and throw nothing.
#pragma once

#include <cstddef>
#include <cstdint>

#include "loom/codec/api.h"

LOOM_API_BEGIN

namespace loom::accel {

void polyphase_fir(const float* src, const float* taps, const int64_t* offsets, size_t count, size_t n, float* dst);

// The scalar reference that the tests compare every compiled SIMD target against.
void polyphase_fir_scalar(const float* src, const float* taps, const int64_t* offsets, size_t count, size_t n,
                          float* dst);

}  // namespace loom::accel

LOOM_API_END
