// What the Gaussian noise kernels consume (private to loom::transforms): plain structs and inline
// functions, no Tensor, shared by the op (noise.cc), the scalar reference and Highway kernels
// (noise_kernels.h, noise_hwy.cc) and a CUDA twin.
//
// Element i's standard normal comes from h = hash32(key, i) alone (so it does not depend on the vector
// width): Marsaglia and Tsang's 128-layer ziggurat reads the layer from h & 127 and accepts
// z = int32(h) * w[layer] when |int32(h)| < k[layer] (about 98.8% of draws); otherwise
// ziggurat_fallback finishes the draw with a scalar per-element stream seeded from (key, i). Noise is
// then float(int32(h)) * (w[layer] * sigma), plus the mean, in float32 with no fused multiply-add, so
// the SIMD kernels and the scalar reference give the same bits. The hash and the fallback are
// LOOM_HOST_DEVICE: the CUDA twin (noise.cu) runs this very code.
#pragma once

#include <cmath>
#include <cstdint>

#include "core/splitmix64.h"
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

// The noise value before the mean is added for a rejected draw h of element `index`: the rest of the
// ziggurat `z` from a private splitmix64 stream seeded from the key and the index, in double (each
// operation rounded on its own: the CPU compiles it where no multiply-add is fused, noise.cu with
// --fmad=false), then times sigma and rounded to float.
LOOM_HOST_DEVICE inline float ziggurat_fallback(const NoiseJob& job, const Ziggurat& z, uint32_t index, int32_t h) {
  constexpr double kR = 3.442619855899;  // start of the tail (Marsaglia and Tsang's 128-layer constants)
  uint64_t state = job.key ^ (static_cast<uint64_t>(index) * 0xd1342543de82ef95ull + 0x2545f4914f6cdd1dull);
  auto uniform = [&] { return (static_cast<double>(detail::splitmix64(state) >> 11) + 0.5) * 0x1.0p-53; };  // (0, 1)
  int layer = static_cast<int>(static_cast<uint32_t>(h) & 127u);
  for (;;) {
    double x = h * z.w[layer];
    if (layer == 0) {  // the tail beyond kR (Marsaglia's method)
      double y;
      do {
        x = -log(uniform()) / kR;
        y = -log(uniform());
      } while (y + y < x * x);
      x = h > 0 ? kR + x : -kR - x;
      return static_cast<float>(x * job.sigma);
    }
    if (z.f[layer] + uniform() * (z.f[layer - 1] - z.f[layer]) < exp(-0.5 * x * x)) {
      return static_cast<float>(x * job.sigma);
    }
    h = static_cast<int32_t>(static_cast<uint32_t>(detail::splitmix64(state) >> 32));
    layer = static_cast<int>(static_cast<uint32_t>(h) & 127u);
    const int64_t magnitude = h < 0 ? -static_cast<int64_t>(h) : static_cast<int64_t>(h);
    if (magnitude < z.k[layer]) return static_cast<float>(h * z.w[layer] * job.sigma);
  }
}

}  // namespace loom::transforms
