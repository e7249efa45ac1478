// The CUDA twin of the Gaussian noise kernels (noise_kernels.h): element i's draw from noise_hash(key,
// i) (noise_plan.h, the same code), accepted by the ziggurat bound of layer h & 127, otherwise finished
// by ziggurat_fallback (noise_plan.h, the same code as the CPU's; this file is compiled with
// --fmad=false, so every double operation rounds on its own). One thread per element; the
// bounds and scaled widths are staged in shared memory, the fallback reads the tables from the
// kernel's parameters (job and table are passed by value: 3.1 KB, under CUDA's 4 KB).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "loom/accel/cuda.h"
#include "noise/noise_kernels.h"

namespace loom::transforms {
namespace {

constexpr int kThreads = 256;
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
                            : ziggurat_fallback(job, z, index, hz);
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
