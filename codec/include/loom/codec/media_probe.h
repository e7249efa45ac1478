// Container probing through FFmpeg (libavformat): what streams a media file holds.
//
// Only local files are opened: FFmpeg's protocol whitelist is "file" and its format whitelist names the
// local media demuxers (no playlists, concat lists, image sequences or network protocols). Every
// blocking call runs under Limits::deadline_seconds.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "loom/codec/api.h"
#include "loom/codec/limits.h"

LOOM_API_BEGIN

namespace loom {

// One stream as the container and stream headers describe it (nothing decoded): the one stream
// description of loom, embedded wherever a stream is described (video::VideoMetadata, the
// VideoDecoder's StreamMetadata, their audio_streams).
struct StreamInfo {
  int index = 0;
  std::string type;              // "video", "audio", "subtitle", "data", "attachment" or "unknown"
  std::string codec;             // FFmpeg codec name: "h264", "aac", "mp3", "pcm_s16le", ...
  double duration_seconds = -1;  // from the stream header; -1 when unknown
  int64_t bit_rate = 0;          // bits per second; 0 when unknown
  // video
  int width = 0, height = 0;
  std::string pixel_format;  // "yuv420p", ...; empty when unknown
  // FFmpeg's names, as ffprobe prints them ("bt709", "bt470bg", "bt2020nc"; "tv" limited, "pc" full);
  // "unknown" when the stream does not say.
  std::string color_space, color_range, color_primaries;
  // From the display matrix, in degrees counter-clockwise as ffprobe reports it (-90, 90, 180, ...); 0
  // when there is none. Nothing in loom applies it.
  double rotation = 0;
  double average_fps = 0;         // 0 when unknown
  int64_t num_frames = 0;         // frame count from the header; 0 when the header does not say
  bool attached_picture = false;  // cover art, not a video track
  // audio
  int sample_rate = 0;
  int channels = 0;
  std::string sample_format;  // "s16", "fltp", ...
  int bits_per_sample = 0;    // of the coded samples where the codec has a fixed width; 0 otherwise
  int64_t num_samples = 0;    // samples per channel from the header; 0 when unknown
};

struct ContainerInfo {
  std::string demuxer;           // FFmpeg demuxer name, e.g. "mov,mp4,m4a,3gp,3g2,mj2"
  double duration_seconds = -1;  // -1 when unknown
  int64_t bit_rate = 0;
  std::vector<StreamInfo> streams;
  // The streams loom decodes when none is asked for: FFmpeg's best video and audio streams
  // (av_find_best_stream, as TorchCodec picks them; never cover art for video); -1 when none.
  int best_video = -1, best_audio = -1;

  // The best stream of `type` ("video" or "audio"), as above; nullptr when there is none.
  const StreamInfo* best(const std::string& type) const;
};

// Opens `path` with libavformat and reads stream parameters. Throws Error(kIo) when the file cannot be
// opened, Error(kInvalidInput) when FFmpeg finds no known format or no streams, Error(kUnsupported) for
// formats outside the whitelist, and Error(kLimitExceeded) past the deadline or stream limit.
ContainerInfo probe_container(const std::filesystem::path& path, const Limits& limits = {});

}  // namespace loom

LOOM_API_END
