// The seek rules of one video stream: how many frames it has, which frame an index or a time names,
// where its frames begin and end, and what the decoder must look for to produce a frame. Two sets of
// rules (DecoderOptions::seek_mode): the exact ones read a frame index (the packet scan of
// frame_index.h, or a caller's index); the approximate ones trust the header's frame rate and count.
// Arithmetic on the index or the header, no FFmpeg calls: VideoDecoder asks these and never which mode
// it is in. Private to loom::video.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "frame_index.h"
#include "loom/video/decoder.h"

namespace loom::video::detail {

// A stream's time base, num/den seconds per tick (both > 0).
struct TimeBase {
  int num = 0, den = 1;
  // Correctly rounded (as Python's float(Fraction)) while ts * num fits in 53 bits.
  double seconds(int64_t ts) const { return static_cast<double>(ts) * num / static_cast<double>(den); }
};

// What the decoder must produce for one output frame.
struct FrameTarget {
  // The frame index, or -1 for a time that the approximate rules decode directly (no index). Equal
  // indices name the same frame: a batch decodes it once.
  int64_t index = -1;
  // Exact rules: the frame's pts. Approximate rules: the time the wanted frame is played at.
  double seconds = 0;
  // Exact rules only: the frame is the one with this pts (time base), decoded from the keyframe at
  // key_pts (at or before it); its duration comes from the index. Approximate rules: nullopt (the frame
  // is found by decoding after a seek to `seconds`, and its times are the decoded frame's).
  struct Indexed {
    int64_t pts = 0;
    int64_t key_pts = 0;
    double duration_seconds = 0;
  };
  std::optional<Indexed> indexed;
};

// Orders targets as a batch decodes them: by index, and targets without an index by time.
inline bool decode_before(const FrameTarget& a, const FrameTarget& b) {
  return a.index != b.index ? a.index < b.index : a.seconds < b.seconds;
}

class SeekRules {
 public:
  virtual ~SeekRules() = default;

  // Frames addressable by index (> 0).
  virtual int64_t num_frames() const = 0;
  // The stream's frames are played during [begin_seconds, end_seconds).
  double begin_seconds() const { return begin_; }
  double end_seconds() const { return end_; }
  // The pts (time base) of the stream's first frame: seeking to the start aims before it.
  virtual int64_t first_pts() const = 0;

  // The index of the frame played at `t`, in [0, num_frames); t in [begin_seconds, end_seconds).
  virtual int64_t index_played_at(double t) const = 0;
  // [first, last): the indices of the frames played during [begin, end), begin in [begin_seconds,
  // end_seconds) and end > begin: the frame played at begin, then every frame with pts < end.
  virtual std::pair<int64_t, int64_t> indices_played_in(double begin, double end) const = 0;
  // What to decode for frame `i` (0 <= i < num_frames).
  virtual FrameTarget target_of(int64_t i) const = 0;
  // What to decode for the frame played at `t` (t in [begin_seconds, end_seconds)).
  virtual FrameTarget target_played_at(double t) const = 0;

  // Sets what these rules know in `meta`: begin/end_stream_seconds, and in exact mode
  // num_frames_from_content and key_frame_indices.
  virtual void describe(StreamMetadata& meta) const = 0;

 protected:
  SeekRules(double begin, double end) : begin_(begin), end_(end) {}
  double begin_, end_;
};

// Exact rules over a frame index: frame i is frames[i] (presentation order), played during [its pts,
// the next frame's pts), the last one during [pts, pts + duration).
class ExactSeekRules final : public SeekRules {
 public:
  // `frames`: sorted by pts, durations > 0 (fill_durations), not empty.
  ExactSeekRules(std::vector<IndexedFrame> frames, TimeBase time_base);

  int64_t num_frames() const override { return static_cast<int64_t>(frames_.size()); }
  int64_t first_pts() const override { return frames_.front().pts; }
  int64_t index_played_at(double t) const override;
  std::pair<int64_t, int64_t> indices_played_in(double begin, double end) const override;
  FrameTarget target_of(int64_t i) const override;
  FrameTarget target_played_at(double t) const override { return target_of(index_played_at(t)); }
  void describe(StreamMetadata& meta) const override;

 private:
  std::vector<IndexedFrame> frames_;
  TimeBase time_base_;
  std::vector<double> seconds_;      // pts of every frame, in seconds
  std::vector<int64_t> key_frames_;  // indices of the keyframes, ascending
};

// Approximate rules from the header: frame i is the one played at begin + (i + 0.5) / fps.
class ApproximateSeekRules final : public SeekRules {
 public:
  // num_frames > 0 and fps > 0; first_pts: the stream's start time (time base).
  ApproximateSeekRules(int64_t num_frames, double fps, double begin, double end, int64_t first_pts)
      : SeekRules(begin, end), num_frames_(num_frames), fps_(fps), first_pts_(first_pts) {}

  int64_t num_frames() const override { return num_frames_; }
  int64_t first_pts() const override { return first_pts_; }
  // floor((t - begin) * fps), at most num_frames - 1.
  int64_t index_played_at(double t) const override;
  std::pair<int64_t, int64_t> indices_played_in(double begin, double end) const override;
  FrameTarget target_of(int64_t i) const override;
  FrameTarget target_played_at(double t) const override { return {-1, t, std::nullopt}; }
  void describe(StreamMetadata& meta) const override;

 private:
  // The frame index the rate puts at t, clamped to [0, num_frames].
  int64_t index_at(double t) const;
  int64_t num_frames_;
  double fps_;
  int64_t first_pts_;
};

// What a stream's header says about its timing.
struct HeaderTiming {
  int64_t num_frames = 0;            // 0: not given
  double duration_seconds = -1;      // of the stream, else of the container; <= 0: unknown
  double average_fps = 0;            // 0: unknown
  std::optional<int64_t> start_pts;  // the stream's start time (time base); unset: 0
  TimeBase time_base;
};

// The approximate rules the header supports: the frame count from the header, else duration * fps;
// begin at the start time, end at begin + duration (else begin + count / fps). nullptr when the header
// gives neither a count nor a rate (the stream is then scanned as in exact mode).
std::unique_ptr<ApproximateSeekRules> approximate_rules(const HeaderTiming& header);

// The exact rules over `frames` (sorted by pts): missing durations filled (fill_durations, with
// `fallback_duration` for a lone frame). Throws Error(kInvalidInput) naming `name` when there is no
// frame.
std::unique_ptr<ExactSeekRules> exact_rules(std::vector<IndexedFrame> frames, int64_t fallback_duration,
                                            TimeBase time_base, const std::string& name);

}  // namespace loom::video::detail
