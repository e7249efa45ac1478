// StreamMetadata from the container and stream headers (nothing decoded). Private to loom::video.
#pragma once

extern "C" {
#include <libavformat/avformat.h>
}

#include "loom/video/decoder.h"

namespace loom::video::detail {

// What the headers of `fmt` say about its video stream `stream` (one of fmt.streams): the VideoMetadata
// part of StreamMetadata. The frame-index fields (num_frames_from_content, begin/end_stream_seconds,
// key_frame_indices) are left for the seek rules.
StreamMetadata describe_stream(const AVFormatContext& fmt, const AVStream& stream);

}  // namespace loom::video::detail
