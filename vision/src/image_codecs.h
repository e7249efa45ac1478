// Private entry points of the decoders (the public ones are in loom/vision/image.h).
#pragma once

#include "loom/vision/image.h"

namespace loom::vision {

// Throws Error(kLimitExceeded) when `src` is larger than limits.max_bytes. Every decoder calls it first.
void check_input_size(const ByteSource& src, const Limits& limits);

ImageInfo jpeg_info(const ByteSource& src, const Limits& limits);
ImageInfo png_info(const ByteSource& src, const Limits& limits);

}  // namespace loom::vision
