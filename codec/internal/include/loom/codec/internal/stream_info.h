// The one place where an FFmpeg stream's headers become a loom::StreamInfo (internal: probe_container
// and the VideoDecoder use it).
#pragma once

extern "C" {
#include <libavformat/avformat.h>
}

#include "loom/codec/media_probe.h"

namespace loom::ffmpeg {

// What the codec parameters and headers of `stream` say; nothing is decoded.
StreamInfo describe_stream(const AVStream& stream);

}  // namespace loom::ffmpeg
