// Image resize with torchvision/Pillow semantics.
//
// Layout: the image is C x H x W (CHW) or H x W x C (HWC), uint8, uint16 or float32, 1 to 4 channels, any
// strides; the result is a new contiguous tensor in the same layout and dtype.
// Antialiased (default) downscaling widens the filter by the scale factor, as Pillow and torchvision
// (antialias=True) do; uint8 runs Pillow's separable two-pass fixed-point algorithm (22 fractional
// bits, rounding to uint8 after each pass), so results are within 1 of Pillow's Image.resize;
// uint16 and float32 accumulate in double (uint16 rounds and clamps after each pass).
// Thread safety: reentrant.
#pragma once

#include <cstdint>

#include "loom/codec/tensor.h"
#include "loom/vision/image.h"

namespace loom::transforms {

enum class Interpolation {
  kNearest,   // torchvision "nearest": source index floor(dst * scale)
  kBilinear,  // triangle filter, support 1
  kBicubic,   // Keys cubic, a = -0.5 (Pillow's), support 2
  kBox,       // box filter, support 0.5 ("area" when downscaling)
};

struct ResizeOptions {
  Interpolation interpolation = Interpolation::kBilinear;
  bool antialias = true;  // widen the filter when downscaling; ignored by kNearest
  vision::Layout layout = vision::Layout::kCHW;
};

struct Size {
  int64_t height = 0;
  int64_t width = 0;
};

// Throws loom::Error(kInvalidInput) for an empty target, an unsupported dtype or channel count, and
// Error(kUnsupported) for a tensor that is not on the CPU.
Tensor resize(const Tensor& image, Size size, const ResizeOptions& options = {});

// torchvision's Resize(size) with one number: the shorter side becomes `shorter`, the longer one
// keeps the aspect ratio (truncated to an integer, at least 1).
Size size_for_shorter_side(Size input, int64_t shorter);

}  // namespace loom::transforms
