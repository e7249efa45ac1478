// The seek rules (video/src/seek_rules.h) on synthetic indices and headers, against values worked out by
// hand: B-frame reordering, variable frame rate, missing durations and keyframes, and the approximate
// rules from a header's count, duration and rate.
#include "seek_rules.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "frame_index.h"
#include "loom/codec/error.h"

namespace loom::video::detail {
namespace {

using Range = std::pair<int64_t, int64_t>;

// A GOP structure I0 P3 B1 B2 I4 P7 B5 B6 in decode order, as a caller's index (from_custom_index sorts
// it): time base 1/30 s, one tick per frame, durations unknown.
ExactSeekRules reordered() {
  const FrameIndex decode_order = {{0, 0, true}, {3, 0, false}, {1, 0, false}, {2, 0, false},
                                   {4, 0, true}, {7, 0, false}, {5, 0, false}, {6, 0, false}};
  return std::move(*exact_rules(from_custom_index(decode_order, "t"), 1, {1, 30}, "t"));
}

TEST(ExactSeekRules, ReorderedFramesAreInPresentationOrder) {
  const ExactSeekRules r = reordered();
  EXPECT_EQ(r.num_frames(), 8);
  EXPECT_EQ(r.first_pts(), 0);
  EXPECT_DOUBLE_EQ(r.begin_seconds(), 0.0);
  EXPECT_DOUBLE_EQ(r.end_seconds(), 8.0 / 30);  // last pts 7 + duration 1 (the previous frame's)
  for (int64_t i = 0; i < 8; ++i) {
    const FrameTarget t = r.target_of(i);
    EXPECT_EQ(t.index, i);
    EXPECT_DOUBLE_EQ(t.seconds, i / 30.0);
    ASSERT_TRUE(t.indexed.has_value());
    EXPECT_EQ(t.indexed->pts, i);
    EXPECT_EQ(t.indexed->key_pts, i < 4 ? 0 : 4) << "frame " << i;
    EXPECT_DOUBLE_EQ(t.indexed->duration_seconds, 1 / 30.0);
  }
}

TEST(ExactSeekRules, TimesNameTheFramePlayedThen) {
  const ExactSeekRules r = reordered();
  EXPECT_EQ(r.index_played_at(0.0), 0);
  EXPECT_EQ(r.index_played_at(2.5 / 30), 2);
  EXPECT_EQ(r.index_played_at(3.0 / 30), 3);  // a frame starts at its pts
  EXPECT_EQ(r.index_played_at(7.99 / 30), 7);
  const FrameTarget t = r.target_played_at(5.5 / 30);
  EXPECT_EQ(t.index, 5);
  EXPECT_DOUBLE_EQ(t.seconds, 5 / 30.0);
  ASSERT_TRUE(t.indexed.has_value());
  EXPECT_EQ(t.indexed->key_pts, 4);
}

TEST(ExactSeekRules, RangesAreHalfOpen) {
  const ExactSeekRules r = reordered();
  EXPECT_EQ(r.indices_played_in(1.0 / 30, 4.0 / 30), Range(1, 4));  // frame 4 starts at the end: left out
  EXPECT_EQ(r.indices_played_in(1.5 / 30, 4.5 / 30), Range(1, 5));  // frame 1 is played at 1.5
  EXPECT_EQ(r.indices_played_in(0.0, 100.0), Range(0, 8));
}

TEST(ExactSeekRules, DescribesTheIndex) {
  const ExactSeekRules r = reordered();
  StreamMetadata m;
  r.describe(m);
  EXPECT_EQ(m.num_frames_from_content, 8);
  EXPECT_EQ(m.key_frame_indices, (std::vector<int64_t>{0, 4}));
  EXPECT_DOUBLE_EQ(m.begin_stream_seconds, 0.0);
  EXPECT_DOUBLE_EQ(m.end_stream_seconds, 8.0 / 30);
}

// Variable frame rate, time base 1 ms: pts 100, 140, 180, 300, 310, 500; durations from the gaps, the last
// one the previous gap (190). No keyframe before index 2, as a scan that starts inside a GOP gives.
TEST(ExactSeekRules, VariableRate) {
  std::vector<IndexedFrame> frames = {{100, 0, false}, {140, 0, false}, {180, 0, true},
                                      {300, 0, false}, {310, 0, false}, {500, 0, true}};
  const auto r = exact_rules(frames, 33, {1, 1000}, "t");
  EXPECT_EQ(r->first_pts(), 100);
  EXPECT_DOUBLE_EQ(r->begin_seconds(), 0.1);
  EXPECT_DOUBLE_EQ(r->end_seconds(), 0.69);
  EXPECT_EQ(r->index_played_at(0.1), 0);
  EXPECT_EQ(r->index_played_at(0.299), 2);
  EXPECT_EQ(r->index_played_at(0.3), 3);
  EXPECT_EQ(r->index_played_at(0.305), 3);
  EXPECT_EQ(r->index_played_at(0.31), 4);
  EXPECT_EQ(r->index_played_at(0.6), 5);
  EXPECT_DOUBLE_EQ(r->target_of(2).indexed->duration_seconds, 0.12);
  EXPECT_DOUBLE_EQ(r->target_of(3).indexed->duration_seconds, 0.01);
  EXPECT_DOUBLE_EQ(r->target_of(5).indexed->duration_seconds, 0.19);
  // Before the first keyframe the first frame is where decoding starts.
  EXPECT_EQ(r->target_of(1).indexed->key_pts, 100);
  EXPECT_EQ(r->target_of(2).indexed->key_pts, 180);
  EXPECT_EQ(r->target_of(4).indexed->key_pts, 180);
  EXPECT_EQ(r->target_of(5).indexed->key_pts, 500);
  EXPECT_EQ(r->indices_played_in(0.2, 0.31), Range(2, 4));
  StreamMetadata m;
  r->describe(m);
  EXPECT_EQ(m.key_frame_indices, (std::vector<int64_t>{2, 5}));
}

TEST(ExactSeekRules, LoneFrameTakesTheFallbackDuration) {
  const auto r = exact_rules({{10, 0, true}}, 3, {1, 10}, "t");
  EXPECT_EQ(r->num_frames(), 1);
  EXPECT_DOUBLE_EQ(r->begin_seconds(), 1.0);
  EXPECT_DOUBLE_EQ(r->end_seconds(), 1.3);
  EXPECT_EQ(r->index_played_at(1.29), 0);
}

TEST(ExactSeekRules, NoFramesIsInvalidInput) {
  try {
    exact_rules({}, 1, {1, 30}, "clip.mp4");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidInput);
    EXPECT_EQ(e.message(), "the video stream holds no frames");
  }
}

// ---- Approximate ----

HeaderTiming header(int64_t frames, double duration, double fps) {
  HeaderTiming h;
  h.num_frames = frames;
  h.duration_seconds = duration;
  h.average_fps = fps;
  h.time_base = {1, 90000};
  return h;
}

TEST(ApproximateSeekRules, FramesFromDurationTimesRate) {
  const auto r = approximate_rules(header(0, 10.0, 25.0));
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->num_frames(), 250);
  EXPECT_EQ(r->first_pts(), 0);
  EXPECT_DOUBLE_EQ(r->begin_seconds(), 0.0);
  EXPECT_DOUBLE_EQ(r->end_seconds(), 10.0);
  // Frame i is the one played at (i + 0.5) / fps; it has no pts to look for.
  for (int64_t i : {0, 1, 100, 249}) {
    const FrameTarget t = r->target_of(i);
    EXPECT_EQ(t.index, i);
    EXPECT_DOUBLE_EQ(t.seconds, (i + 0.5) / 25);
    EXPECT_FALSE(t.indexed.has_value());
  }
  EXPECT_EQ(r->index_played_at(0.0), 0);
  EXPECT_EQ(r->index_played_at(0.039), 0);
  EXPECT_EQ(r->index_played_at(0.04), 1);  // frame 1 starts at 1 / fps
  EXPECT_EQ(r->index_played_at(9.999), 249);
  EXPECT_EQ(r->indices_played_in(0.04, 0.12), Range(1, 3));
  EXPECT_EQ(r->indices_played_in(0.05, 0.13), Range(1, 4));
  EXPECT_EQ(r->indices_played_in(9.9, 100.0), Range(247, 250));
  // A time is decoded as such: no index.
  const FrameTarget t = r->target_played_at(1.234);
  EXPECT_EQ(t.index, -1);
  EXPECT_DOUBLE_EQ(t.seconds, 1.234);
  EXPECT_FALSE(t.indexed.has_value());
}

TEST(ApproximateSeekRules, HeaderCountWinsAndStartTimeShifts) {
  HeaderTiming h = header(100, 10.0, 25.0);
  h.start_pts = 9000;  // 0.1 s
  const auto r = approximate_rules(h);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->num_frames(), 100);
  EXPECT_EQ(r->first_pts(), 9000);
  EXPECT_DOUBLE_EQ(r->begin_seconds(), 0.1);
  EXPECT_DOUBLE_EQ(r->end_seconds(), 10.1);  // begin + the header's duration, not begin + 100 / 25
  EXPECT_DOUBLE_EQ(r->target_of(0).seconds, 0.1 + 0.5 / 25);
  EXPECT_EQ(r->index_played_at(0.14), 1);
  // Past the counted frames, times clamp to the last one; a range there is empty.
  EXPECT_EQ(r->index_played_at(9.0), 99);
  EXPECT_EQ(r->indices_played_in(9.0, 9.5), Range(100, 100));
  StreamMetadata m;
  r->describe(m);
  EXPECT_DOUBLE_EQ(m.begin_stream_seconds, 0.1);
  EXPECT_DOUBLE_EQ(m.end_stream_seconds, 10.1);
  EXPECT_FALSE(m.num_frames_from_content.has_value());
  EXPECT_TRUE(m.key_frame_indices.empty());
}

TEST(ApproximateSeekRules, EndFromCountWithoutDuration) {
  const auto r = approximate_rules(header(50, -1, 25.0));
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->num_frames(), 50);
  EXPECT_DOUBLE_EQ(r->end_seconds(), 2.0);
}

TEST(ApproximateSeekRules, NothingToTrustMeansScan) {
  EXPECT_EQ(approximate_rules(header(0, -1, 25.0)), nullptr);    // neither count nor duration
  EXPECT_EQ(approximate_rules(header(100, 4.0, 0.0)), nullptr);  // no rate
  EXPECT_EQ(approximate_rules(header(0, 0.01, 25.0)), nullptr);  // rounds to 0 frames
}

TEST(FrameTarget, BatchOrder) {
  // Indexed targets in index order; targets without an index (approximate times) in time order.
  EXPECT_TRUE(decode_before({1, 0.5, std::nullopt}, {2, 0.1, std::nullopt}));
  EXPECT_FALSE(decode_before({2, 0.1, std::nullopt}, {2, 0.1, std::nullopt}));
  EXPECT_TRUE(decode_before({-1, 0.1, std::nullopt}, {-1, 0.2, std::nullopt}));
  EXPECT_FALSE(decode_before({-1, 0.2, std::nullopt}, {-1, 0.1, std::nullopt}));
}

}  // namespace
}  // namespace loom::video::detail
