#include "loom/audio/info.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "audio_decoder.h"
#include "loom/codec/error.h"
#include "loom/codec/media_probe.h"
#include "loom/codec/sniff.h"

namespace loom::audio {
namespace {

std::string encoding_of(const std::string& codec) {
  auto starts = [&](const char* prefix) { return codec.rfind(prefix, 0) == 0; };
  if (starts("pcm_s")) return "PCM_S";
  if (starts("pcm_u")) return "PCM_U";
  if (starts("pcm_f")) return "PCM_F";
  if (codec == "pcm_mulaw") return "ULAW";
  if (codec == "pcm_alaw") return "ALAW";
  if (starts("adpcm")) return "ADPCM";
  std::string upper = codec;
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
  return upper;
}

}  // namespace

AudioInfo info(const std::filesystem::path& path, const Limits& limits, int stream_index) {
  const ContainerInfo container = probe_container(path, limits);
  const StreamInfo* s = container.best("audio");
  if (stream_index >= 0) {
    s = stream_index < static_cast<int>(container.streams.size()) ? &container.streams[stream_index] : nullptr;
    if (s == nullptr || s->type != "audio") {
      throw Error(ErrorCode::kInvalidInput, path.string(),
                  fmt::format("stream {} is not an audio stream", stream_index));
    }
  }
  if (s == nullptr) throw Error(ErrorCode::kInvalidInput, path.string(), "holds no audio stream");
  detail::check_stream(path.string(), s->channels, s->sample_rate, limits);
  AudioInfo a;
  a.format = format_name(sniff_file(path));
  if (a.format == "unknown") a.format = container.demuxer;
  a.codec = s->codec;
  a.encoding = encoding_of(s->codec);
  a.stream_index = s->index;
  a.sample_rate = s->sample_rate;
  a.channels = s->channels;
  a.num_frames = s->num_samples;
  a.duration_seconds = s->duration_seconds >= 0 ? s->duration_seconds : container.duration_seconds;
  if (a.num_frames == 0 && a.duration_seconds > 0) {
    a.num_frames = static_cast<int64_t>(a.duration_seconds * a.sample_rate + 0.5);
  }
  a.bits_per_sample = s->bits_per_sample;
  return a;
}

}  // namespace loom::audio
