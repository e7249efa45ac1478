// Private: the common tail of the decoders whose libraries hand over a whole image at once (WebP,
// GIF, TIFF, AVIF, HEIF, BMP): loom's read mode, crop, layout and orientation applied to it, so that
// every format follows the same rules as JPEG and PNG (which share mode_channels and clip_crop).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "loom/codec/tensor.h"
#include "loom/vision/image.h"

namespace loom::vision {

// A decoded image as its format library gives it. Layout: `height` rows of `width * channels`
// interleaved samples, no padding; channels 1 gray, 2 gray + alpha, 3 RGB, 4 RGBA. Samples are uint8,
// or uint16 (native byte order, full 0..65535 scale) when `wide`.
struct WholeImage {
  int width = 0, height = 0, channels = 0;
  // The channels ImageReadMode::kUnchanged gives when not `channels`: 1 or 2 for a gray image stored
  // as RGB or RGBA with equal color samples (as some libraries return gray).
  int unchanged = 0;
  bool wide = false;
  std::vector<uint8_t> samples;

  // Sizes `samples` for the shape; the caller checked the size against loom's limits.
  void allocate(int w, int h, int c, bool is_wide);
  uint8_t* row(int y) { return samples.data() + static_cast<size_t>(y) * row_bytes(); }
  const uint8_t* row(int y) const { return samples.data() + static_cast<size_t>(y) * row_bytes(); }
  size_t row_bytes() const { return static_cast<size_t>(width) * channels * (wide ? 2 : 1); }
};

// The channel count `mode` asks for, given the file's own (`unchanged`).
int mode_channels(ImageReadMode mode, int unchanged);

// `crop` clipped to a width x height image; throws Error(kInvalidInput) naming `input` when nothing is left.
Rect clip_crop(const Rect& crop, int width, int height, std::string_view input);

// The tensor decode_image returns for `image`: options.crop taken, channels converted to
// options.mode (gray from color with Pillow's convert("L") weights, 0.299 R + 0.587 G + 0.114 B in
// 16-bit fixed point; gray to color repeated; alpha dropped, or added opaque), uint16 reduced to its
// high byte when options.to_uint8 (as Pillow), laid out as options.layout, and turned upright for
// EXIF `orientation` when options.apply_exif_orientation.
Tensor finish_image(const WholeImage& image, const DecodeOptions& options, int orientation, std::string_view input);

// Frames of one size (an animation) as one N x (image shape) tensor, each finished as above.
Tensor finish_frames(const std::vector<WholeImage>& frames, const DecodeOptions& options, int orientation,
                     std::string_view input);

// `image` (contiguous) as a one-frame stack: 1 x (its shape), sharing its storage.
Tensor one_frame(const Tensor& image);

}  // namespace loom::vision
