// VideoMetadata from a container's stream descriptions, shared by read_metadata and the VideoDecoder
// (private to loom::video).
#pragma once

#include "loom/codec/media_probe.h"
#include "loom/video/metadata.h"

namespace loom::video::detail {

// `video` (one of container.streams) with its duration falling back to the container's, and every
// audio stream of `container`.
inline VideoMetadata video_metadata(const ContainerInfo& container, const StreamInfo& video) {
  VideoMetadata m;
  m.container = container.demuxer;
  m.stream = video;
  if (!(m.stream.duration_seconds > 0))
    m.stream.duration_seconds = container.duration_seconds > 0 ? container.duration_seconds : -1;
  for (const StreamInfo& s : container.streams) {
    if (s.type == "audio") m.audio_streams.push_back(s);
  }
  return m;
}

}  // namespace loom::video::detail
