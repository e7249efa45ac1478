// The image side of the geometric transforms, on tensors (private to loom::transforms): the index maps
// of crop, pad and the flips, and the remap and the warps, which build a plan (geometry_plan.h) and
// run a kernel (geometry_kernels.h).
//
// Images are 3-D CPU tensors in `layout`; results are new contiguous tensors in the same layout and
// dtype. Fill values are converted to the image dtype (clamped to its range, then truncated toward
// zero for integer types, as torch's tensor(fill).to(dtype)).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "geometry/geometry_annotations.h"
#include "loom/codec/tensor.h"
#include "loom/transforms/geometry.h"

namespace loom::transforms::detail {

// Error(kInvalidInput) unless `fill` is empty (zero), one value or one value per channel.
void check_fill(const Fill& fill, int64_t channels);

// out(y, x) = in(rows[y], cols[x]), or the fill where rows[y] or cols[x] is -1. Covers crop (with
// implicit zero padding), pad in every mode and the flips. A CUDA image (any strides; the caller has
// checked its device) gives a CUDA result, made on the current stream of its device.
Tensor remap_axes(const Tensor& image, Layout layout, const std::vector<int64_t>& rows,
                  const std::vector<int64_t>& cols, const Fill& fill);

// Source indices for `before` + n + `after` output positions over an axis of n pixels: -1 (fill) for
// kConstant padding, or the edge/reflect/symmetric index. Error(kInvalidInput) when reflect padding
// is not smaller than n.
std::vector<int64_t> padded_axis(int64_t n, int64_t before, int64_t after, PadMode mode);

// 0, 1, ..., n - 1 and n - 1, ..., 1, 0: the index maps of an axis kept as is and of a flipped one.
std::vector<int64_t> identity_axis(int64_t n);
std::vector<int64_t> reversed_axis(int64_t n);

// Rotation by k * 90 degrees counter-clockwise (torch.rot90 over H and W), exact.
Tensor rotate90(const Tensor& image, Layout layout, int k);

// Inverse-mapped warps with torch grid_sample's sampling (align_corners=False, zeros padding) and
// torchvision's fill, uint8 and float32 (Error(kUnsupported, op) otherwise; `op` names the caller).
// Affine: the output pixel centre (x, y), measured from the OUTPUT centre, samples the input at
// inverse * (x, y, 1) measured from the INPUT centre (torchvision's _affine_grid).
Tensor warp_affine(const Tensor& image, Layout layout, const AffineMatrix& inverse, Size out,
                   const WarpOptions& options, const char* op);
// Perspective: the output pixel centre (x, y) (from the top-left corner) samples the input at
// ((a x + b y + c) / (g x + h y + 1), (d x + e y + f) / (g x + h y + 1)); the output keeps the size.
Tensor warp_perspective(const Tensor& image, Layout layout, const std::array<double, 8>& coeffs,
                        const WarpOptions& options, const char* op);

}  // namespace loom::transforms::detail
