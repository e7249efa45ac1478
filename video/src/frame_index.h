// The exact frame index of one video stream: a packet scan (or a caller's index) sorted into
// presentation order. Private to loom::video.
#pragma once

extern "C" {
#include <libavformat/avformat.h>
}

#include <cstdint>
#include <string>
#include <vector>

#include "loom/codec/internal/ffmpeg_handles.h"
#include "loom/video/decoder.h"

namespace loom::video::detail {

// One frame in presentation order; pts and duration in the stream's time base, duration > 0.
struct IndexedFrame {
  int64_t pts = 0;
  int64_t duration = 0;
  bool key_frame = false;
};

// Whether `packet` of codec `id` makes the decoder output a frame: false for VP8/VP9 frames coded
// with show_frame = 0 (alt-ref frames stored in packets of their own, as in WebM), true otherwise.
bool packet_shows_frame(AVCodecID id, const uint8_t* data, int size);

// Reads every packet of `stream` from the current position to the end (the caller seeks afterwards)
// and returns the frames they show, sorted by pts. Packets marked discard (edit lists) and packets
// without any timestamp are left out. A read error other than end of file ends the scan there (the
// frames before it stay addressable; a last packet cut short by the end of the file is dropped).
// Throws Error(kLimitExceeded) past the deadline or past `max_frames` frames.
std::vector<IndexedFrame> scan_frames(AVFormatContext* fmt, int stream, AVCodecID codec, const std::string& name,
                                      ffmpeg::Deadline& deadline, int64_t max_frames);

// Sorts a caller-supplied index by pts and gives frames without a duration the gap to the next pts.
// Throws Error(kInvalidInput) for an empty index or repeated pts values.
std::vector<IndexedFrame> from_custom_index(const FrameIndex& index, const std::string& name);

// Fills missing (<= 0) durations with the gap to the next frame; the last frame takes the previous
// frame's duration (or `fallback`, in time-base units, when it is alone).
void fill_durations(std::vector<IndexedFrame>& frames, int64_t fallback);

}  // namespace loom::video::detail
