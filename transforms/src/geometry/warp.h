// Inverse-mapped image warps (rotate, affine, perspective) with torch grid_sample's sampling
// (align_corners=False, zeros padding) and torchvision's fill. Private to transforms.
#pragma once

#include <array>

#include "loom/codec/tensor.h"
#include "loom/transforms/geometry.h"
#include "geometry/geometry_annotations.h"

namespace loom::transforms::detail {

// Affine: the output pixel centre (x, y), measured from the OUTPUT centre, samples the input at
// inverse * (x, y, 1) measured from the INPUT centre (torchvision's _affine_grid).
// `op` names the calling op in errors.
Tensor warp_affine(const Tensor& image, Layout layout, const AffineMatrix& inverse, Size out,
                   const WarpOptions& options, const char* op);

// Perspective: the output pixel centre (x, y) (from the top-left corner) samples the input at
// ((a x + b y + c) / (g x + h y + 1), (d x + e y + f) / (g x + h y + 1)).
Tensor warp_perspective(const Tensor& image, Layout layout, const std::array<double, 8>& coeffs,
                        const WarpOptions& options, const char* op);

}  // namespace loom::transforms::detail
