// Kernels shared by color*.cc, the Highway kernels of color_hwy.cc and their tests (private to
// loom::transforms): the normalize kernels with their scalar reference.
#pragma once

#include <cstdint>

namespace loom::transforms {

// float(1 / 255): torchvision v2's to_dtype(uint8 -> float32, scale=True) multiplies by this.
inline constexpr float kInv255 = static_cast<float>(1.0 / 255.0);

// One normalize job: `pixels` pixels of `channels` channels; src/dst interleaved (HWC) or planar
// (CHW, planes `pixels` apart). out = (x * scale_u8 - mean[c]) / std[c] for uint8 (x * float(1/255)),
// (x - mean[c]) / std[c] for float32: float32 operations in this order, no fused multiply-add, so every
// target gives the same bits.
struct NormalizeJob {
  int64_t pixels = 0;
  int channels = 0;
  bool src_interleaved = false;
  bool dst_interleaved = false;
  const float* mean = nullptr;  // `channels` values
  const float* std = nullptr;   // `channels` values, none 0
};

// Scalar references.
void normalize_u8_scalar(const uint8_t* src, float* dst, const NormalizeJob& job);
void normalize_f32_scalar(const float* src, float* dst, const NormalizeJob& job);
// Highway kernels (1 and 3 channels; other channel counts run the scalar reference), dynamic dispatch.
void normalize_u8(const uint8_t* src, float* dst, const NormalizeJob& job);
void normalize_f32(const float* src, float* dst, const NormalizeJob& job);

}  // namespace loom::transforms
