// The geometry pixel kernels (private to loom::transforms), fed the plans of geometry_plan.h: the
// run-based remap (remap.cc) and the inverse-mapped warps (warp.cc), scalar C++ on raw pointers.
// geometry_image.cc turns tensors into plans and runs them.
#pragma once

#include <cstdint>

#include "geometry/geometry_plan.h"

namespace loom::transforms::detail {

// One plane: `src` holds the source plane, `dst` receives out_height x out_width pixels.
void remap_plane(const uint8_t* src, uint8_t* dst, const RemapPlan& plan);

// Every channel of one image: `src` and `dst` laid out as plan.in_strides / plan.out_strides say.
void warp_u8(const uint8_t* src, uint8_t* dst, const WarpPlan& plan);
void warp_f32(const float* src, float* dst, const WarpPlan& plan);

}  // namespace loom::transforms::detail
