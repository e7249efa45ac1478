// The color kernels (private to loom::transforms): normalize's scalar reference and its Highway twin
// (both in color_hwy.cc), fed a NormalizeJob (color_plan.h). color_dtype.cc runs them; the tests
// compare every SIMD target with the reference.
#pragma once

#include <cstdint>

#include "color/color_plan.h"

namespace loom::transforms {

// Scalar references.
void normalize_u8_scalar(const uint8_t* src, float* dst, const NormalizeJob& job);
void normalize_f32_scalar(const float* src, float* dst, const NormalizeJob& job);
// Highway kernels (1 and 3 channels; other channel counts run the scalar reference), dynamic dispatch.
void normalize_u8(const uint8_t* src, float* dst, const NormalizeJob& job);
void normalize_f32(const float* src, float* dst, const NormalizeJob& job);

// CUDA twins (color.cu, built with LOOM_WITH_CUDA): the same float32 operations (x * float(1/255)
// for uint8, then (x - mean) / std, each rounded on its own: __fmul_rn, __fsub_rn, __fdiv_rn), so the
// same bits as the scalar references. src, dst, job.mean and job.std are device addresses; queued on
// `stream` (a cudaStream_t).
void normalize_u8_cuda(const uint8_t* src, float* dst, const NormalizeJob& job, void* stream);
void normalize_f32_cuda(const float* src, float* dst, const NormalizeJob& job, void* stream);

}  // namespace loom::transforms
