// The CUDA twin of the Gaussian noise kernels (noise_kernels.h): element i's draw from noise_hash(key,
// i) (noise_plan.h, the same code), accepted by the ziggurat bound of layer h & 127, otherwise finished
// by ziggurat_fallback_device, a line-by-line port of ziggurat.cc's ziggurat_fallback (the same
// splitmix64 stream, double arithmetic rounded one operation at a time). One thread per element; the
// bounds and scaled widths are staged in shared memory, the fallback reads the tables from the
// kernel's parameters (job and table are passed by value: 3.1 KB, under CUDA's 4 KB).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "core/splitmix64.h"
#include "loom/accel/cuda.h"
#include "noise/noise_kernels.h"

namespace loom::transforms {
namespace {

constexpr int kThreads = 256;
constexpr double kR = 3.442619855899;  // ziggurat.cc's start of the tail

__device__ inline double uniform_open(uint64_t& state) {  // (0, 1), as ziggurat.cc's uniform()
  return __dmul_rn(__dadd_rn(static_cast<double>(detail::splitmix64(state) >> 11), 0.5), 0x1.0p-53);
}

// ziggurat_fallback (ziggurat.cc) for element `index`'s rejected draw h.
__device__ float ziggurat_fallback_device(const NoiseJob& job, const Ziggurat& z, uint32_t index, int32_t h) {
  uint64_t state = job.key ^ (static_cast<uint64_t>(index) * 0xd1342543de82ef95ull + 0x2545f4914f6cdd1dull);
  int layer = static_cast<int>(static_cast<uint32_t>(h) & 127u);
  for (;;) {
    double x = __dmul_rn(static_cast<double>(h), z.w[layer]);
    if (layer == 0) {
      double y;
      do {
        x = __ddiv_rn(-log(uniform_open(state)), kR);
        y = -log(uniform_open(state));
      } while (__dadd_rn(y, y) < __dmul_rn(x, x));
      x = h > 0 ? __dadd_rn(kR, x) : __dsub_rn(-kR, x);
      return __double2float_rn(__dmul_rn(x, job.sigma));
    }
    const double u = uniform_open(state);
    const double lhs = __dadd_rn(z.f[layer], __dmul_rn(u, __dsub_rn(z.f[layer - 1], z.f[layer])));
    if (lhs < exp(__dmul_rn(__dmul_rn(-0.5, x), x))) return __double2float_rn(__dmul_rn(x, job.sigma));
    h = static_cast<int32_t>(static_cast<uint32_t>(detail::splitmix64(state) >> 32));
    layer = static_cast<int>(static_cast<uint32_t>(h) & 127u);
    if (llabs(static_cast<long long>(h)) < z.k[layer]) {
      return __double2float_rn(__dmul_rn(__dmul_rn(static_cast<double>(h), z.w[layer]), job.sigma));
    }
  }
}

template <typename T>
__global__ void noise_kernel(const T* __restrict__ src, T* __restrict__ dst, int64_t n, NoiseJob job, Ziggurat z) {
  __shared__ int32_t bound[128];
  __shared__ float width[128];
  for (int l = threadIdx.x; l < 128; l += blockDim.x) {
    bound[l] = z.k[l];
    width[l] = job.scaled_w[l];
  }
  __syncthreads();
  for (int64_t e = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; e < n;
       e += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const auto index = static_cast<uint32_t>(job.first + static_cast<uint64_t>(e));
    const uint32_t h = noise_hash(job.key, index);
    const auto hz = static_cast<int32_t>(h);
    const int layer = static_cast<int>(h & 127u);
    const float noise = llabs(static_cast<long long>(hz)) < bound[layer]
                            ? __fmul_rn(static_cast<float>(hz), width[layer])
                            : ziggurat_fallback_device(job, z, index, hz);
    if constexpr (std::is_same_v<T, uint8_t>) {
      const float v = fminf(fmaxf(__fadd_rn(job.mean, noise), -32768.0f), 32767.0f);
      const auto sum = static_cast<int16_t>(static_cast<uint16_t>(src[e] + static_cast<int32_t>(v)));  // int16 wrap
      dst[e] = job.clip ? static_cast<uint8_t>(min(max(static_cast<int32_t>(sum), 0), 255))
                        : static_cast<uint8_t>(sum & 255);
    } else {
      float out = __fadd_rn(src[e], __fadd_rn(job.mean, noise));
      if (job.clip) out = fminf(fmaxf(out, 0.0f), 1.0f);
      dst[e] = out;
    }
  }
}

template <typename T>
void launch(const T* src, T* dst, int64_t n, const NoiseJob& job, const Ziggurat& table, void* stream) {
  if (n == 0) return;
  const int64_t blocks = std::min<int64_t>((n + kThreads - 1) / kThreads, int64_t{1} << 20);
  noise_kernel<T>
      <<<static_cast<unsigned>(blocks), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(src, dst, n, job, table);
  accel::check_cuda(cudaGetLastError(), "gaussian_noise kernel");
}

}  // namespace

void gaussian_noise_u8_cuda(const uint8_t* src, uint8_t* dst, int64_t n, const NoiseJob& job, const Ziggurat& table,
                            void* stream) {
  launch(src, dst, n, job, table, stream);
}
void gaussian_noise_f32_cuda(const float* src, float* dst, int64_t n, const NoiseJob& job, const Ziggurat& table,
                             void* stream) {
  launch(src, dst, n, job, table, stream);
}

}  // namespace loom::transforms
