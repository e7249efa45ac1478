// The image checks shared by the color, blur and noise ops (private to loom::transforms).
#pragma once

#include <cstdint>

#include "loom/codec/layout.h"
#include "loom/codec/tensor.h"

namespace loom::transforms {

// Checks a 3-D CPU image (Error(kInvalidInput) / Error(kUnsupported) named after `op`) and returns its
// channel count for `layout`.
int64_t checked_channels(const Tensor& image, Layout layout, const char* op);
// Throws Error(kUnsupported) naming `op` unless the image is uint8 or float32.
void check_u8_or_f32(const Tensor& image, const char* op);

}  // namespace loom::transforms
