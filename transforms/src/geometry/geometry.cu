// The CUDA twin of the remap kernel (geometry_kernels.h): crop (with zero padding), pad in every
// mode, the flips and the contiguous copy of a strided image, as one gather over a GatherPlan.
// One thread per output element, in output order, so that the writes coalesce.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "geometry/geometry_kernels.h"
#include "loom/accel/cuda.h"

namespace loom::transforms::detail {
namespace {

constexpr int kThreads = 256;

template <typename E>
__global__ void gather_kernel(const E* __restrict__ src, E* __restrict__ dst, GatherPlan plan, int64_t total) {
  const E* fill = reinterpret_cast<const E*>(plan.fill);
  for (int64_t e = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; e < total;
       e += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t r = e;
    const int64_t k = r % plan.pixel_elements;
    r /= plan.pixel_elements;
    const int64_t x = r % plan.out_width;
    r /= plan.out_width;
    const int64_t y = r % plan.out_height;
    const int64_t p = r / plan.out_height;
    const int64_t sy = plan.rows ? plan.rows[y] : y;
    const int64_t sx = plan.cols ? plan.cols[x] : x;
    if (sy < 0 || sx < 0) {
      dst[e] = fill[p * plan.pixel_elements + k];
    } else {
      dst[e] = src[p * plan.stride_plane + sy * plan.stride_row + sx * plan.stride_col + k * plan.stride_elem];
    }
  }
}

template <typename E>
void launch(const void* src, void* dst, const GatherPlan& plan, int64_t total, cudaStream_t stream) {
  const int64_t blocks = std::min<int64_t>((total + kThreads - 1) / kThreads, int64_t{1} << 20);
  gather_kernel<E><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(static_cast<const E*>(src),
                                                                           static_cast<E*>(dst), plan, total);
}

}  // namespace

void gather_cuda(const void* src, void* dst, const GatherPlan& plan, void* stream) {
  const int64_t total = plan.planes * plan.out_height * plan.out_width * plan.pixel_elements;
  if (total == 0) return;
  const auto s = static_cast<cudaStream_t>(stream);
  switch (plan.elem_bytes) {
    case 1: launch<uint8_t>(src, dst, plan, total, s); break;
    case 2: launch<uint16_t>(src, dst, plan, total, s); break;
    case 4: launch<uint32_t>(src, dst, plan, total, s); break;
    default: launch<uint64_t>(src, dst, plan, total, s); break;
  }
  accel::check_cuda(cudaGetLastError(), "gather kernel");
}

}  // namespace loom::transforms::detail
