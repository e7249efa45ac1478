// What the Gaussian noise kernels consume (private to loom::transforms): plain structs and inline
// functions, no Tensor, shared by the op (noise.cc), the scalar reference and Highway kernels
// (noise_kernels.h, noise_hwy.cc) and a CUDA twin.
//
// Element i's standard normal comes from h = hash32(key, i) alone (so it does not depend on the vector
// width): Marsaglia and Tsang's 128-layer ziggurat reads the layer from h & 127 and accepts
// z = int32(h) * w[layer] when |int32(h)| < k[layer] (about 98.8% of draws); otherwise
// ziggurat_fallback finishes the draw with a scalar per-element stream seeded from (key, i). Noise is
// then float(int32(h)) * (w[layer] * sigma), plus the mean, in float32 with no fused multiply-add, so
// the SIMD kernels and the scalar reference give the same bits. The hash is LOOM_HOST_DEVICE: the CUDA
// twin (noise.cu) runs this very code.
#pragma once

#include <cstdint>

#include "loom/codec/api.h"

namespace loom::transforms {

// Marsaglia and Tsang's 128-layer ziggurat (built once by ziggurat(), noise_kernels.h).
struct Ziggurat {
  int32_t k[128];  // acceptance bounds on |int32(h)|
  double w[128];   // layer widths / 2^31
  double f[128];   // exp(-x^2 / 2) at the layer edges
};

// One call's parameters. scaled_w[l] = float(w[l] * sigma) (sigma already times 255 for uint8); the
// key's two halves seed the hash; `first` is the element index of the first element of the job.
struct NoiseJob {
  uint64_t key = 0;
  uint64_t first = 0;
  float mean = 0.0f;   // mean (times 255 for uint8)
  double sigma = 0.0;  // sigma (times 255 for uint8)
  float scaled_w[128];
  bool clip = true;
};

// The 32-bit hash of element `index` (index < 2^32 per key: callers derive a new key per 2^32
// elements). Two rounds of a multiply-xorshift mixer keyed by the key's halves.
LOOM_HOST_DEVICE inline uint32_t mix32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}
LOOM_HOST_DEVICE inline uint32_t noise_hash(uint64_t key, uint32_t index) {
  return mix32(mix32(index ^ static_cast<uint32_t>(key)) + static_cast<uint32_t>(key >> 32));
}

}  // namespace loom::transforms
