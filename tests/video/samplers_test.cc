// Clip samplers: the chosen indices and timestamps against hand-derived expectations from TorchCodec's
// documented semantics (torchcodec.samplers), determinism, errors, and decoded clips against
// VideoDecoder's own frames on real videos.
#include "loom/video/samplers.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "decoder_util.h"
#include "loom/codec/error.h"

namespace loom::video {
namespace {
using namespace loom::video::test;
using Indices = std::vector<std::vector<int64_t>>;
using ::testing::HasSubstr;

// What `f` throws: must be Error(kInvalidInput) whose message contains `needle`.
template <typename F>
void expect_invalid(F&& f, const std::string& needle) {
  const Error e = loom::test::error_of(std::forward<F>(f));
  EXPECT_EQ(e.code(), ErrorCode::kInvalidInput) << e.what();
  EXPECT_THAT(std::string(e.what()), HasSubstr(needle));
}

IndexClipOptions index_options(int num_clips, int frames_per_clip, int between = 1) {
  IndexClipOptions o;
  o.num_clips = num_clips;
  o.num_frames_per_clip = frames_per_clip;
  o.num_indices_between_frames = between;
  return o;
}

StreamMetadata stream(double begin, double end, double fps) {
  StreamMetadata m;
  m.begin_stream_seconds = begin;
  m.end_stream_seconds = end;
  m.stream.average_fps = fps;
  return m;
}

void expect_times(const std::vector<std::vector<double>>& got, const std::vector<std::vector<double>>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t c = 0; c < want.size(); ++c) {
    ASSERT_EQ(got[c].size(), want[c].size()) << "clip " << c;
    for (size_t f = 0; f < want[c].size(); ++f)
      EXPECT_NEAR(got[c][f], want[c][f], 1e-9) << "clip " << c << " frame " << f;
  }
}

// ---------------- Index samplers: choices ----------------

TEST(SamplerIndexTest, RegularSpacingOverTheDefaultRange) {
  // Default range [0, 100 - 1 + 1): linspace(0, 99, 4) = 0, 33, 66, 99.
  EXPECT_EQ(clip_indices_at_regular_indices(100, index_options(4, 1)), (Indices{{0}, {33}, {66}, {99}}));
  // Span 2 * (4 - 1) + 1 = 7, default end 100 - 7 + 1 = 94: linspace(0, 93, 3) = 0, 46.5 -> 46, 93.
  EXPECT_EQ(clip_indices_at_regular_indices(100, index_options(3, 4, 2)),
            (Indices{{0, 2, 4, 6}, {46, 48, 50, 52}, {93, 95, 97, 99}}));
  // One clip starts at the range start.
  EXPECT_EQ(clip_indices_at_regular_indices(100, index_options(1, 3)), (Indices{{0, 1, 2}}));
}

TEST(SamplerIndexTest, MoreClipsThanStartsRepeatStartsLikeTorchLinspace) {
  // TorchCodec's note: torch.linspace(0, 10, steps=20, dtype=int) = 0,0,1,1,...,8,8,9,10.
  const Indices got = clip_indices_at_regular_indices(11, index_options(20, 1));
  Indices want;
  for (int64_t v : {0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 10}) want.push_back({v});
  EXPECT_EQ(got, want);
}

TEST(SamplerIndexTest, SamplingRangeNegativeAndClampedBounds) {
  IndexClipOptions o = index_options(2, 1);
  o.sampling_range_start = -10;  // 90
  EXPECT_EQ(clip_indices_at_regular_indices(100, o), (Indices{{90}, {99}}));
  o.sampling_range_start = 0;
  o.sampling_range_end = -50;  // 50: starts in [0, 50)
  EXPECT_EQ(clip_indices_at_regular_indices(100, o), (Indices{{0}, {49}}));
  o.sampling_range_end = 1000;  // clamped to 100
  EXPECT_EQ(clip_indices_at_regular_indices(100, o), (Indices{{0}, {99}}));
  o.sampling_range_start = 20;
  o.sampling_range_end = 31;
  o.num_clips = 3;  // linspace(20, 30, 3) = 20, 25, 30
  EXPECT_EQ(clip_indices_at_regular_indices(100, o), (Indices{{20}, {25}, {30}}));
}

TEST(SamplerIndexTest, PoliciesWhenAClipRunsPastTheEnd) {
  // TorchCodec's documented example: 100 frames, a clip from 95 with 5 frames 2 apart wants
  // [95, 97, 99, 101, 103].
  IndexClipOptions o = index_options(1, 5, 2);
  o.sampling_range_start = 95;
  o.sampling_range_end = 96;
  EXPECT_EQ(clip_indices_at_regular_indices(100, o), (Indices{{95, 97, 99, 99, 99}}));  // kRepeatLast default
  o.policy = Policy::kWrap;
  EXPECT_EQ(clip_indices_at_regular_indices(100, o), (Indices{{95, 97, 99, 95, 97}}));
  o.policy = Policy::kError;
  expect_invalid([&] { clip_indices_at_regular_indices(100, o); }, "past the end");
  expect_invalid([&] { clip_indices_at_random_indices(100, 7, o); }, "past the end");
  // A clip that fits does not trigger kError.
  o.sampling_range_start = 91;
  o.sampling_range_end = 92;
  EXPECT_EQ(clip_indices_at_regular_indices(100, o), (Indices{{91, 93, 95, 97, 99}}));

  // A clip longer than the video: the default range end is max(10 - 20 + 1, 1) = 1.
  IndexClipOptions longer = index_options(2, 13);
  Indices want_repeat(2, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9, 9});
  EXPECT_EQ(clip_indices_at_regular_indices(10, longer), want_repeat);
  longer.policy = Policy::kWrap;
  Indices want_wrap(2, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2});
  EXPECT_EQ(clip_indices_at_regular_indices(10, longer), want_wrap);
  // Wrap cycles more than once when few frames are valid: start 9 of 10, 7 frames 1 apart.
  IndexClipOptions one_valid = index_options(1, 7);
  one_valid.sampling_range_start = 8;
  one_valid.sampling_range_end = 10;
  one_valid.num_indices_between_frames = 1;
  one_valid.policy = Policy::kWrap;
  EXPECT_EQ(clip_indices_at_regular_indices(10, one_valid), (Indices{{8, 9, 8, 9, 8, 9, 8}}));
}

TEST(SamplerIndexTest, RandomStartsStayInTheRangeAndCoverIt) {
  IndexClipOptions o = index_options(400, 3, 4);
  o.sampling_range_start = 10;
  o.sampling_range_end = 14;
  const Indices clips = clip_indices_at_random_indices(1000, 123, o);
  ASSERT_EQ(clips.size(), 400u);
  std::set<int64_t> starts;
  for (const auto& c : clips) {
    ASSERT_EQ(c.size(), 3u);
    EXPECT_GE(c[0], 10);
    EXPECT_LT(c[0], 14);
    EXPECT_EQ(c[1], c[0] + 4);
    EXPECT_EQ(c[2], c[0] + 8);
    starts.insert(c[0]);
  }
  EXPECT_EQ(starts, (std::set<int64_t>{10, 11, 12, 13}));

  // Default range for 50 frames and span 2 * (5 - 1) + 1 = 9: starts in [0, 42), clips inside the video.
  IndexClipOptions d = index_options(300, 5, 2);
  std::set<int64_t> seen;
  for (const auto& c : clip_indices_at_random_indices(50, 9, d)) {
    EXPECT_LT(c[0], 42);
    EXPECT_LE(c.back(), 49);
    EXPECT_EQ(c.back(), c[0] + 8);
    seen.insert(c[0]);
  }
  EXPECT_TRUE(seen.count(0) && seen.count(41)) << "both ends of [0, 42) are reachable";
}

TEST(SamplerIndexTest, RandomIsDeterministicPerSeed) {
  const IndexClipOptions o = index_options(16, 2, 3);
  const Indices a = clip_indices_at_random_indices(5000, 42, o);
  EXPECT_EQ(a, clip_indices_at_random_indices(5000, 42, o));
  EXPECT_NE(a, clip_indices_at_random_indices(5000, 43, o));
  // Random clips past the end follow the policy too.
  IndexClipOptions past = index_options(50, 4, 3);
  past.sampling_range_start = 90;
  past.sampling_range_end = 100;
  for (const auto& c : clip_indices_at_random_indices(100, 5, past)) {
    std::vector<int64_t> want;
    for (int64_t i = c[0]; i < 100 && want.size() < 4; i += 3) want.push_back(i);
    while (want.size() < 4) want.push_back(want.back());
    EXPECT_EQ(c, want);
  }
}

TEST(SamplerIndexTest, InvalidParametersAreInvalidInput) {
  expect_invalid([] { clip_indices_at_regular_indices(100, index_options(0, 1)); }, "num_clips (0) must be > 0");
  expect_invalid([] { clip_indices_at_random_indices(100, 1, index_options(-3, 1)); }, "num_clips (-3)");
  expect_invalid([] { clip_indices_at_regular_indices(100, index_options(1, 0)); },
                 "num_frames_per_clip (0) must be > 0");
  expect_invalid([] { clip_indices_at_regular_indices(100, index_options(1, 2, 0)); },
                 "num_indices_between_frames (0) must be > 0");
  expect_invalid([] { clip_indices_at_regular_indices(0, index_options(1, 1)); }, "no frames");
  IndexClipOptions o = index_options(1, 1);
  o.sampling_range_start = 100;
  expect_invalid([&] { clip_indices_at_regular_indices(100, o); }, "sampling_range_start (100) must be smaller");
  o.sampling_range_start = -101;
  expect_invalid([&] { clip_indices_at_regular_indices(100, o); }, "sampling_range_start (-101)");
  o.sampling_range_start = 50;
  o.sampling_range_end = 50;
  expect_invalid([&] { clip_indices_at_random_indices(100, 1, o); }, "sampling range [50, 50) is empty");
  o.sampling_range_end = -60;  // 40 < 50
  expect_invalid([&] { clip_indices_at_regular_indices(100, o); }, "is empty");
  // Default end 100 - 10 + 1 = 91 leaves no start at 95.
  IndexClipOptions late = index_options(1, 10);
  late.sampling_range_start = 95;
  expect_invalid([&] { clip_indices_at_regular_indices(100, late); }, "default sampling_range_end is 91");
}

// ---------------- Timestamp samplers: choices ----------------

TimestampClipOptions regular_options(double between_starts, int frames_per_clip) {
  TimestampClipOptions o;
  o.seconds_between_clip_starts = between_starts;
  o.num_frames_per_clip = frames_per_clip;
  return o;
}

TEST(SamplerTimestampTest, RegularStartsEverySecondsBetweenClipStarts) {
  const StreamMetadata m = stream(0, 10, 10);
  expect_times(clip_timestamps_at_regular_timestamps(m, regular_options(2, 1)), {{0}, {2}, {4}, {6}, {8}});
  // Default seconds_between_frames = 1 / 10; default range end 10 - 2 * 0.1 = 9.8.
  expect_times(clip_timestamps_at_regular_timestamps(m, regular_options(2, 3)),
               {{0, 0.1, 0.2}, {2, 2.1, 2.2}, {4, 4.1, 4.2}, {6, 6.1, 6.2}, {8, 8.1, 8.2}});
  // The range end is exclusive: no clip starts at 6.
  TimestampClipOptions o = regular_options(2, 1);
  o.sampling_range_end = 6;
  expect_times(clip_timestamps_at_regular_timestamps(m, o), {{0}, {2}, {4}});
  // A stream that does not start at 0: the default range starts at begin_stream_seconds.
  expect_times(clip_timestamps_at_regular_timestamps(stream(1.5, 4.5, 25), regular_options(1, 1)),
               {{1.5}, {2.5}, {3.5}});
  // Explicit seconds_between_frames and range start.
  o = regular_options(3, 4);
  o.seconds_between_frames = 0.5;
  o.sampling_range_start = 1;
  // Range [1, 10 - 1.5 = 8.5): starts 1, 4, 7.
  expect_times(clip_timestamps_at_regular_timestamps(m, o), {{1, 1.5, 2, 2.5}, {4, 4.5, 5, 5.5}, {7, 7.5, 8, 8.5}});
}

TEST(SamplerTimestampTest, PoliciesWhenAClipRunsPastTheEnd) {
  // TorchCodec's documented example: stream ends at 11, a clip from 10.5 with 5 frames 0.2 s apart
  // wants [10.5, 10.7, 10.9, 11.1, 11.3].
  const StreamMetadata m = stream(0, 11, 30);
  TimestampClipOptions o = regular_options(1, 5);
  o.seconds_between_frames = 0.2;
  o.sampling_range_start = 10.5;
  o.sampling_range_end = 10.6;
  expect_times(clip_timestamps_at_regular_timestamps(m, o), {{10.5, 10.7, 10.9, 10.9, 10.9}});
  o.policy = Policy::kWrap;
  expect_times(clip_timestamps_at_regular_timestamps(m, o), {{10.5, 10.7, 10.9, 10.5, 10.7}});
  o.policy = Policy::kError;
  expect_invalid([&] { clip_timestamps_at_regular_timestamps(m, o); }, "past the end");
  // A range end past the stream's end is clamped to it.
  TimestampClipOptions clamp = regular_options(4, 1);
  clamp.sampling_range_end = 100;
  expect_times(clip_timestamps_at_regular_timestamps(m, clamp), {{0}, {4}, {8}});
}

TEST(SamplerTimestampTest, RandomStartsStayInTheRangeAndAreDeterministic) {
  const StreamMetadata m = stream(2, 12, 4);  // default seconds_between_frames 0.25
  TimestampClipOptions o;
  o.num_clips = 500;
  o.num_frames_per_clip = 5;
  const auto clips = clip_timestamps_at_random_timestamps(m, 77, o);
  ASSERT_EQ(clips.size(), 500u);
  double lo = 1e9, hi = -1e9;
  for (const auto& c : clips) {
    ASSERT_EQ(c.size(), 5u);
    EXPECT_GE(c[0], 2);
    EXPECT_LT(c[0], 11);  // default end 12 - 4 * 0.25
    for (int f = 1; f < 5; ++f) EXPECT_NEAR(c[f] - c[f - 1], 0.25, 1e-9);
    lo = std::min(lo, c[0]);
    hi = std::max(hi, c[0]);
  }
  EXPECT_LT(lo, 2.2);  // spread over the range, not stuck in a corner
  EXPECT_GT(hi, 10.8);
  EXPECT_EQ(clips, clip_timestamps_at_random_timestamps(m, 77, o));
  EXPECT_NE(clips, clip_timestamps_at_random_timestamps(m, 78, o));

  // An explicit range runs clips past the end; repeat_last keeps the last time before 12.
  o.sampling_range_start = 11.5;
  o.sampling_range_end = 12;
  o.num_clips = 50;
  for (const auto& c : clip_timestamps_at_random_timestamps(m, 3, o)) {
    EXPECT_GE(c[0], 11.5);
    EXPECT_LT(c[0], 12);
    EXPECT_NEAR(c[1], c[0] + 0.25 < 12 ? c[0] + 0.25 : c[0], 1e-12);
    for (double t : c) EXPECT_LT(t, 12);
    EXPECT_EQ(c[4], c[3]);  // c[0] + 0.5 >= 12: frames 2 to 4 repeat the last valid one
    EXPECT_EQ(c[2], c[1]);
  }
}

TEST(SamplerTimestampTest, InvalidParametersAreInvalidInput) {
  const StreamMetadata m = stream(0, 10, 10);
  TimestampClipOptions r;
  r.num_clips = 0;
  expect_invalid([&] { clip_timestamps_at_random_timestamps(m, 1, r); }, "num_clips (0) must be > 0");
  r.num_clips = 1;
  r.num_frames_per_clip = 0;
  expect_invalid([&] { clip_timestamps_at_random_timestamps(m, 1, r); }, "num_frames_per_clip (0) must be > 0");
  r.num_frames_per_clip = 1;
  r.seconds_between_clip_starts = 1;
  expect_invalid([&] { clip_timestamps_at_random_timestamps(m, 1, r); }, "seconds_between_clip_starts is for");

  expect_invalid([&] { clip_timestamps_at_regular_timestamps(m, {}); }, "seconds_between_clip_starts is required");
  expect_invalid([&] { clip_timestamps_at_regular_timestamps(m, regular_options(0, 1)); },
                 "seconds_between_clip_starts (0) must be > 0");
  expect_invalid([&] { clip_timestamps_at_regular_timestamps(m, regular_options(-1, 1)); }, "must be > 0");
  TimestampClipOptions o = regular_options(1, 1);
  o.num_clips = 3;
  expect_invalid([&] { clip_timestamps_at_regular_timestamps(m, o); }, "num_clips (3) is for");

  o = regular_options(1, 2);
  o.seconds_between_frames = 0;
  expect_invalid([&] { clip_timestamps_at_regular_timestamps(m, o); }, "seconds_between_frames (0) must be > 0");
  // Without a frame rate the default seconds_between_frames is unknown; an explicit one works.
  expect_invalid([&] { clip_timestamps_at_regular_timestamps(stream(0, 10, 0), regular_options(5, 2)); },
                 "average fps is unknown");
  o.seconds_between_frames = 0.5;
  expect_times(clip_timestamps_at_regular_timestamps(stream(0, 10, 0), o),
               {{0, 0.5}, {1, 1.5}, {2, 2.5}, {3, 3.5}, {4, 4.5}, {5, 5.5}, {6, 6.5}, {7, 7.5}, {8, 8.5}, {9, 9.5}});
  expect_invalid([&] { clip_timestamps_at_regular_timestamps(stream(3, 3, 25), regular_options(1, 1)); },
                 "empty or unknown");

  o = regular_options(1, 1);
  o.sampling_range_start = -0.5;
  expect_invalid([&] { clip_timestamps_at_regular_timestamps(m, o); }, "must be at least begin_stream_seconds");
  o.sampling_range_start = 10;
  expect_invalid([&] { clip_timestamps_at_regular_timestamps(m, o); }, "must be smaller than end_stream_seconds");
  o.sampling_range_start = std::nullopt;
  o.sampling_range_end = 0;
  expect_invalid([&] { clip_timestamps_at_regular_timestamps(m, o); }, "sampling_range_end (0) must be larger");
  o.sampling_range_start = 5;
  o.sampling_range_end = 4;
  expect_invalid([&] { clip_timestamps_at_regular_timestamps(m, o); }, "sampling range [5, 4) is empty");
  // 200 frames 0.1 s apart do not fit in 10 s: the default end 10 - 19.9 is before the start.
  expect_invalid([&] { clip_timestamps_at_regular_timestamps(m, regular_options(1, 200)); }, "leaves no room");
}

// ---------------- Decoded clips ----------------

fs::path video(const std::string& name) {
  return loom::test::media("video/" + name);
}

// Every frame of `clips` equals what a fresh decoder gives for the same index.
void expect_frames_match_indices(const fs::path& file, const Clips& clips, const Indices& indices,
                                 const DecoderOptions& options = {}) {
  VideoDecoder reference = VideoDecoder::open(file, options);
  ASSERT_EQ(clips.data.size(0), static_cast<int64_t>(indices.size()));
  ASSERT_EQ(clips.pts_seconds.size(), indices.size());
  ASSERT_EQ(clips.duration_seconds.size(), indices.size());
  for (size_t c = 0; c < indices.size(); ++c) {
    ASSERT_EQ(clips.data.size(1), static_cast<int64_t>(indices[c].size()));
    for (size_t f = 0; f < indices[c].size(); ++f) {
      const Frame want = reference.get_frame_at(indices[c][f]);
      const Tensor got = clips.data.select(0, c).select(0, f);
      ASSERT_EQ(std::vector<int64_t>(got.shape().begin(), got.shape().end()),
                std::vector<int64_t>(want.data.shape().begin(), want.data.shape().end()));
      EXPECT_EQ(max_abs_diff(got, want.data), 0) << "clip " << c << " frame " << f << " index " << indices[c][f];
      EXPECT_DOUBLE_EQ(clips.pts_seconds[c][f], want.pts_seconds) << "clip " << c << " frame " << f;
      EXPECT_DOUBLE_EQ(clips.duration_seconds[c][f], want.duration_seconds);
    }
  }
}

TEST(SamplerDecodeTest, RegularIndicesGiveTheDecodersFrames) {
  const fs::path file = video("nasa_13013.mp4");  // 325 frames, B-frames
  VideoDecoder dec = VideoDecoder::open(file);
  const IndexClipOptions o = index_options(3, 4, 2);
  const Clips clips = clips_at_regular_indices(dec, o);
  const Tensor frame = dec.get_frame_at(0).data;  // [3, H, W]
  ASSERT_EQ(std::vector<int64_t>(clips.data.shape().begin(), clips.data.shape().end()),
            (std::vector<int64_t>{3, 4, 3, frame.size(1), frame.size(2)}));
  const Indices indices = clip_indices_at_regular_indices(dec.num_frames(), o);
  EXPECT_EQ(indices.back().back(), dec.num_frames() - 1);  // the last clip ends on the last frame
  expect_frames_match_indices(file, clips, indices);
}

TEST(SamplerDecodeTest, RandomIndicesAreDeterministicAndGiveTheDecodersFrames) {
  const fs::path file = video("nasa_13013.mp4");
  DecoderOptions nhwc;
  nhwc.dimension_order = Layout::kHWC;
  VideoDecoder dec = VideoDecoder::open(file, nhwc);
  const IndexClipOptions o = index_options(4, 3, 5);
  const Clips a = clips_at_random_indices(dec, 2024, o);
  const Tensor frame = dec.get_frame_at(0).data;  // [H, W, 3]
  ASSERT_EQ(std::vector<int64_t>(a.data.shape().begin(), a.data.shape().end()),
            (std::vector<int64_t>{4, 3, frame.size(0), frame.size(1), 3}));
  expect_frames_match_indices(file, a, clip_indices_at_random_indices(dec.num_frames(), 2024, o), nhwc);
  const Clips b = clips_at_random_indices(dec, 2024, o);
  EXPECT_EQ(max_abs_diff(a.data, b.data), 0);
  EXPECT_EQ(a.pts_seconds, b.pts_seconds);
}

TEST(SamplerDecodeTest, RepeatLastAndWrapAtTheEndOfARealVideo) {
  const fs::path file = video("h265_video.mp4");  // 10 frames
  VideoDecoder dec = VideoDecoder::open(file);
  ASSERT_EQ(dec.num_frames(), 10);
  IndexClipOptions o = index_options(2, 4);
  o.sampling_range_start = 8;
  o.sampling_range_end = 10;
  ASSERT_EQ(clip_indices_at_regular_indices(10, o), (Indices{{8, 9, 9, 9}, {9, 9, 9, 9}}));
  const Clips repeat = clips_at_regular_indices(dec, o);
  expect_frames_match_indices(file, repeat, {{8, 9, 9, 9}, {9, 9, 9, 9}});
  o.policy = Policy::kWrap;
  const Clips wrap = clips_at_regular_indices(dec, o);
  expect_frames_match_indices(file, wrap, {{8, 9, 8, 9}, {9, 9, 9, 9}});
  o.policy = Policy::kError;
  expect_invalid([&] { clips_at_regular_indices(dec, o); }, "clips_at_regular_indices: policy kError");
}

// Every frame of `clips` is the one played at the sampling time.
void expect_frames_played_at(const fs::path& file, const Clips& clips, const std::vector<std::vector<double>>& times) {
  VideoDecoder reference = VideoDecoder::open(file);
  ASSERT_EQ(clips.data.size(0), static_cast<int64_t>(times.size()));
  for (size_t c = 0; c < times.size(); ++c) {
    for (size_t f = 0; f < times[c].size(); ++f) {
      const double t = times[c][f];
      const Frame want = reference.get_frame_played_at(t);
      EXPECT_EQ(max_abs_diff(clips.data.select(0, c).select(0, f), want.data), 0) << "clip " << c << " at " << t;
      EXPECT_DOUBLE_EQ(clips.pts_seconds[c][f], want.pts_seconds);
      EXPECT_LE(clips.pts_seconds[c][f], t + 1e-9);
      EXPECT_GT(clips.pts_seconds[c][f] + clips.duration_seconds[c][f], t - 1e-9);
    }
  }
}

TEST(SamplerDecodeTest, RegularTimestampsOnAStreamStartingAfterZero) {
  const fs::path file = video("exo_video_desks.3gp");  // starts at 0.128 s, 71 frames
  VideoDecoder dec = VideoDecoder::open(file);
  const StreamMetadata& m = dec.metadata();
  ASSERT_GT(m.begin_stream_seconds, 0.1);
  TimestampClipOptions o = regular_options(1.0, 3);
  const auto times = clip_timestamps_at_regular_timestamps(m, o);
  ASSERT_GE(times.size(), 3u);
  EXPECT_NEAR(times[0][0], m.begin_stream_seconds, 1e-12);
  EXPECT_NEAR(times[1][0], m.begin_stream_seconds + 1.0, 1e-12);
  EXPECT_NEAR(times[0][1] - times[0][0], 1.0 / m.stream.average_fps, 1e-12);
  const Clips clips = clips_at_regular_timestamps(dec, o);
  ASSERT_EQ(clips.data.size(1), 3);
  expect_frames_played_at(file, clips, times);
}

TEST(SamplerDecodeTest, RandomTimestampsAreDeterministicAndGiveTheFramesPlayedThen) {
  const fs::path file = video("nasa_13013.mp4");
  VideoDecoder dec = VideoDecoder::open(file);
  TimestampClipOptions o;
  o.num_clips = 3;
  o.num_frames_per_clip = 2;
  o.seconds_between_frames = 0.5;
  const Clips a = clips_at_random_timestamps(dec, 99, o);
  const Tensor frame = dec.get_frame_at(0).data;
  ASSERT_EQ(std::vector<int64_t>(a.data.shape().begin(), a.data.shape().end()),
            (std::vector<int64_t>{3, 2, 3, frame.size(1), frame.size(2)}));
  expect_frames_played_at(file, a, clip_timestamps_at_random_timestamps(dec.metadata(), 99, o));
  const Clips b = clips_at_random_timestamps(dec, 99, o);
  EXPECT_EQ(a.pts_seconds, b.pts_seconds);
  EXPECT_EQ(max_abs_diff(a.data, b.data), 0);
  // The policy applies when an explicit range lets a clip run past the end (13 s).
  o.num_clips = 1;
  o.seconds_between_frames = 1;
  o.sampling_range_start = 12.5;
  o.sampling_range_end = 12.9;
  o.num_frames_per_clip = 3;
  const Clips end = clips_at_random_timestamps(dec, 5, o);
  EXPECT_EQ(end.pts_seconds[0][1], end.pts_seconds[0][0]);
  EXPECT_EQ(end.pts_seconds[0][2], end.pts_seconds[0][0]);
  EXPECT_EQ(max_abs_diff(end.data.select(0, 0).select(0, 0), end.data.select(0, 0).select(0, 2)), 0);
  o.policy = Policy::kError;
  expect_invalid([&] { clips_at_random_timestamps(dec, 5, o); }, "clips_at_random_timestamps: policy kError");
}

}  // namespace
}  // namespace loom::video
