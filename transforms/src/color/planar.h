// Layout plumbing of the color ops (private to loom::transforms): they compute on planar C x H x W
// values and hand results back in the caller's layout.
#pragma once

#include "loom/codec/layout.h"
#include "loom/codec/tensor.h"

namespace loom::transforms {

// The image as a contiguous C x H x W tensor (the input itself when it already is one).
inline Tensor to_planar(const Tensor& image, Layout layout) {
  return layout == Layout::kCHW ? image.contiguous() : image.permute({2, 0, 1}).contiguous();
}

// A contiguous C x H x W tensor in `layout` (the tensor itself for kCHW, an H x W x C copy for kHWC).
inline Tensor from_planar(const Tensor& planar, Layout layout) {
  return layout == Layout::kCHW ? planar : planar.permute({1, 2, 0}).contiguous();
}

}  // namespace loom::transforms
