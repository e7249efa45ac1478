// The Gaussian noise kernels (private to loom::transforms): the ziggurat tables and the scalar fallback
// of the generator (ziggurat.cc), the scalar reference and its Highway twin (noise_hwy.cc), all fed a
// NoiseJob (noise_plan.h). noise.cc runs them; the tests compare every SIMD target with the reference.
#pragma once

#include <cstdint>

#include "noise/noise_plan.h"

namespace loom::transforms {

const Ziggurat& ziggurat();  // built once (thread-safe)

// Fills `job` for a key, mean and sigma: the scaled layer widths, first = 0.
void prepare_noise_job(NoiseJob& job, uint64_t key, double mean, double sigma, bool clip);

// The noise value before the mean is added (float(h) * scaled_w[layer] when accepted) for a rejected
// draw h of element `index`: the rest of the ziggurat, in double, then times sigma and rounded to float.
float ziggurat_fallback(const NoiseJob& job, uint32_t index, int32_t h);

// Scalar references and the Highway kernels (dynamic dispatch); n elements, element e has index
// job.first + e (the caller keeps job.first + n <= 2^32).
void gaussian_noise_u8_scalar(const uint8_t* src, uint8_t* dst, int64_t n, const NoiseJob& job);
void gaussian_noise_f32_scalar(const float* src, float* dst, int64_t n, const NoiseJob& job);
void gaussian_noise_u8(const uint8_t* src, uint8_t* dst, int64_t n, const NoiseJob& job);
void gaussian_noise_f32(const float* src, float* dst, int64_t n, const NoiseJob& job);

// CUDA twins (noise.cu, built with LOOM_WITH_CUDA) of the scalar references: n elements of device
// memory, element e with index job.first + e, the same hash, ziggurat and fallback stream, float32
// operations rounded one by one (no fused multiply-add). The fallback's double log and exp are
// CUDA's (at most 1 ulp from the correctly rounded value, as glibc's), so a rejected draw could in
// principle round to a float 1 ulp away from the CPU's; every other element is bit-identical.
// `table` is ziggurat(); queued on `stream` (a cudaStream_t).
void gaussian_noise_u8_cuda(const uint8_t* src, uint8_t* dst, int64_t n, const NoiseJob& job, const Ziggurat& table,
                            void* stream);
void gaussian_noise_f32_cuda(const float* src, float* dst, int64_t n, const NoiseJob& job, const Ziggurat& table,
                             void* stream);

}  // namespace loom::transforms
