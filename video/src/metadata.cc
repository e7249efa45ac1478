#include "loom/video/metadata.h"

#include "loom/codec/error.h"
#include "loom/codec/media_probe.h"

namespace loom::video {

VideoMetadata read_metadata(const std::filesystem::path& path, const Limits& limits) {
  const ContainerInfo container = probe_container(path, limits);
  const StreamInfo* s = container.first("video");
  if (s == nullptr) throw Error(ErrorCode::kInvalidInput, path.string(), "holds no video stream");
  VideoMetadata m;
  m.container = container.demuxer;
  m.codec = s->codec;
  m.stream_index = s->index;
  m.width = s->width;
  m.height = s->height;
  m.pixel_format = s->pixel_format;
  m.average_fps = s->average_fps;
  m.num_frames_from_header = s->num_frames;
  m.duration_seconds = s->duration_seconds >= 0 ? s->duration_seconds : container.duration_seconds;
  for (const StreamInfo& st : container.streams) m.num_audio_streams += st.type == "audio";
  return m;
}

}  // namespace loom::video
