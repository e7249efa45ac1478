// The CUDA twin of normalize (color_kernels.h): uint8 or float32 in, float32 out, interleaved (HWC)
// or planar (CHW) on either side, in one pass fed the same NormalizeJob as the scalar reference. One
// thread per output element, in output order (coalesced writes; an interleaved source is read three
// or four neighbouring bytes per pixel by neighbouring threads).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "color/color_kernels.h"
#include "loom/accel/cuda.h"

namespace loom::transforms {
namespace {

constexpr int kThreads = 256;

template <typename T>
__global__ void normalize_kernel(const T* __restrict__ src, float* __restrict__ dst, NormalizeJob job, int64_t total) {
  const int64_t channels = job.channels, pixels = job.pixels;
  for (int64_t di = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; di < total;
       di += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t q = job.dst_interleaved ? di / channels : di % pixels;
    const int64_t c = job.dst_interleaved ? di - q * channels : di / pixels;
    const int64_t si = job.src_interleaved ? q * channels + c : c * pixels + q;
    float x = static_cast<float>(src[si]);
    if constexpr (std::is_same_v<T, uint8_t>) x = __fmul_rn(x, kInv255);
    dst[di] = __fdiv_rn(__fsub_rn(x, job.mean[c]), job.std[c]);
  }
}

template <typename T>
void launch(const T* src, float* dst, const NormalizeJob& job, void* stream) {
  const int64_t total = job.pixels * job.channels;
  if (total == 0) return;
  const int64_t blocks = std::min<int64_t>((total + kThreads - 1) / kThreads, int64_t{1} << 20);
  normalize_kernel<T>
      <<<static_cast<unsigned>(blocks), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(src, dst, job, total);
  accel::check_cuda(cudaGetLastError(), "normalize kernel");
}

}  // namespace

void normalize_u8_cuda(const uint8_t* src, float* dst, const NormalizeJob& job, void* stream) {
  launch(src, dst, job, stream);
}
void normalize_f32_cuda(const float* src, float* dst, const NormalizeJob& job, void* stream) {
  launch(src, dst, job, stream);
}

}  // namespace loom::transforms
