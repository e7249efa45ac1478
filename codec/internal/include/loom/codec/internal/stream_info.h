// The one place where an FFmpeg input's headers become a loom::ContainerInfo and its StreamInfos
// (internal: probe_container and the VideoDecoder use it).
#pragma once

extern "C" {
#include <libavformat/avformat.h>
}

#include "loom/codec/media_probe.h"

namespace loom::ffmpeg {

// What the codec parameters and headers of `stream` say; nothing is decoded.
StreamInfo describe_stream(const AVStream& stream);

// The demuxer, duration, bit rate and every stream (describe_stream) of an opened input.
ContainerInfo describe_container(const AVFormatContext& fmt);

}  // namespace loom::ffmpeg
