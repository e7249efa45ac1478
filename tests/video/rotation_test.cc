// DecoderOptions::apply_rotation on the corpus' phone clips (display matrix rotation 90 and -90):
// frames equal the ffmpeg CLI's autorotated rgb24 frames (ffmpeg's default) within the tolerance of
// the other pixel tests, in both layouts, with output_size naming the size of the turned frames; off,
// the coded frames come back, as before.
#include <gtest/gtest.h>

#include <numeric>

#include "decoder_util.h"
#include "loom/video/decoder.h"

namespace loom::video {
namespace {
using namespace loom::video::test;

constexpr int kTolerance = 2;  // per channel, as decoder_test.cc

// The ffmpeg CLI's frames [N, H, W, 3] of every frame of the best video stream, turned as it shows them.
Tensor ffmpeg_upright(const fs::path& file, int stream, int64_t n, int height, int width) {
  nlohmann::json p;
  p["file"] = file.string();
  p["stream"] = stream;
  std::vector<int64_t> all(static_cast<size_t>(n));
  std::iota(all.begin(), all.end(), 0);
  p["indices"] = all;
  p["sws_flags"] = "bilinear";
  p["out_height"] = height;
  p["out_width"] = width;
  p["autorotate"] = true;
  auto out = loom::test::run_python_reference("video_frames_ffmpeg.py", {}, p.dump());
  return out.count("frames") ? out["frames"] : Tensor();
}

class RotationTest : public ::testing::TestWithParam<const char*> {};

TEST_P(RotationTest, FramesEqualFfmpegsAutorotate) {
  const fs::path file = loom::test::media(GetParam());
  for (Layout layout : {Layout::kCHW, Layout::kHWC}) {
    DecoderOptions options;
    options.apply_rotation = true;
    options.dimension_order = layout;
    VideoDecoder decoder = VideoDecoder::open(file, options);
    const StreamInfo& s = decoder.metadata().stream;
    ASSERT_EQ(std::abs(s.rotation), 90) << "the clip is turned sideways";
    const Frames f = decoder.get_frames_in_range(0, decoder.num_frames());
    const Tensor got = layout == Layout::kHWC ? f.data : f.data.permute({0, 2, 3, 1});
    ASSERT_EQ(got.size(1), s.width) << "a quarter turn swaps height and width";
    ASSERT_EQ(got.size(2), s.height);
    const Tensor ref = ffmpeg_upright(file, s.index, decoder.num_frames(), s.width, s.height);
    ASSERT_TRUE(ref.defined());
    EXPECT_LE(max_abs_diff(got, ref), kTolerance);
  }
}

TEST_P(RotationTest, OutputSizeIsTheTurnedFramesSize) {
  DecoderOptions options;
  options.apply_rotation = true;
  options.output_size = Size{100, 60};  // height x width of what comes back
  VideoDecoder decoder = VideoDecoder::open(loom::test::media(GetParam()), options);
  const Frame f = decoder.get_frame_at(0);
  EXPECT_EQ(f.data.size(1), 100);
  EXPECT_EQ(f.data.size(2), 60);
}

TEST_P(RotationTest, OffByDefault) {
  VideoDecoder decoder = VideoDecoder::open(loom::test::media(GetParam()));
  const StreamInfo& s = decoder.metadata().stream;
  const Frame f = decoder.get_frame_at(0);
  EXPECT_EQ(f.data.size(1), s.height);
  EXPECT_EQ(f.data.size(2), s.width);
}

INSTANTIATE_TEST_SUITE_P(PhoneClips, RotationTest,
                         ::testing::Values("video/exo_video_1.mp4", "video/decord_video_90.mov"),
                         [](const ::testing::TestParamInfo<const char*>& p) {
                           return std::string(p.param).find("exo") != std::string::npos ? "plus90" : "minus90";
                         });

}  // namespace
}  // namespace loom::video
