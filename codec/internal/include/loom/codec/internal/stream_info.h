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

// The demuxer, duration, bit rate, every stream (describe_stream) and the best video and audio
// streams (best_stream) of an opened input.
ContainerInfo describe_container(const AVFormatContext& fmt);

// The stream of `type` (video or audio) loom picks when none is asked for: FFmpeg's best stream
// (av_find_best_stream, as TorchCodec picks it: the default disposition first, then the stream with
// decoded frames, then the higher bit rate, then the lower index), passing over attached pictures
// (cover art) for video; when FFmpeg picks none (an audio stream without channels or rate), the first
// stream of the type. -1 when the input has none.
int best_stream(const AVFormatContext& fmt, AVMediaType type);

}  // namespace loom::ffmpeg
