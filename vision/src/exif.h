// EXIF orientation: read from a TIFF-structured EXIF block, apply to a decoded image
// (private to loom::vision).
#pragma once

#include <cstdint>
#include <span>

#include "loom/codec/tensor.h"
#include "loom/vision/image.h"

namespace loom::vision {

// The Orientation tag (0x0112) of IFD0 in `tiff` (starting with "II*\0" or "MM\0*"); a leading
// "Exif\0\0" is skipped. Returns 1 when the block is absent, malformed or out of range: broken EXIF
// never fails a decode.
int exif_orientation(std::span<const uint8_t> tiff);

// Rotates/flips `image` (in `layout`) so that an image stored with EXIF `orientation` is upright.
// Orientation 1 returns `image` itself; the others return a new contiguous tensor.
Tensor apply_orientation(const Tensor& image, Layout layout, int orientation);

}  // namespace loom::vision
