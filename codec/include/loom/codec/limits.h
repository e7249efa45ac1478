// Resource limits applied by every decoder before it allocates.
#pragma once

#include <cstdint>
#include <string_view>

#include "loom/codec/api.h"

LOOM_API_BEGIN

namespace loom {

struct Limits {
  // Largest image (width * height, 64-bit arithmetic) a decoder accepts; checked from the header before
  // any pixel is allocated. The default is Pillow's decompression-bomb error threshold
  // (2 * 1024^3 / 4 / 3 = 178,956,970 pixels). 0 disables the check.
  uint64_t max_pixels = 178'956'970;
  // Largest input (file or buffer) a reader accepts, and largest decoded output in bytes. 0 disables.
  uint64_t max_bytes = uint64_t{4} << 30;
  // Progressive JPEG: more scans than this is an error (guards against scan floods; libjpeg-turbo's own
  // TurboJPEG limit is 500).
  int max_jpeg_scans = 500;
  // PNG: ancillary chunks kept in memory before the rest are dropped, and the largest decompressed
  // zTXt/iCCP chunk; a chunk declaring more than this and more than the rest of the file is never
  // allocated. 0 disables the byte limit.
  uint32_t max_png_chunks = 1000;
  uint64_t max_png_chunk_bytes = uint64_t{8} << 20;
  // Audio: streams with more channels or a higher sample rate are refused (0 of either is invalid).
  int max_audio_channels = 1024;
  int max_sample_rate = 6'000'000;
  // Video: most frames a stream may hold (the frame index is built, or trusted from the header, before
  // any frame is decoded). The default is 46 hours at 60 fps.
  int64_t max_video_frames = 10'000'000;
  // FFmpeg probing: bytes read to detect the format, seconds of media analysed to find stream
  // parameters, most streams accepted, and a wall-clock deadline on every blocking FFmpeg call.
  int64_t probe_bytes = 5'000'000;
  double analyze_seconds = 5.0;
  int max_streams = 64;
  double deadline_seconds = 30.0;
};

// Throws Error(kLimitExceeded) naming `input` when width * height exceeds limits.max_pixels or the
// decoded size (pixels * channels * bytes_per_sample) exceeds limits.max_bytes, and Error(kInvalidInput)
// when a dimension is zero or negative.
void check_image_size(const Limits& limits, std::string_view input, int64_t width, int64_t height, int64_t channels,
                      int64_t bytes_per_sample);

}  // namespace loom

LOOM_API_END
