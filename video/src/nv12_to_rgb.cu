// The CUDA twin of nv12_to_rgb_reference (nv12_kernels.h): one thread per output pixel, each running
// the shared nv12_to_rgb_pixel, so that device and host agree bit for bit.
#include <cuda_runtime.h>

#include "nv12_kernels.h"

namespace loom::video::detail {
namespace {

__global__ void nv12_to_rgb_kernel(Nv12Plan plan) {
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (x < plan.width && y < plan.height) nv12_to_rgb_pixel(plan, x, y);
}

}  // namespace

int nv12_to_rgb_cuda(const Nv12Plan& plan, void* stream) {
  if (plan.width <= 0 || plan.height <= 0) return cudaSuccess;
  const dim3 block(32, 8);
  const dim3 grid((static_cast<unsigned>(plan.width) + block.x - 1) / block.x,
                  (static_cast<unsigned>(plan.height) + block.y - 1) / block.y);
  nv12_to_rgb_kernel<<<grid, block, 0, static_cast<cudaStream_t>(stream)>>>(plan);
  return static_cast<int>(cudaGetLastError());
}

}  // namespace loom::video::detail
