// NV12 / P010 to RGB24: the scalar reference and the CUDA entry point, both over an Nv12Plan
// (nv12_plan.h). Private to loom::video.
#pragma once

#include "nv12_plan.h"

namespace loom::video::detail {

// The reference: every pixel of `plan`, on the host (host pointers).
inline void nv12_to_rgb_reference(const Nv12Plan& plan) {
  for (int y = 0; y < plan.height; ++y) {
    for (int x = 0; x < plan.width; ++x) nv12_to_rgb_pixel(plan, x, y);
  }
}

#if defined(LOOM_WITH_CUDA)
// The same conversion as a CUDA kernel queued on `stream` (a cudaStream_t; nullptr: the default
// stream) of the current device; `plan` holds device pointers. Returns the launch's cudaError_t
// (0 on success), for accel::check_cuda.
int nv12_to_rgb_cuda(const Nv12Plan& plan, void* stream);
#endif

}  // namespace loom::video::detail
