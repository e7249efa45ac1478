// Video stream metadata from the container and stream headers (FFmpeg probing; no decoding).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "loom/codec/api.h"
#include "loom/codec/limits.h"
#include "loom/codec/media_probe.h"

LOOM_API_BEGIN

namespace loom::video {

// What the headers say about a file's video stream. VideoDecoder::metadata() (StreamMetadata) adds
// what the decoder found.
struct VideoMetadata {
  std::string container;  // FFmpeg demuxer name, e.g. "mov,mp4,m4a,3gp,3g2,mj2"
  // The video stream described (FFmpeg's best video stream, see ContainerInfo::best, or the one a
  // decoder was asked for).
  // stream.duration_seconds is the stream's, else the container's; -1 when neither says.
  // stream.num_frames is the header's count: never trusted for indexing.
  StreamInfo stream;
  std::vector<StreamInfo> audio_streams;  // every audio stream of the file
};

// Describes FFmpeg's best video stream of `path` (the one a VideoDecoder decodes by default). Throws loom::Error naming
// the file when it cannot be read, is not a media file, or holds no video stream (kInvalidInput).
VideoMetadata read_metadata(const std::filesystem::path& path, const Limits& limits = {});

}  // namespace loom::video

LOOM_API_END
