// Clip samplers: several clips of evenly spaced frames from one video, chosen at random or regular
// indices or timestamps, decoded in one batch.
//
// Semantics follow torchcodec.samplers (TorchCodec 0.x): clips_at_random_indices,
// clips_at_regular_indices, clips_at_random_timestamps, clips_at_regular_timestamps, with the same
// parameters and defaults.
//
// - A clip is num_frames_per_clip frames, num_indices_between_frames apart (index samplers) or sampled
//   seconds_between_frames apart (timestamp samplers). Its span (index samplers) is
//   num_indices_between_frames * (num_frames_per_clip - 1) + 1 frames, first and last included.
// - The sampling range [sampling_range_start, sampling_range_end) bounds where a clip may START (not
//   where it ends). Left unset, its end is the last start whose clip fits in the video:
//   max(num_frames - span + 1, 1) for indices, end_stream_seconds - (num_frames_per_clip - 1) *
//   seconds_between_frames for timestamps; the policy then rarely matters.
// - Random samplers draw clip starts uniformly from the range; regular samplers space them evenly:
//   clips_at_regular_indices takes num_clips starts from linspace(start, end - 1) truncated to
//   integers (torch.linspace with an integer dtype: more clips than starts repeat starts);
//   clips_at_regular_timestamps starts a clip every seconds_between_clip_starts seconds from the range
//   start, strictly before the range end (so it decides the number of clips).
// - Frames of a clip past the end of the video (index >= num_frames, or time >= end_stream_seconds)
//   are replaced according to `policy`: kRepeatLast repeats the clip's last valid frame ([95, 97, 99,
//   101, 103] in a 100-frame video becomes [95, 97, 99, 99, 99]); kWrap cycles through the clip's valid
//   frames ([95, 97, 99, 95, 97]); kError throws.
// - Timestamp samplers return, for each sampling time t, the frame played at t (pts <= t < next pts,
//   as VideoDecoder::get_frame_played_at), so the returned pts are only on average
//   seconds_between_frames apart.
//
// Randomness: the random samplers take a 64-bit seed (loom::video does not depend on
// loom::transforms; to tie a clip to a loader's per-sample generator, pass `rng.next()` of that
// loom::transforms::Rng). The generator is loom's own (splitmix64 with unbiased integer and 53-bit
// uniform draws), so one seed gives the same clips with any compiler and platform. The numbers differ
// from torch's generator: TorchCodec's clips for a torch seed are not reproduced.
//
// Decoding: every frame of every clip is decoded through ONE VideoDecoder::get_frames_at (index
// samplers) or get_frames_played_at (timestamp samplers) call, so each GOP decodes at most once even
// when clips overlap; a frame requested twice is decoded once.
//
// Errors: Error(kInvalidInput) naming the sampler (e.g. "clips_at_random_indices: num_clips (0) must
// be > 0") for num_clips, num_frames_per_clip, num_indices_between_frames, seconds_between_frames or
// seconds_between_clip_starts out of range, a video without frames, an empty sampling range or one
// outside the video, a timestamp sampler on a stream without a frame rate (when seconds_between_frames
// is unset) and kError when a clip runs past the end. Decoding errors are VideoDecoder's.
//
// Thread safety: the functions use the decoder given (one thread at a time, as VideoDecoder requires)
// and no other state.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "loom/codec/api.h"
#include "loom/codec/tensor.h"
#include "loom/video/decoder.h"

LOOM_API_BEGIN

namespace loom::video {

// What to do with the frames of a clip that fall past the end of the video.
enum class Policy { kRepeatLast, kWrap, kError };

struct IndexClipOptions {
  int num_clips = 1;                   // > 0
  int num_frames_per_clip = 1;         // > 0
  int num_indices_between_frames = 1;  // > 0; "dilation": 1 takes consecutive frames
  // First index a clip may start at; negative counts from the end (-1 is the last frame), and must be
  // >= -num_frames. TorchCodec's default 0.
  int64_t sampling_range_start = 0;
  // One past the last index a clip may start at; negative counts from the end; clamped to num_frames.
  // Unset: max(num_frames - span + 1, 1), so that clips fit in the video.
  std::optional<int64_t> sampling_range_end;
  Policy policy = Policy::kRepeatLast;
};

struct TimestampClipOptions {
  // clips_at_random_timestamps only (> 0); clips_at_regular_timestamps throws if it is not 1.
  int num_clips = 1;
  // clips_at_regular_timestamps only, and required there (> 0): seconds between consecutive clip
  // starts. clips_at_random_timestamps throws if it is set.
  std::optional<double> seconds_between_clip_starts;
  int num_frames_per_clip = 1;  // > 0
  // Seconds between the sampling times of consecutive frames of a clip (> 0). Unset: 1 / average_fps.
  std::optional<double> seconds_between_frames;
  // First time a clip may start at, in [begin_stream_seconds, end_stream_seconds). Unset:
  // begin_stream_seconds (which is not always 0).
  std::optional<double> sampling_range_start;
  // Clips start before this time (exclusive); must be > begin_stream_seconds; clamped to
  // end_stream_seconds. Unset: end_stream_seconds - (num_frames_per_clip - 1) * seconds_between_frames.
  std::optional<double> sampling_range_end;
  Policy policy = Policy::kRepeatLast;
};

struct Clips {
  // uint8 [num_clips, num_frames_per_clip, 3, H, W] or [num_clips, num_frames_per_clip, H, W, 3],
  // following the decoder's dimension_order.
  Tensor data;
  // [num_clips][num_frames_per_clip]: pts and duration of each returned frame.
  std::vector<std::vector<double>> pts_seconds;
  std::vector<std::vector<double>> duration_seconds;
};

// ---- Samplers: choose, then decode in one batch ----
Clips clips_at_random_indices(VideoDecoder& decoder, uint64_t seed, const IndexClipOptions& options = {});
Clips clips_at_regular_indices(VideoDecoder& decoder, const IndexClipOptions& options = {});
Clips clips_at_random_timestamps(VideoDecoder& decoder, uint64_t seed, const TimestampClipOptions& options = {});
Clips clips_at_regular_timestamps(VideoDecoder& decoder, const TimestampClipOptions& options);

// ---- The choices alone, without decoding ----
// Frame indices [num_clips][num_frames_per_clip] (policy applied, all in [0, num_frames)) that the
// index samplers decode for a video of `num_frames` frames. Same validation and errors.
std::vector<std::vector<int64_t>> clip_indices_at_random_indices(int64_t num_frames, uint64_t seed,
                                                                 const IndexClipOptions& options = {});
std::vector<std::vector<int64_t>> clip_indices_at_regular_indices(int64_t num_frames,
                                                                  const IndexClipOptions& options = {});
// Sampling times [num_clips][num_frames_per_clip] (policy applied, all in [begin_stream_seconds,
// end_stream_seconds)) that the timestamp samplers pass to get_frames_played_at. Uses the
// metadata's begin_stream_seconds, end_stream_seconds (which must be larger) and average_fps.
std::vector<std::vector<double>> clip_timestamps_at_random_timestamps(const StreamMetadata& metadata, uint64_t seed,
                                                                      const TimestampClipOptions& options = {});
std::vector<std::vector<double>> clip_timestamps_at_regular_timestamps(const StreamMetadata& metadata,
                                                                       const TimestampClipOptions& options);

}  // namespace loom::video

LOOM_API_END
