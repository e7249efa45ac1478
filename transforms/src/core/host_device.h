// LOOM_HOST_DEVICE marks the inline functions of a plan header (noise_plan.h's hash, splitmix64.h)
// that the CUDA twins run on the device as well: the same code on both sides, so the same bits. It is
// empty for the host compiler. Private to loom::transforms.
#pragma once

#if defined(__CUDACC__)
#define LOOM_HOST_DEVICE __host__ __device__
#else
#define LOOM_HOST_DEVICE
#endif
