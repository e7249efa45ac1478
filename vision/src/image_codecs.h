// Private entry points of the decoders (the public ones are in loom/vision/image.h).
#pragma once

#include "loom/vision/image.h"

namespace loom::vision {

ImageInfo jpeg_info(const ByteSource& src, const Limits& limits);
ImageInfo png_info(const ByteSource& src, const Limits& limits);

}  // namespace loom::vision
