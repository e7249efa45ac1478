// VideoDecoder on every video of the corpus, against PyAV (frame count, pts), ffprobe (count, custom
// frame index) and the ffmpeg CLI's rgb24 conversion (pixels, also resized).
#include "loom/video/decoder.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "decoder_util.h"
#include "loom/codec/error.h"

namespace loom::video {
namespace {
using namespace loom::video::test;

constexpr int kTolerance = 2;  // per channel, vs ffmpeg's own rgb24 conversion

// Frames [N, H, W, 3] of `f` in NHWC whatever its layout.
Tensor as_nhwc(const Tensor& t, Layout layout) {
  return layout == Layout::kHWC ? t : t.permute({0, 2, 3, 1});
}

class DecoderCorpusTest : public ::testing::TestWithParam<fs::path> {};

TEST_P(DecoderCorpusTest, CountAndPtsMatchPyAVAndSequentialDecodeMatchesRandomAccess) {
  const fs::path file = GetParam();
  VideoDecoder dec = VideoDecoder::open(file);
  const StreamMetadata& m = dec.metadata();
  nlohmann::json p;
  p["file"] = file.string();
  p["stream"] = m.stream.index;
  auto ref = loom::test::run_python_reference("video_timestamps_pyav.py", {}, p.dump());
  ASSERT_TRUE(ref.count("pts"));
  const int64_t n = dec.num_frames();
  EXPECT_EQ(n, *ref["count_pyav"].data<int64_t>());
  EXPECT_EQ(n, *ref["count_ffprobe"].data<int64_t>());
  ASSERT_EQ(m.num_frames_from_content, n);
  ASSERT_EQ(ref["pts"].numel(), n);
  const double* want_pts = ref["pts"].data<double>();

  // Decode everything in chunks (sequential decoding), checking every pts and duration.
  std::vector<Tensor> sequential;
  for (int64_t start = 0; start < n; start += 64) {
    Frames f = dec.get_frames_in_range(start, start + 64);
    ASSERT_EQ(f.data.size(0), std::min<int64_t>(64, n - start));
    for (int64_t i = 0; i < f.data.size(0); ++i) {
      EXPECT_NEAR(f.pts_seconds[i], want_pts[start + i], 1e-9) << "frame " << start + i;
      EXPECT_GT(f.duration_seconds[i], 0) << "frame " << start + i;
    }
    sequential.push_back(f.data);
  }
  auto seq_frame = [&](int64_t i) { return sequential[i / 64].select(0, i % 64); };
  EXPECT_NEAR(m.begin_stream_seconds, want_pts[0], 1e-9);
  EXPECT_GT(m.end_stream_seconds, want_pts[n - 1]);
  ASSERT_FALSE(m.key_frame_indices.empty());
  EXPECT_EQ(m.key_frame_indices.front(), 0);

  // Random access (fresh decoder, backwards and forwards) gives the sequential frames.
  VideoDecoder fresh = VideoDecoder::open(file);
  std::mt19937 rng(42);
  std::vector<int64_t> order = {n - 1, 0, n / 2, n / 3, n - 1, static_cast<int64_t>(rng() % n), 1 % n};
  for (int64_t k : m.key_frame_indices) {
    order.push_back(k);
    if (k > 0) order.push_back(k - 1);
  }
  for (int64_t i : order) {
    Frame f = fresh.get_frame_at(i);
    EXPECT_NEAR(f.pts_seconds, want_pts[i], 1e-9) << "frame " << i;
    EXPECT_EQ(max_abs_diff(f.data, seq_frame(i)), 0) << "frame " << i << " differs from the sequential decode";
  }

  // Played-at: times between pts values give the frame playing then.
  std::vector<double> times;
  std::vector<int64_t> expected;
  for (int64_t i : {int64_t{0}, n / 2, n - 1}) {
    const double next = i + 1 < n ? want_pts[i + 1] : m.end_stream_seconds;
    times.push_back(want_pts[i] + (next - want_pts[i]) * 0.5);
    expected.push_back(i);
    times.push_back(want_pts[i]);
    expected.push_back(i);
  }
  Frames played = dec.get_frames_played_at(times);
  for (size_t j = 0; j < times.size(); ++j) {
    EXPECT_NEAR(played.pts_seconds[j], want_pts[expected[j]], 1e-9) << "t=" << times[j];
    EXPECT_EQ(max_abs_diff(played.data.select(0, j), seq_frame(expected[j])), 0) << "t=" << times[j];
    EXPECT_EQ(dec.index_played_at(times[j]), expected[j]) << "t=" << times[j];
  }
  EXPECT_NEAR(dec.get_frame_played_at(times[0]).pts_seconds, want_pts[0], 1e-9);
  // Half-open ranges: [pts(1), pts(n-1)) holds frames 1 .. n-2.
  if (n >= 3) {
    Frames r = dec.get_frames_played_in_range(want_pts[1], want_pts[n - 1]);
    ASSERT_EQ(r.data.size(0), n - 2);
    EXPECT_NEAR(r.pts_seconds.front(), want_pts[1], 1e-9);
    EXPECT_NEAR(r.pts_seconds.back(), want_pts[n - 2], 1e-9);
  }
  EXPECT_EQ(dec.get_frames_played_in_range(want_pts[0], want_pts[0]).data.size(0), 0);
}

TEST_P(DecoderCorpusTest, FramesMatchFfmpegRgb24) {
  const fs::path file = GetParam();
  Tensor nchw_frames;  // as NHWC: the NHWC decode must give the same bytes (it may skip the scratch frame)
  for (Layout layout : {Layout::kCHW, Layout::kHWC}) {
    DecoderOptions o;
    o.dimension_order = layout;
    VideoDecoder dec = VideoDecoder::open(file, o);
    const int64_t n = dec.num_frames();
    const StreamMetadata& m = dec.metadata();
    // first, last, middle, random, repeated, unsorted, negative
    std::mt19937 rng(7);
    std::vector<int64_t> asked = {n / 2, 0, -1, static_cast<int64_t>(rng() % n), n / 2, static_cast<int64_t>(rng() % n),
                                  0};
    Frames f = dec.get_frames_at(asked);
    ASSERT_EQ(f.data.size(0), static_cast<int64_t>(asked.size()));
    if (layout == Layout::kCHW) {
      EXPECT_EQ(f.data.size(1), 3);
      EXPECT_EQ(f.data.size(2), m.stream.height);
      EXPECT_EQ(f.data.size(3), m.stream.width);
    } else {
      EXPECT_EQ(f.data.size(1), m.stream.height);
      EXPECT_EQ(f.data.size(2), m.stream.width);
      EXPECT_EQ(f.data.size(3), 3);
    }
    std::vector<int64_t> normalized;
    for (int64_t i : asked) normalized.push_back(i < 0 ? i + n : i);
    std::vector<int64_t> unique(normalized);
    std::sort(unique.begin(), unique.end());
    unique.erase(std::unique(unique.begin(), unique.end()), unique.end());
    const Tensor ref = ffmpeg_frames(file, m.stream.index, unique, m.stream.height, m.stream.width, false);
    ASSERT_TRUE(ref.defined());
    const Tensor got = as_nhwc(f.data, layout);
    if (layout == Layout::kCHW) {
      nchw_frames = got;
    } else {
      EXPECT_EQ(max_abs_diff(got, nchw_frames), 0) << "NHWC and NCHW frames differ";
    }
    for (size_t j = 0; j < asked.size(); ++j) {
      const int64_t u = std::lower_bound(unique.begin(), unique.end(), normalized[j]) - unique.begin();
      const int d = max_abs_diff(got.select(0, j), ref.select(0, u));
      EXPECT_LE(d, kTolerance) << "frame " << normalized[j] << " (asked " << asked[j] << ")";
      if (layout == Layout::kCHW) RecordProperty("max_diff_frame_" + std::to_string(normalized[j]), d);
    }
  }
}

TEST_P(DecoderCorpusTest, OutputSizeMatchesFfmpegScale) {
  const fs::path file = GetParam();
  DecoderOptions o;
  o.output_size = Size{100, 150};
  VideoDecoder dec = VideoDecoder::open(file, o);
  const int64_t n = dec.num_frames();
  std::vector<int64_t> idx = {0, n / 2, n - 1};
  std::sort(idx.begin(), idx.end());
  idx.erase(std::unique(idx.begin(), idx.end()), idx.end());
  Frames f = dec.get_frames_at(idx);
  ASSERT_EQ(f.data.size(2), 100);
  ASSERT_EQ(f.data.size(3), 150);
  const Tensor ref = ffmpeg_frames(file, dec.metadata().stream.index, idx, 100, 150, true);
  ASSERT_TRUE(ref.defined());
  for (size_t j = 0; j < idx.size(); ++j) {
    const int d = max_abs_diff(f.data.permute({0, 2, 3, 1}).select(0, j), ref.select(0, j));
    EXPECT_LE(d, kTolerance) << "frame " << idx[j];
    RecordProperty("max_diff_resized_frame_" + std::to_string(idx[j]), d);
  }
}

TEST_P(DecoderCorpusTest, SetOutputSizeAfterOpeningEqualsTheOption) {
  const fs::path file = GetParam();
  DecoderOptions o;
  o.output_size = Size{100, 150};
  VideoDecoder given = VideoDecoder::open(file, o);
  VideoDecoder later = VideoDecoder::open(file);
  const int64_t last = later.num_frames() - 1;
  const Tensor full = later.get_frame_at(last).data;
  EXPECT_EQ(full.size(1), later.metadata().stream.height);
  later.set_output_size(Size{100, 150});
  const Tensor a = given.get_frame_at(last).data, b = later.get_frame_at(last).data;
  ASSERT_EQ(b.size(1), 100);
  ASSERT_EQ(b.size(2), 150);
  EXPECT_EQ(max_abs_diff(a, b), 0);
  later.set_output_size(std::nullopt);
  EXPECT_EQ(max_abs_diff(later.get_frame_at(last).data, full), 0);
  EXPECT_EQ(loom::test::error_code_of([&] { later.set_output_size(Size{0, 10}); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(loom::test::error_code_of([&] { later.set_output_size(Size{100000, 100000}); }), ErrorCode::kLimitExceeded);
}

TEST_P(DecoderCorpusTest, CustomIndexFromFfprobeGivesTheSameFrames) {
  const fs::path file = GetParam();
  VideoDecoder exact = VideoDecoder::open(file);
  DecoderOptions o;
  o.custom_index = ffprobe_frame_index(file, exact.metadata().stream.index);
  o.stream_index = exact.metadata().stream.index;
  VideoDecoder custom = VideoDecoder::open(file, o);
  const int64_t n = exact.num_frames();
  ASSERT_EQ(custom.num_frames(), n);
  EXPECT_EQ(custom.metadata().key_frame_indices, exact.metadata().key_frame_indices);
  const std::vector<int64_t> idx = {n - 1, 0, n / 2, n / 2 + 1 < n ? n / 2 + 1 : 0};
  Frames a = exact.get_frames_at(idx);
  Frames b = custom.get_frames_at(idx);
  EXPECT_EQ(max_abs_diff(a.data, b.data), 0);
  EXPECT_EQ(a.pts_seconds, b.pts_seconds);
}

TEST_P(DecoderCorpusTest, ApproximateModeAgreesOnConstantRateFiles) {
  const fs::path file = GetParam();
  VideoDecoder exact = VideoDecoder::open(file);
  DecoderOptions o;
  o.seek_mode = SeekMode::kApproximate;
  VideoDecoder approx = VideoDecoder::open(file, o);
  EXPECT_FALSE(approx.metadata().num_frames_from_content.has_value() && approx.metadata().stream.num_frames > 0 &&
               approx.metadata().stream.average_fps > 0)
      << "approximate mode scanned although the header has what it needs";
  // Constant frame rate with a truthful header: the header's count is right and frame i starts at
  // begin + i / fps (within a quarter frame).
  const StreamMetadata& m = exact.metadata();
  const int64_t n = exact.num_frames();
  bool cfr = m.stream.average_fps > 0 && approx.num_frames() == n;
  if (cfr) {
    DecoderOptions tiny;
    tiny.output_size = Size{2, 2};
    VideoDecoder scan = VideoDecoder::open(file, tiny);
    const Frames all = scan.get_frames_in_range(0, n);
    for (int64_t i = 0; i < n && cfr; ++i) {
      cfr = std::abs(all.pts_seconds[i] - (m.begin_stream_seconds + i / m.stream.average_fps)) <
            0.25 / m.stream.average_fps;
    }
  }
  if (!cfr) {
    // Documented: approximate mode may pick other frames here (variable rate, or a header count
    // that differs from the content); only check that it decodes.
    RecordProperty("approximate_compared", 0);
    EXPECT_GT(approx.num_frames(), 0);
    EXPECT_TRUE(approx.get_frame_at(0).data.defined());
    return;
  }
  RecordProperty("approximate_compared", 1);
  const std::vector<int64_t> idx = {0, n / 2, n - 1, 1 % n};
  for (int64_t i : idx) {
    Frame a = exact.get_frame_at(i);
    Frame b = approx.get_frame_at(i);
    EXPECT_NEAR(a.pts_seconds, b.pts_seconds, 1e-6) << "frame " << i;
    EXPECT_EQ(max_abs_diff(a.data, b.data), 0) << "frame " << i;
    EXPECT_EQ(approx.index_played_at(a.pts_seconds + 0.5 / m.stream.average_fps), i) << "frame " << i;
  }
}

TEST_P(DecoderCorpusTest, MemoryBufferEqualsPath) {
  const fs::path file = GetParam();
  VideoDecoder a = VideoDecoder::open(file);
  const std::vector<uint8_t> bytes = loom::test::read_bytes(file);
  VideoDecoder b = VideoDecoder::open(ByteSource::from_memory(bytes, "buffer"));
  ASSERT_EQ(a.num_frames(), b.num_frames());
  const std::vector<int64_t> idx = {0, -1};
  EXPECT_EQ(max_abs_diff(a.get_frames_at(idx).data, b.get_frames_at(idx).data), 0);
}

// get_frames_at skips the non-reference frames before each asked frame (AVDISCARD_NONREF while the
// packets sent hold earlier frames): on a long GOP with B-frames (x264 -bf 3, B-pyramid: referenced and
// non-referenced B-frames), any set of indices gives exactly the frames of a sequential decode.
TEST(DecoderSkipTest, RandomFramesOfALongGopBFrameVideoEqualSequentialDecode) {
  loom::test::TempDir dir;
  const fs::path file = dir / "long_gop_bf3.mp4";
  const std::string make =
      "ffmpeg -v error -f lavfi -i testsrc2=size=128x96:rate=25 -frames:v 200 -c:v libx264 "
      "-preset veryfast -g 120 -keyint_min 120 -sc_threshold 0 -bf 3 -pix_fmt yuv420p " +
      loom::test::shell_quote(file.string());
  ASSERT_EQ(std::system(make.c_str()), 0);
  for (int threads : {1, 2}) {
    SCOPED_TRACE("num_threads " + std::to_string(threads));
    DecoderOptions o;
    o.num_threads = threads;
    VideoDecoder seq = VideoDecoder::open(file, o);
    ASSERT_EQ(seq.num_frames(), 200);
    ASSERT_EQ(seq.metadata().key_frame_indices, (std::vector<int64_t>{0, 120}));
    const Frames all = seq.get_frames_in_range(0, 200);
    std::mt19937 rng(7 + threads);
    for (int round = 0; round < 12; ++round) {
      std::vector<int64_t> idx;
      const int count = 1 + static_cast<int>(rng() % 12);
      for (int j = 0; j < count; ++j) idx.push_back(static_cast<int64_t>(rng() % 200));
      if (round == 0) idx = {119, 118, 199, 1, 120, 121, 3, 2, 117};
      VideoDecoder dec = VideoDecoder::open(file, o);
      const Frames got = dec.get_frames_at(idx);
      for (size_t j = 0; j < idx.size(); ++j) {
        EXPECT_DOUBLE_EQ(got.pts_seconds[j], all.pts_seconds[idx[j]]) << "frame " << idx[j];
        EXPECT_EQ(max_abs_diff(got.data.select(0, j), all.data.select(0, idx[j])), 0)
            << "frame " << idx[j] << " (round " << round << ") differs from the sequential decode";
      }
      // One at a time on the same decoder (forward and backward steps).
      for (int64_t i : idx) {
        EXPECT_EQ(max_abs_diff(dec.get_frame_at(i).data, all.data.select(0, i)), 0) << "frame " << i;
      }
    }
  }
}

// The decode work each request costs (decode_stats), in both seek modes, on B-frame H.264 with a
// keyframe every 50 frames, in MP4 (whose index holds decode timestamps, 2 frames ahead of the
// keyframes' pts) and Matroska (whose cues hold pts). A sequential pass decodes each packet once; a
// frame costs the packets from its keyframe to it, or from the frame before when that is in its GOP
// (approximate mode once looked the keyframe up by pts in MP4's index of dts, found the next GOP's,
// and sought back to the GOP's start, decoding it twice).
class DecodeWorkTest : public ::testing::TestWithParam<std::string> {
 protected:
  static constexpr int64_t kFrames = 200, kGop = 50, kFps = 25;

  static void SetUpTestSuite() {
    dir_ = new loom::test::TempDir;
    for (const char* ext : {"mp4", "mkv"}) {
      const std::string make =
          "ffmpeg -v error -f lavfi -i testsrc2=size=96x64:rate=25 -frames:v 200 -c:v libx264 -preset veryfast "
          "-g 50 -keyint_min 50 -sc_threshold 0 -bf 3 -pix_fmt yuv420p " +
          loom::test::shell_quote((*dir_ / (std::string("gop50.") + ext)).string());
      ASSERT_EQ(std::system(make.c_str()), 0);
    }
  }
  static void TearDownTestSuite() { delete dir_; }

  static VideoDecoder open(SeekMode mode) {
    DecoderOptions o;
    o.seek_mode = mode;
    o.output_size = Size{16, 16};
    return VideoDecoder::open(*dir_ / ("gop50." + GetParam()), o);
  }
  static double time_of(int64_t i) { return (i + 0.5) / kFps; }

  // One seek, and at most the packets of `frames` frames from a keyframe (the packets sent run ahead of
  // the frames returned by the B-frame delay, 3). The decoder drops the non-reference frames before
  // the asked one (H.264), so a long run decodes fewer frames than it sends packets.
  static void expect_gop_work(const DecodeStats& s, int64_t frames) {
    EXPECT_EQ(s.seeks, 1);
    EXPECT_LE(s.packets_sent, frames + 3);
    EXPECT_LE(s.frames_decoded, frames);
    if (frames > 10) EXPECT_LT(s.frames_decoded, frames * 3 / 4) << "non-reference frames were not dropped";
  }

  static inline loom::test::TempDir* dir_ = nullptr;
};

TEST_P(DecodeWorkTest, ASequentialPassDecodesEachPacketOnce) {
  for (SeekMode mode : {SeekMode::kExact, SeekMode::kApproximate}) {
    SCOPED_TRACE(mode == SeekMode::kExact ? "exact" : "approximate");
    VideoDecoder by_time = open(mode);
    ASSERT_EQ(by_time.num_frames(), kFrames);
    for (int64_t i = 0; i < kFrames; ++i) by_time.get_frame_played_at(time_of(i));
    VideoDecoder by_index = open(mode);
    for (int64_t i = 0; i < kFrames; ++i) by_index.get_frame_at(i);
    for (const DecodeStats& s : {by_time.decode_stats(), by_index.decode_stats()}) {
      EXPECT_EQ(s.seeks, 1);
      EXPECT_EQ(s.packets_sent, kFrames);
      EXPECT_EQ(s.frames_decoded, kFrames);
    }
  }
}

TEST_P(DecodeWorkTest, AFrameAloneCostsItsGopUpToIt) {
  for (SeekMode mode : {SeekMode::kExact, SeekMode::kApproximate}) {
    for (int64_t i : {0, 1, 47, 48, 49, 50, 51, 98, 99, 100, 148, 149, 173, 199}) {
      SCOPED_TRACE(fmt::format("{}, frame {}", mode == SeekMode::kExact ? "exact" : "approximate", i));
      const int64_t from_key = i % kGop + 1;  // frames from the keyframe to i, both included
      for (bool by_time : {false, true}) {
        VideoDecoder dec = open(mode);
        const Frame f = by_time ? dec.get_frame_played_at(time_of(i)) : dec.get_frame_at(i);
        EXPECT_NEAR(f.pts_seconds, static_cast<double>(i) / kFps, 1e-9);
        expect_gop_work(dec.decode_stats(), from_key);
      }
    }
  }
}

TEST_P(DecodeWorkTest, AStepForwardWithinAGopDecodesOn) {
  for (SeekMode mode : {SeekMode::kExact, SeekMode::kApproximate}) {
    for (auto [a, b] : {std::pair<int64_t, int64_t>{10, 48}, {10, 49}, {60, 98}, {151, 199}}) {
      SCOPED_TRACE(fmt::format("{}, frame {} then {}", mode == SeekMode::kExact ? "exact" : "approximate", a, b));
      for (bool by_time : {false, true}) {
        VideoDecoder dec = open(mode);
        for (int64_t i : {a, b}) by_time ? dec.get_frame_played_at(time_of(i)) : dec.get_frame_at(i);
        expect_gop_work(dec.decode_stats(), b % kGop + 1);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Containers, DecodeWorkTest, ::testing::Values("mp4", "mkv"));

INSTANTIATE_TEST_SUITE_P(Corpus, DecoderCorpusTest, ::testing::ValuesIn(video_corpus()),
                         [](const ::testing::TestParamInfo<fs::path>& p) { return param_name(p.param); });

}  // namespace
}  // namespace loom::video
