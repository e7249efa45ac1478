// Additive Gaussian noise with torchvision 0.24 semantics (transforms.v2.functional.gaussian_noise).
//
// float32 image (expected in [0, 1]): out = image + (mean + z * sigma), clamped to [0, 1] when clip.
// uint8 image: mean and sigma are on the normalised [0, 1] scale, as torchvision's:
//   noise = trunc_toward_zero(mean * 255 + z * (sigma * 255))   (float32, then an int16)
//   out   = image + noise in int16 (wrapping, as torch's int16 does), then clamped to [0, 255] when clip,
//           else reduced modulo 256 (torch's int16 -> uint8 conversion).
// z is a standard normal variable per element. Noise magnitudes beyond the int16 range saturate.
//
// Random numbers: one 64-bit key is drawn from `rng` (so `rng` advances by one step); element i of the
// contiguous image (memory order of the given layout) gets z = f(key, i) from a counter-based generator
// (a 32-bit hash of (key, i) through a 128-layer ziggurat, the rare rejections resolved by a scalar
// path). The same Rng state gives the same output on every SIMD target and for any thread count; the
// values are not torch's (its generator cannot be reproduced), only the distribution is.
// Layout: any (the op is element-wise); any strides (copied to contiguous first); the result is a new
// contiguous tensor of the input's shape and dtype. Any channel count.
// Errors: Error(kInvalidInput) for sigma < 0, non-finite mean or sigma or a tensor that is not 3-D;
// Devices: the CPU, or with a CUDA build a CUDA device this process can use: the result is then on that
// device, bit-equal with the CPU's for the same Rng state (see docs/transforms.md for the one
// theoretical exception), queued on the device's current stream.
// Error(kUnsupported) for a dtype other than uint8/float32 or a tensor on a device loom cannot use here.
// Thread safety: reentrant; `rng` is the caller's (one per thread).
#pragma once

#include "loom/codec/api.h"
#include "loom/codec/tensor.h"
#include "loom/transforms/random.h"

LOOM_API_BEGIN

namespace loom::transforms {

Tensor gaussian_noise(const Tensor& image, Rng& rng, double mean = 0.0, double sigma = 0.1, bool clip = true);

}  // namespace loom::transforms

LOOM_API_END
