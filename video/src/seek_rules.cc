#include "seek_rules.h"

#include <algorithm>
#include <cmath>

#include "loom/codec/error.h"

namespace loom::video::detail {

// ---- Exact ----

namespace {

double end_of(const std::vector<IndexedFrame>& frames, TimeBase time_base) {
  return time_base.seconds(frames.back().pts + frames.back().duration);
}

}  // namespace

ExactSeekRules::ExactSeekRules(std::vector<IndexedFrame> frames, TimeBase time_base)
    : SeekRules(time_base.seconds(frames.front().pts), end_of(frames, time_base)),
      frames_(std::move(frames)),
      time_base_(time_base) {
  seconds_.reserve(frames_.size());
  for (const IndexedFrame& f : frames_) {
    seconds_.push_back(time_base_.seconds(f.pts));
    if (f.key_frame) key_frames_.push_back(static_cast<int64_t>(seconds_.size()) - 1);
  }
}

int64_t ExactSeekRules::index_played_at(double t) const {
  const auto it = std::upper_bound(seconds_.begin(), seconds_.end(), t);
  return std::max<int64_t>(it - seconds_.begin() - 1, 0);
}

std::pair<int64_t, int64_t> ExactSeekRules::indices_played_in(double begin, double end) const {
  return {index_played_at(begin), std::lower_bound(seconds_.begin(), seconds_.end(), end) - seconds_.begin()};
}

FrameTarget ExactSeekRules::target_of(int64_t i) const {
  // The last keyframe at or before i; the first frame when there is none.
  const auto after = std::upper_bound(key_frames_.begin(), key_frames_.end(), i);
  const int64_t key = after == key_frames_.begin() ? 0 : *(after - 1);
  const IndexedFrame& f = frames_[static_cast<size_t>(i)];
  return {i, seconds_[static_cast<size_t>(i)],
          FrameTarget::Indexed{f.pts, frames_[static_cast<size_t>(key)].pts, time_base_.seconds(f.duration)}};
}

void ExactSeekRules::describe(StreamMetadata& meta) const {
  meta.begin_stream_seconds = begin_;
  meta.end_stream_seconds = end_;
  meta.num_frames_from_content = num_frames();
  meta.key_frame_indices = key_frames_;
}

std::unique_ptr<ExactSeekRules> exact_rules(std::vector<IndexedFrame> frames, int64_t fallback_duration,
                                            TimeBase time_base, const std::string& name) {
  fill_durations(frames, fallback_duration);
  if (frames.empty()) throw Error(ErrorCode::kInvalidInput, name, "the video stream holds no frames");
  return std::make_unique<ExactSeekRules>(std::move(frames), time_base);
}

// ---- Approximate ----

int64_t ApproximateSeekRules::index_at(double t) const {
  const auto i = static_cast<int64_t>(std::floor((t - begin_) * fps_ + 1e-9));
  return std::clamp<int64_t>(i, 0, num_frames_);
}

int64_t ApproximateSeekRules::index_played_at(double t) const {
  return std::min(index_at(t), num_frames_ - 1);
}

std::pair<int64_t, int64_t> ApproximateSeekRules::indices_played_in(double begin, double end) const {
  const int64_t first = index_at(begin);
  const auto last = static_cast<int64_t>(std::ceil((end - begin_) * fps_ - 1e-9));
  return {first, std::clamp<int64_t>(last, first, num_frames_)};
}

FrameTarget ApproximateSeekRules::target_of(int64_t i) const {
  return {i, begin_ + (static_cast<double>(i) + 0.5) / fps_, std::nullopt};
}

void ApproximateSeekRules::describe(StreamMetadata& meta) const {
  meta.begin_stream_seconds = begin_;
  meta.end_stream_seconds = end_;
}

std::unique_ptr<ApproximateSeekRules> approximate_rules(const HeaderTiming& header) {
  int64_t frames = 0;
  if (header.num_frames > 0) {
    frames = header.num_frames;
  } else if (header.duration_seconds > 0 && header.average_fps > 0) {
    frames = std::llround(header.duration_seconds * header.average_fps);
  }
  if (frames <= 0 || header.average_fps <= 0) return nullptr;  // nothing to trust: scan instead
  const int64_t start_pts = header.start_pts.value_or(0);
  const double begin = header.start_pts ? header.time_base.seconds(start_pts) : 0.0;
  const double end = header.duration_seconds > 0 ? begin + header.duration_seconds
                                                 : begin + static_cast<double>(frames) / header.average_fps;
  return std::make_unique<ApproximateSeekRules>(frames, header.average_fps, begin, end, start_pts);
}

}  // namespace loom::video::detail
