// Audio file information from the container and stream headers (FFmpeg probing; no decoding).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "loom/codec/api.h"
#include "loom/codec/limits.h"

LOOM_API_BEGIN

namespace loom::audio {

struct AudioInfo {
  std::string format;    // container as sniffed: "wav", "flac", "mp3", "ogg", "mp4", "matroska", ...;
                         // FFmpeg's demuxer name when the magic bytes are not known to loom
  std::string codec;     // FFmpeg codec name: "pcm_s16le", "flac", "mp3", "vorbis", "opus", "aac", ...
  std::string encoding;  // torchaudio's words: "PCM_S", "PCM_U", "PCM_F", "ULAW", "ALAW", "FLAC", "MP3",
                         // "VORBIS", "OPUS", "AAC", "ADPCM", or the codec name in capitals
  int stream_index = 0;  // the audio stream described
  int sample_rate = 0;   // Hz
  int channels = 0;
  int64_t num_frames = 0;        // samples per channel from the header, or duration x sample_rate when the
                                 // header gives only a duration; 0 when neither is known
  double duration_seconds = -1;  // -1 when unknown
  int bits_per_sample = 0;       // 0 for compressed codecs without a fixed sample width
};

// Describes audio stream `stream_index` of `path`, or with -1 FFmpeg's best audio stream (what
// load() reads by default; see ContainerInfo::best). Throws loom::Error naming the file when it cannot
// be read, is not a media file, holds no audio stream (or `stream_index` is not one) or one with 0
// channels or a 0 Hz rate (kInvalidInput), or exceeds Limits::max_audio_channels / max_sample_rate
// (kLimitExceeded).
AudioInfo info(const std::filesystem::path& path, const Limits& limits = {}, int stream_index = -1);

}  // namespace loom::audio

LOOM_API_END
