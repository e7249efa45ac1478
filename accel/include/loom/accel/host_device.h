// LOOM_HOST_DEVICE marks the inline functions of kernels' plan headers (transforms' noise hash and
// splitmix64, video's NV12 pixel conversion) that the CUDA twins run on the device as well: the same
// code on both sides, so the same bits. It is __host__ __device__ under nvcc and empty for the host
// compiler. For loom's own kernels; no public function uses it.
#pragma once

#if defined(__CUDACC__)
#define LOOM_HOST_DEVICE __host__ __device__
#else
#define LOOM_HOST_DEVICE
#endif
