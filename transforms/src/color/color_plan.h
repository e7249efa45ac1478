// What the color kernels consume (private to loom::transforms): plain structs and raw pointers, no
// Tensor, shared by the ops (color_dtype.cc), the scalar reference and Highway kernels (color_kernels.h,
// color_hwy.cc) and a CUDA twin.
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

}  // namespace loom::transforms
