// Private entry points of the decoders (the public ones are in loom/vision/image.h).
#pragma once

#include "loom/vision/image.h"

namespace loom::vision {

// Throws Error(kLimitExceeded) when `src` is larger than limits.max_bytes. Every decoder calls it first.
void check_input_size(const ByteSource& src, const Limits& limits);

// JPEG and PNG decode into `into` when it is given, contiguous and the output is not turned for
// orientation (see decode_image_into); otherwise into a new tensor. They return the tensor written.
Tensor decode_jpeg_to(const ByteSource& src, const DecodeOptions& options, const Tensor* into);
Tensor decode_png_to(const ByteSource& src, const DecodeOptions& options, const Tensor* into);

ImageInfo jpeg_info(const ByteSource& src, const Limits& limits);
ImageInfo png_info(const ByteSource& src, const Limits& limits);
ImageInfo webp_info(const ByteSource& src, const Limits& limits);
ImageInfo gif_info(const ByteSource& src, const Limits& limits);
ImageInfo tiff_info(const ByteSource& src, const Limits& limits);
ImageInfo avif_info(const ByteSource& src, const Limits& limits);
ImageInfo heif_info(const ByteSource& src, const Limits& limits);
ImageInfo bmp_info(const ByteSource& src, const Limits& limits);

// Animations: the first frame as C x H x W (or H x W x C), or with `all_frames` every frame as
// N x (that shape).
Tensor decode_webp(const ByteSource& src, const DecodeOptions& options, bool all_frames);
Tensor decode_gif(const ByteSource& src, const DecodeOptions& options, bool all_frames);
// Still images: the first (or only) picture.
Tensor decode_tiff(const ByteSource& src, const DecodeOptions& options);
Tensor decode_avif(const ByteSource& src, const DecodeOptions& options);
Tensor decode_heif(const ByteSource& src, const DecodeOptions& options);
Tensor decode_bmp(const ByteSource& src, const DecodeOptions& options);

}  // namespace loom::vision
