// What the geometry pixel kernels consume (private to loom::transforms): plain structs and raw
// pointers, no Tensor, shared by the ops (geometry_image.cc), the kernels (geometry_kernels.h: remap.cc,
// warp.cc) and a CUDA twin.
#pragma once

#include <cstddef>
#include <cstdint>

#include "loom/codec/size.h"

namespace loom::transforms::detail {

// One plane of pixels of `pixel_bytes` bytes each, remapped by index: out(y, x) = in(rows[y], cols[x]),
// or `fill` where rows[y] or cols[x] is -1. Covers crop (with zero padding), pad in every mode and the
// flips. Source rows are `src_width` pixels long; the output is out_height x out_width, contiguous.
struct RemapPlan {
  int64_t src_width = 0;
  const int64_t* rows = nullptr;  // out_height source rows
  int64_t out_height = 0;
  const int64_t* cols = nullptr;  // out_width source columns
  int64_t out_width = 0;
  size_t pixel_bytes = 0;
  const uint8_t* fill = nullptr;  // pixel_bytes bytes
};

// The CUDA twin of RemapPlan (geometry.cu): a whole 3-D image of any element strides at once.
// out[p][y][x][k] (contiguous: planes x out_height x out_width x pixel_elements elements of
// elem_bytes bytes, elem_bytes 1, 2, 4 or 8) = the source element at p * stride_plane + rows[y] *
// stride_row + cols[x] * stride_col + k * stride_elem (strides in elements, any sign), or fill[p *
// pixel_elements + k] where rows[y] or cols[x] is -1. CHW: planes = channels, pixel_elements = 1;
// HWC: planes = 1, pixel_elements = channels. rows or cols null: the identity (out_height or
// out_width source rows or columns). rows, cols and fill are device addresses; fill may be null
// when no index is -1.
struct GatherPlan {
  int64_t planes = 0, out_height = 0, out_width = 0, pixel_elements = 1;
  int64_t stride_plane = 0, stride_row = 0, stride_col = 0, stride_elem = 0;
  const int64_t* rows = nullptr;
  const int64_t* cols = nullptr;
  size_t elem_bytes = 1;
  const uint8_t* fill = nullptr;
};

// Where element (y, x, channel k) of an image is: (y * width + x) * pixel + k * channel (HWC: pixel =
// channels, channel = 1; CHW: pixel = 1, channel = height * width).
struct PixelStrides {
  int64_t pixel = 1;
  int64_t channel = 0;
};

// How a warp maps an output pixel centre to an input position.
enum class WarpMap {
  // coeffs[0..5] = m: the output pixel centre (x, y), measured from the OUTPUT centre, samples the input
  // at m * (x, y, 1) measured from the INPUT centre (torchvision's _affine_grid).
  kAffine,
  // coeffs[0..7] = a..h: the output pixel centre (x, y) (from the top-left corner) samples the input at
  // ((a x + b y + c) / (g x + h y + 1), (d x + e y + f) / (g x + h y + 1)).
  kPerspective,
};

// One inverse-mapped warp of every channel, with torch grid_sample's sampling (align_corners=False,
// zeros padding) and torchvision's fill (see warp.cc).
struct WarpPlan {
  Size in, out;
  int64_t channels = 0;
  PixelStrides in_strides, out_strides;
  WarpMap map = WarpMap::kAffine;
  double coeffs[8] = {};
  bool bilinear = false;         // else nearest
  const double* fill = nullptr;  // `channels` values; null: torchvision's fill=None (outside reads 0)
};

}  // namespace loom::transforms::detail
