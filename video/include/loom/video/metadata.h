// Video stream metadata from the container and stream headers (FFmpeg probing; no decoding).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "loom/codec/api.h"
#include "loom/codec/limits.h"

LOOM_API_BEGIN

namespace loom::video {

struct VideoMetadata {
  std::string container;     // FFmpeg demuxer name, e.g. "mov,mp4,m4a,3gp,3g2,mj2"
  std::string codec;         // "h264", "hevc", "vp9", "av1", ...
  int stream_index = 0;      // the video stream described (the first that is not cover art)
  int width = 0, height = 0;
  std::string pixel_format;  // "yuv420p", "yuv420p10le", ...
  double average_fps = 0;    // 0 when unknown
  int64_t num_frames_from_header = 0;  // 0 when the header does not say (never trusted for indexing)
  double duration_seconds = -1;        // of the stream, else of the container; -1 when unknown
  int num_audio_streams = 0;
};

// Describes the first video stream of `path`. Throws loom::Error naming the file when it cannot be
// read, is not a media file, or holds no video stream (kInvalidInput).
VideoMetadata read_metadata(const std::filesystem::path& path, const Limits& limits = {});

}  // namespace loom::video

LOOM_API_END
