// Demux and decode of one video stream: packets in, decoded frames out. FrameSource opens the container
// and the stream's decoder, seeks, and produces the frame a FrameTarget names by decoding forward from a
// keyframe (or from where it stands, when that is on the way), letting the decoder drop non-reference
// frames that nobody asked for. What it decodes into output is the caller's business. Private to
// loom::video.
//
// Errors: loom::Error naming the input, as VideoDecoder documents them (kLimitExceeded past the deadline,
// kInvalidInput for a frame that cannot be decoded, ...). Not thread-safe.
#pragma once

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
}

#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "decode_backend.h"
#include "frame_index.h"
#include "loom/codec/byte_source.h"
#include "loom/codec/internal/ffmpeg_handles.h"
#include "loom/codec/limits.h"
#include "loom/video/decoder.h"
#include "seek_rules.h"

namespace loom::video::detail {

// A decoded frame's place on the stream's clock, in seconds.
struct FrameTimes {
  double pts_seconds = 0;
  double duration_seconds = 0;
};

class FrameSource {
 public:
  // `name` names the input in errors; `limits` bound every blocking call.
  FrameSource(std::string name, const Limits& limits) : name_(std::move(name)), limits_(limits) {}
  FrameSource(const FrameSource&) = delete;
  FrameSource& operator=(const FrameSource&) = delete;

  // Starts the deadline (Limits::deadline_seconds) of the blocking calls that follow.
  void arm();

  // Opens the container: a local file, or the bytes of `source` (which must outlive this object's use).
  void open_input(const std::filesystem::path& path);
  void open_input(const ByteSource& source);
  // Selects the video stream (stream_index, -1: FFmpeg's best), checks its size against the limits and
  // opens its decoder, set up by `backend` for `options`. Other streams are not demuxed.
  void open_stream(int stream_index, DecodeBackend& backend, const DecoderOptions& options);

  const AVFormatContext& format() const { return *fmt_; }
  const AVStream& stream() const { return *stream_; }
  TimeBase time_base() const { return time_base_; }
  // One frame at the header's rate, in time-base units; 0 when the header gives no rate.
  int64_t nominal_duration() const;

  // The packet scan of frame_index.h from the current position (after open_stream: the whole stream).
  std::vector<IndexedFrame> scan(int64_t max_frames);
  // Where seeking to the start aims before: the pts of the stream's first frame (SeekRules::first_pts).
  void set_first_pts(int64_t pts) { first_pts_ = pts; }

  // Decodes the frame `target` names; frame() then holds it until the next call. Returns its times:
  // the index's for a target of the exact rules, the decoded frame's otherwise.
  FrameTimes decode(const FrameTarget& target);
  const AVFrame& frame() const { return *frame_; }
  const DecodeStats& stats() const { return stats_; }

 private:
  static constexpr int64_t kNoPts = std::numeric_limits<int64_t>::min();

  void check_deadline() const;
  int64_t frame_pts() const { return frame_->pts != AV_NOPTS_VALUE ? frame_->pts : frame_->best_effort_timestamp; }
  int64_t frame_duration() const;
  void seek(int64_t ts);
  void seek_to_start();
  void after_seek();  // the decoder and the decode position, reset after a successful seek
  bool next_frame();
  [[noreturn]] void throw_missing(const std::string& what);
  // The frame with pts `t.indexed->pts` (exact rules).
  void decode_indexed(const FrameTarget& t);
  // The frame played at `t` seconds (approximate rules).
  void decode_played_at(double t);

  std::string name_;
  Limits limits_;
  ffmpeg::Deadline deadline_;
  // Exactly one of these two owns the format context; declared before the codec objects so that
  // they are closed last.
  ffmpeg::MemoryInput memory_;
  ffmpeg::UniqueFormatContext file_ctx_;
  AVFormatContext* fmt_ = nullptr;
  AVStream* stream_ = nullptr;
  TimeBase time_base_;
  ffmpeg::UniqueCodecContext codec_;
  ffmpeg::UniquePacket packet_;
  ffmpeg::UniqueFrame frame_;
  int64_t first_pts_ = 0;
  DecodeStats stats_;
  // How far the demuxer's index runs ahead of presentation times, in time-base units: MP4's index holds
  // decode timestamps, which precede a keyframe's pts by the B-frame delay; Matroska's cues hold pts.
  int64_t index_pts_offset_ = 0;

  // Decode position.
  bool positioned_ = false;  // a seek was made since open (the scan leaves the demuxer at the end)
  bool eof_sent_ = false;    // the decoder was sent the drain packet
  bool finished_ = false;    // the decoder is drained: nothing more until the next seek
  bool have_frame_ = false;  // `frame_` holds the last decoded frame
  int64_t frames_since_seek_ = 0;
  int64_t decode_errors_ = 0;
  std::string read_error_;

  // Skipping non-reference frames: while decoding toward the asked frame, a packet that holds an
  // earlier frame holds a frame nobody asked for, and when the frame is not a reference for any other
  // frame (AVDISCARD_NONREF), no later frame depends on it either: the decoder may drop it. Earlier:
  // pts < skip_.before (exact rules: the asked frame's pts), or, with by_end, pts + duration <=
  // skip_.before (approximate rules: the frame ends before the asked time, as decode_played_at judges
  // frames). Packets are judged one at a time, so B-frame reordering cannot drop the asked frame. Only
  // for codecs whose "non-reference" is exact in libavcodec (see can_skip_nonref_).
  struct SkipRule {
    int64_t before = kNoPts;
    bool by_end = false;
  };
  bool holds_earlier_frame(const AVPacket& packet) const;
  // Skips non-reference frames before `rule` until the scope ends.
  class ScopedSkip;

  bool can_skip_nonref_ = false;
  SkipRule skip_;
};

}  // namespace loom::video::detail
