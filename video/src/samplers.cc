// Clip samplers (see samplers.h): validate, choose clip starts, expand them into clips with the
// policy, then decode every frame in one batch and reshape.
#include "loom/video/samplers.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "loom/codec/error.h"

namespace loom::video {
namespace {

[[noreturn]] void fail(const char* sampler, std::string message) {
  throw Error(ErrorCode::kInvalidInput, sampler, std::move(message));
}

// splitmix64: the seed's sequence of 64-bit numbers (fixed algorithm, identical on every platform).
class SeededGenerator {
 public:
  explicit SeededGenerator(uint64_t seed) : state_(seed) {}

  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }

  // Uniform in [lo, hi), hi > lo, without modulo bias (draws below 2^64 mod range are rejected).
  int64_t integer(int64_t lo, int64_t hi) {
    const uint64_t range = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
    const uint64_t reject_below = (0 - range) % range;
    uint64_t x = next();
    while (x < reject_below) x = next();
    return static_cast<int64_t>(static_cast<uint64_t>(lo) + x % range);
  }

  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1p-53; }

 private:
  uint64_t state_;
};

// Pads `clip` (1 <= clip.size() < wanted: the frames of the clip inside the video) to `wanted`
// entries according to the policy.
// `describe` names the clip for the kError message.
template <typename T, typename Describe>
void apply_policy(std::vector<T>& clip, size_t wanted, Policy policy, const char* sampler, Describe describe) {
  if (clip.size() >= wanted) return;
  switch (policy) {
    case Policy::kRepeatLast: clip.resize(wanted, clip.back()); return;
    case Policy::kWrap: {
      const size_t valid = clip.size();
      for (size_t i = valid; i < wanted; ++i) clip.push_back(clip[i % valid]);
      return;
    }
    case Policy::kError:
      fail(sampler, fmt::format("policy kError: a clip has {} of its {} frames past the end of the video ({}); "
                                "leave sampling_range_end unset or choose kRepeatLast or kWrap",
                                wanted - clip.size(), wanted, describe()));
  }
  fail(sampler, "unknown policy");
}

// ---- Index samplers ----

struct IndexRange {
  int64_t start = 0;
  int64_t end = 0;  // exclusive
};

IndexRange validate_index_based(const char* sampler, int64_t num_frames, const IndexClipOptions& o) {
  if (num_frames < 1) fail(sampler, fmt::format("the video has no frames ({})", num_frames));
  if (o.num_frames_per_clip <= 0) {
    fail(sampler, fmt::format("num_frames_per_clip ({}) must be > 0", o.num_frames_per_clip));
  }
  if (o.num_clips <= 0) fail(sampler, fmt::format("num_clips ({}) must be > 0", o.num_clips));
  if (o.num_indices_between_frames <= 0) {
    fail(sampler, fmt::format("num_indices_between_frames ({}) must be > 0", o.num_indices_between_frames));
  }
  IndexRange r;
  r.start = o.sampling_range_start;
  if (r.start < -num_frames) {
    fail(sampler,
         fmt::format("sampling_range_start ({}) must be >= -{} (the number of frames, negated)", r.start, num_frames));
  }
  if (r.start < 0) r.start += num_frames;
  if (r.start >= num_frames) {
    fail(sampler,
         fmt::format("sampling_range_start ({}) must be smaller than the number of frames ({})", r.start, num_frames));
  }
  const int64_t span = int64_t{o.num_indices_between_frames} * (o.num_frames_per_clip - 1) + 1;
  if (!o.sampling_range_end) {
    r.end = std::max<int64_t>(num_frames - span + 1, 1);
    if (r.start >= r.end) {
      fail(sampler, fmt::format("sampling_range_start ({}) leaves no room for a clip spanning {} frames in a "
                                "video of {} frames (the default sampling_range_end is {}); set "
                                "sampling_range_end to let clips run past the end under the policy",
                                r.start, span, num_frames, r.end));
    }
  } else {
    r.end = *o.sampling_range_end;
    if (r.end < 0) r.end += num_frames;
    r.end = std::min(r.end, num_frames);
    if (r.start >= r.end) {
      fail(sampler, fmt::format("the sampling range [{}, {}) is empty (sampling_range_end {} in a video of {} "
                                "frames)",
                                r.start, r.end, *o.sampling_range_end, num_frames));
    }
  }
  return r;
}

// The frames of clips starting at `starts`: start, start + step, ... below min(start + span,
// num_frames), padded by the policy.
std::vector<std::vector<int64_t>> expand_index_clips(const char* sampler, const std::vector<int64_t>& starts,
                                                     int64_t num_frames, const IndexClipOptions& o) {
  const int64_t step = o.num_indices_between_frames;
  const int64_t span = step * (o.num_frames_per_clip - 1) + 1;
  std::vector<std::vector<int64_t>> clips;
  clips.reserve(starts.size());
  for (int64_t start : starts) {
    std::vector<int64_t> clip;
    clip.reserve(o.num_frames_per_clip);
    for (int64_t i = start; i < std::min(start + span, num_frames); i += step) clip.push_back(i);
    apply_policy(clip, o.num_frames_per_clip, o.policy, sampler, [&] {
      return fmt::format("clip from index {} with {} frames {} apart in a video of {} frames", start,
                         o.num_frames_per_clip, step, num_frames);
    });
    clips.push_back(std::move(clip));
  }
  return clips;
}

// torch.linspace(first, last, steps) cast to integers: the first half counts up from `first`, the
// second half down from `last` (so both ends are exact), each value truncated toward zero.
std::vector<int64_t> integer_linspace(int64_t first, int64_t last, int steps) {
  std::vector<int64_t> out(steps);
  if (steps == 1) {
    out[0] = first;
    return out;
  }
  const double step = (static_cast<double>(last) - static_cast<double>(first)) / (steps - 1);
  const int halfway = steps / 2;
  for (int i = 0; i < steps; ++i) {
    const double v =
        i < halfway ? static_cast<double>(first) + step * i : static_cast<double>(last) - step * (steps - i - 1);
    out[i] = static_cast<int64_t>(v);
  }
  return out;
}

// ---- Timestamp samplers ----

struct TimeRange {
  double start = 0;
  double end = 0;  // exclusive
  double seconds_between_frames = 0;
};

std::string seconds(double s) {
  return fmt::format("{:g}", s);
}

TimeRange validate_time_based(const char* sampler, const StreamMetadata& m, const TimestampClipOptions& o,
                              bool random) {
  if (o.num_frames_per_clip <= 0) {
    fail(sampler, fmt::format("num_frames_per_clip ({}) must be > 0", o.num_frames_per_clip));
  }
  if (random) {
    if (o.num_clips <= 0) fail(sampler, fmt::format("num_clips ({}) must be > 0", o.num_clips));
    if (o.seconds_between_clip_starts) {
      fail(sampler,
           "seconds_between_clip_starts is for clips_at_regular_timestamps; "
           "clips_at_random_timestamps takes num_clips");
    }
  } else {
    if (!o.seconds_between_clip_starts) fail(sampler, "seconds_between_clip_starts is required");
    if (!(*o.seconds_between_clip_starts > 0) || !std::isfinite(*o.seconds_between_clip_starts)) {
      fail(sampler, fmt::format("seconds_between_clip_starts ({}) must be > 0 and finite",
                                seconds(*o.seconds_between_clip_starts)));
    }
    if (o.num_clips != 1) {
      fail(sampler, fmt::format("num_clips ({}) is for clips_at_random_timestamps; clips_at_regular_timestamps "
                                "derives the number of clips from seconds_between_clip_starts",
                                o.num_clips));
    }
  }
  const double begin = m.begin_stream_seconds, end = m.end_stream_seconds;
  if (!std::isfinite(begin) || !std::isfinite(end) || !(end > begin)) {
    fail(sampler, fmt::format("the stream's time range [{}, {}) is empty or unknown; use an index sampler",
                              seconds(begin), seconds(end)));
  }
  TimeRange r;
  if (o.seconds_between_frames) {
    r.seconds_between_frames = *o.seconds_between_frames;
    if (!(r.seconds_between_frames > 0) || !std::isfinite(r.seconds_between_frames)) {
      fail(sampler,
           fmt::format("seconds_between_frames ({}) must be > 0 and finite", seconds(r.seconds_between_frames)));
    }
  } else {
    if (!(m.stream.average_fps > 0) || !std::isfinite(m.stream.average_fps)) {
      fail(sampler, "the stream's average fps is unknown: set seconds_between_frames or use an index sampler");
    }
    r.seconds_between_frames = 1.0 / m.stream.average_fps;
  }
  if (!o.sampling_range_start) {
    r.start = begin;
  } else {
    r.start = *o.sampling_range_start;
    if (!(r.start >= begin)) {
      fail(sampler, fmt::format("sampling_range_start ({}) must be at least begin_stream_seconds ({})",
                                seconds(r.start), seconds(begin)));
    }
    if (!(r.start < end)) {
      fail(sampler, fmt::format("sampling_range_start ({}) must be smaller than end_stream_seconds ({})",
                                seconds(r.start), seconds(end)));
    }
  }
  if (!o.sampling_range_end) {
    r.end = end - (o.num_frames_per_clip - 1) * r.seconds_between_frames;
    if (r.start >= r.end) {
      fail(sampler, fmt::format("sampling_range_start ({}) leaves no room for a clip of {} frames {} s apart "
                                "before end_stream_seconds ({}) (the default sampling_range_end is {}); set "
                                "sampling_range_end to let clips run past the end under the policy",
                                seconds(r.start), o.num_frames_per_clip, seconds(r.seconds_between_frames),
                                seconds(end), seconds(r.end)));
    }
  } else {
    r.end = *o.sampling_range_end;
    if (std::isnan(r.end) || !(r.end > begin)) {
      fail(sampler, fmt::format("sampling_range_end ({}) must be larger than begin_stream_seconds ({})", seconds(r.end),
                                seconds(begin)));
    }
    if (r.start >= r.end) {
      fail(sampler, fmt::format("the sampling range [{}, {}) is empty", seconds(r.start), seconds(r.end)));
    }
  }
  r.end = std::min(r.end, end);
  return r;
}

std::vector<std::vector<double>> expand_time_clips(const char* sampler, const std::vector<double>& starts,
                                                   double end_stream_seconds, const TimeRange& r,
                                                   const TimestampClipOptions& o) {
  std::vector<std::vector<double>> clips;
  clips.reserve(starts.size());
  for (double start : starts) {
    std::vector<double> clip;
    clip.reserve(o.num_frames_per_clip);
    for (int i = 0; i < o.num_frames_per_clip; ++i) {
      const double t = start + i * r.seconds_between_frames;
      if (t < end_stream_seconds) clip.push_back(t);
    }
    apply_policy(clip, o.num_frames_per_clip, o.policy, sampler, [&] {
      return fmt::format("clip from {} s with {} frames {} s apart, stream ending at {} s", seconds(start),
                         o.num_frames_per_clip, seconds(r.seconds_between_frames), seconds(end_stream_seconds));
    });
    clips.push_back(std::move(clip));
  }
  return clips;
}

std::vector<std::vector<int64_t>> random_index_plan(const char* sampler, int64_t num_frames, uint64_t seed,
                                                    const IndexClipOptions& o) {
  const IndexRange r = validate_index_based(sampler, num_frames, o);
  SeededGenerator gen(seed);
  std::vector<int64_t> starts(o.num_clips);
  for (int64_t& s : starts) s = gen.integer(r.start, r.end);
  return expand_index_clips(sampler, starts, num_frames, o);
}

std::vector<std::vector<int64_t>> regular_index_plan(const char* sampler, int64_t num_frames,
                                                     const IndexClipOptions& o) {
  const IndexRange r = validate_index_based(sampler, num_frames, o);
  return expand_index_clips(sampler, integer_linspace(r.start, r.end - 1, o.num_clips), num_frames, o);
}

std::vector<std::vector<double>> random_time_plan(const char* sampler, const StreamMetadata& m, uint64_t seed,
                                                  const TimestampClipOptions& o) {
  const TimeRange r = validate_time_based(sampler, m, o, /*random=*/true);
  SeededGenerator gen(seed);
  std::vector<double> starts(o.num_clips);
  for (double& s : starts) {
    s = r.start + gen.uniform() * (r.end - r.start);
    if (s >= r.end) s = std::nextafter(r.end, r.start);  // rounding must not reach the open end
    s = std::max(s, r.start);
  }
  return expand_time_clips(sampler, starts, m.end_stream_seconds, r, o);
}

std::vector<std::vector<double>> regular_time_plan(const char* sampler, const StreamMetadata& m,
                                                   const TimestampClipOptions& o) {
  const TimeRange r = validate_time_based(sampler, m, o, /*random=*/false);
  const double step = *o.seconds_between_clip_starts;
  // torch.arange(start, end, step): ceil((end - start) / step) values start + i * step, then (as
  // TorchCodec does) only those strictly below end.
  const double count = std::ceil((r.end - r.start) / step);
  constexpr double kMaxClips = 1 << 24;
  if (count > kMaxClips) {
    fail(sampler, fmt::format("seconds_between_clip_starts ({}) gives {} clips in [{}, {}); at most {} allowed",
                              seconds(step), count, seconds(r.start), seconds(r.end), kMaxClips));
  }
  std::vector<double> starts;
  for (int64_t i = 0; i < static_cast<int64_t>(count); ++i) {
    const double s = r.start + static_cast<double>(i) * step;
    if (s < r.end) starts.push_back(s);
  }
  return expand_time_clips(sampler, starts, m.end_stream_seconds, r, o);
}

// Stacks the decoded frames [N, ...] (N = clips * frames_per_clip, clip-major) into [clips,
// frames_per_clip, ...] with per-clip pts and durations.
Clips reshape(Frames frames, size_t num_clips, size_t frames_per_clip) {
  Clips out;
  const Tensor data = frames.data.contiguous();
  std::vector<int64_t> shape = {static_cast<int64_t>(num_clips), static_cast<int64_t>(frames_per_clip)};
  for (int d = 1; d < static_cast<int>(data.shape().size()); ++d) shape.push_back(data.size(d));
  out.data = data.view(shape);
  out.pts_seconds.resize(num_clips);
  out.duration_seconds.resize(num_clips);
  for (size_t c = 0; c < num_clips; ++c) {
    const auto first = frames.pts_seconds.begin() + static_cast<std::ptrdiff_t>(c * frames_per_clip);
    out.pts_seconds[c].assign(first, first + static_cast<std::ptrdiff_t>(frames_per_clip));
    const auto first_d = frames.duration_seconds.begin() + static_cast<std::ptrdiff_t>(c * frames_per_clip);
    out.duration_seconds[c].assign(first_d, first_d + static_cast<std::ptrdiff_t>(frames_per_clip));
  }
  return out;
}

template <typename T>
std::vector<T> flatten(const std::vector<std::vector<T>>& clips) {
  std::vector<T> all;
  for (const auto& c : clips) all.insert(all.end(), c.begin(), c.end());
  return all;
}

Clips decode_index_clips(VideoDecoder& decoder, const std::vector<std::vector<int64_t>>& clips) {
  const std::vector<int64_t> all = flatten(clips);
  return reshape(decoder.get_frames_at(all), clips.size(), clips.front().size());
}

Clips decode_time_clips(VideoDecoder& decoder, const std::vector<std::vector<double>>& clips) {
  const std::vector<double> all = flatten(clips);
  return reshape(decoder.get_frames_played_at(all), clips.size(), clips.front().size());
}

void require_frames(const char* sampler, VideoDecoder& decoder) {
  if (decoder.num_frames() < 1) fail(sampler, fmt::format("the video has no frames ({})", decoder.num_frames()));
}

}  // namespace

std::vector<std::vector<int64_t>> clip_indices_at_random_indices(int64_t num_frames, uint64_t seed,
                                                                 const IndexClipOptions& options) {
  return random_index_plan("clip_indices_at_random_indices", num_frames, seed, options);
}

std::vector<std::vector<int64_t>> clip_indices_at_regular_indices(int64_t num_frames, const IndexClipOptions& options) {
  return regular_index_plan("clip_indices_at_regular_indices", num_frames, options);
}

std::vector<std::vector<double>> clip_timestamps_at_random_timestamps(const StreamMetadata& metadata, uint64_t seed,
                                                                      const TimestampClipOptions& options) {
  return random_time_plan("clip_timestamps_at_random_timestamps", metadata, seed, options);
}

std::vector<std::vector<double>> clip_timestamps_at_regular_timestamps(const StreamMetadata& metadata,
                                                                       const TimestampClipOptions& options) {
  return regular_time_plan("clip_timestamps_at_regular_timestamps", metadata, options);
}

Clips clips_at_random_indices(VideoDecoder& decoder, uint64_t seed, const IndexClipOptions& options) {
  constexpr const char* kName = "clips_at_random_indices";
  return decode_index_clips(decoder, random_index_plan(kName, decoder.num_frames(), seed, options));
}

Clips clips_at_regular_indices(VideoDecoder& decoder, const IndexClipOptions& options) {
  constexpr const char* kName = "clips_at_regular_indices";
  return decode_index_clips(decoder, regular_index_plan(kName, decoder.num_frames(), options));
}

Clips clips_at_random_timestamps(VideoDecoder& decoder, uint64_t seed, const TimestampClipOptions& options) {
  constexpr const char* kName = "clips_at_random_timestamps";
  require_frames(kName, decoder);
  return decode_time_clips(decoder, random_time_plan(kName, decoder.metadata(), seed, options));
}

Clips clips_at_regular_timestamps(VideoDecoder& decoder, const TimestampClipOptions& options) {
  constexpr const char* kName = "clips_at_regular_timestamps";
  require_frames(kName, decoder);
  return decode_time_clips(decoder, regular_time_plan(kName, decoder.metadata(), options));
}

}  // namespace loom::video
