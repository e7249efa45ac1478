// The NV12/P010 -> RGB reference (nv12_plan.h, the arithmetic the CUDA kernel runs) against the CPU
// backend (swscale) on real frames: software-decoded yuv420p / yuv420p10le frames repacked losslessly
// into NV12 / P010 (what NVDEC hands over for the same stream) must convert within the bound
// docs/video.md states: 2 levels for 8-bit sources, 4 for 10-bit ones.
#include <gtest/gtest.h>

extern "C" {
#include <libavutil/pixdesc.h>
}

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "decode_backend.h"
#include "loom/codec/internal/ffmpeg_handles.h"
#include "nv12_convert.h"
#include "nv12_kernels.h"
#include "nv12_util.h"
#include "test_media.h"

namespace loom::video::detail {
namespace {

// The CPU backend's frame for `frame` and the reference's for its repacked twin, in `layout`.
Diff compare(const AVFrame& frame, Layout layout, int colorspace_override = -1) {
  const size_t bytes = static_cast<size_t>(frame.width) * frame.height * 3;
  std::vector<uint8_t> cpu(bytes), ref(bytes, 0x5A);
  make_cpu_backend()->convert(frame, {cpu.data(), frame.width, frame.height, layout});
  SemiPlanar sp = repack(frame);
  if (colorspace_override >= 0) sp.frame->colorspace = static_cast<AVColorSpace>(colorspace_override);
  nv12_to_rgb_reference(nv12_plan(*sp.frame, sp.format, ref.data(), layout));
  return diff(cpu, ref);
}

struct Clip {
  const char* file;
  int max_diff;
  double max_mean;
};

class Nv12ReferenceTest : public ::testing::TestWithParam<Clip> {};

TEST_P(Nv12ReferenceTest, WithinBoundOfSwscale) {
  const Clip clip = GetParam();
  const auto frames = decode_frames(loom::test::media(std::string("video/") + clip.file).string(), 4);
  ASSERT_EQ(frames.size(), 4u);
  for (const auto& frame : frames) {
    ASSERT_TRUE(frame->format == AV_PIX_FMT_YUV420P || frame->format == AV_PIX_FMT_YUVJ420P ||
                frame->format == AV_PIX_FMT_YUV420P10LE)
        << av_get_pix_fmt_name(static_cast<AVPixelFormat>(frame->format));
    for (Layout layout : {Layout::kCHW, Layout::kHWC}) {
      const Diff d = compare(*frame, layout);
      EXPECT_LE(d.max, clip.max_diff) << clip.file << " pts " << frame->pts;
      EXPECT_LE(d.mean, clip.max_mean) << clip.file << " pts " << frame->pts;
    }
  }
}

// BT.709 limited (nasa), BT.601 full range (yuvj420p, smpte170m), unspecified (BT.601) limited, a
// 1280x720 BT.709 VP9, 10-bit H.264 with unspecified colour, 10-bit VP9 in BT.2020 (non-constant).
INSTANTIATE_TEST_SUITE_P(Corpus, Nv12ReferenceTest,
                         ::testing::Values(Clip{"nasa_13013.mp4", 2, 0.75},
                                           Clip{"exo_sample_with_increasing_timestamps_320w_240h.mp4", 2, 0.75},
                                           Clip{"exo_video_1.mp4", 2, 0.75}, Clip{"moviepy_no_duration.webm", 2, 0.75},
                                           Clip{"h264_10bits.mp4", 4, 1.5},
                                           Clip{"exo_roadtrip-vp92-10bit.webm", 4, 1.5}),
                         [](const ::testing::TestParamInfo<Clip>& info) {
                           std::string name = info.param.file;
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

// The bound is tight enough to catch a wrong matrix: BT.601 on a BT.709 clip is far outside it.
TEST(Nv12ReferenceTest, WrongMatrixFails) {
  const auto frames = decode_frames(loom::test::media("video/nasa_13013.mp4").string(), 1);
  ASSERT_EQ(frames.size(), 1u);
  ASSERT_EQ(frames[0]->colorspace, AVCOL_SPC_BT709);
  EXPECT_GT(compare(*frames[0], Layout::kHWC, AVCOL_SPC_BT470BG).max, 8);
}

// Sizes, on a synthetic frame with smooth colour and sharp chroma edges: even heights (swscale's
// unscaled 8-bit path, its scaler for 10-bit) keep the stated bound, also with odd widths (the last
// chroma column serves one luma column). An odd height is outside it: swscale scales its chroma
// rows by (h + 1) / 2 : h rather than 1 : 2, which the reference does not follow, so chroma edges
// differ by more there (docs/video.md says so); the looser bound below records how much.
TEST(Nv12ReferenceTest, OddAndEvenSizes) {
  for (auto [w, h] :
       {std::pair{33, 17}, std::pair{34, 18}, std::pair{7, 5}, std::pair{2, 2}, std::pair{33, 18}, std::pair{34, 17}}) {
    for (AVPixelFormat format : {AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUV420P10LE}) {
      ffmpeg::UniqueFrame frame(av_frame_alloc());
      frame->width = w;
      frame->height = h;
      frame->format = format;
      frame->colorspace = AVCOL_SPC_BT709;
      frame->color_range = AVCOL_RANGE_MPEG;
      ASSERT_EQ(av_frame_get_buffer(frame.get(), 0), 0);
      const bool ten = format == AV_PIX_FMT_YUV420P10LE;
      auto set = [&](int plane, int x, int y, int v8) {
        uint8_t* row = frame->data[plane] + static_cast<ptrdiff_t>(y) * frame->linesize[plane];
        if (!ten) {
          row[x] = static_cast<uint8_t>(v8);
        } else {
          const int v = v8 * 4 + (x + y) % 4;
          row[2 * x] = static_cast<uint8_t>(v & 0xFF);
          row[2 * x + 1] = static_cast<uint8_t>(v >> 8);
        }
      };
      for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) set(0, x, y, 20 + (200 * x) / std::max(w - 1, 1) - (y > h / 2 ? 10 : 0));
      }
      for (int y = 0; y < (h + 1) / 2; ++y) {
        for (int x = 0; x < (w + 1) / 2; ++x) {
          set(1, x, y, 100 + 3 * x + (y % 3 == 0 ? 12 : 0));
          set(2, x, y, 150 - 2 * y);
        }
      }
      for (Layout layout : {Layout::kCHW, Layout::kHWC}) {
        const Diff d = compare(*frame, layout);
        const int bound = h % 2 != 0 ? 20 : (ten ? (w % 2 != 0 ? 6 : 4) : 2);
        EXPECT_LE(d.max, bound) << w << "x" << h << (ten ? " 10-bit" : " 8-bit");
      }
    }
  }
}

// The colorspaces swscale does not know (or does not distinguish) take the coefficients ColorConverter
// gives them: BT.601 for unspecified, reserved and YCgCo; BT.2020 constant luminance as non-constant.
TEST(Nv12ReferenceTest, CoefficientsFollowSwscale) {
  auto same = [](const YuvCoefficients& a, const YuvCoefficients& b) {
    return a.cy == b.cy && a.y_offset == b.y_offset && a.crv == b.crv && a.cbu == b.cbu && a.cgu == b.cgu &&
           a.cgv == b.cgv;
  };
  const YuvCoefficients bt601 = yuv_coefficients(AVCOL_SPC_BT470BG, false);
  for (int cs : {int{AVCOL_SPC_RGB}, int{AVCOL_SPC_UNSPECIFIED}, int{AVCOL_SPC_RESERVED}, int{AVCOL_SPC_YCGCO},
                 int{AVCOL_SPC_SMPTE170M}, 42}) {
    EXPECT_TRUE(same(yuv_coefficients(cs, false), bt601)) << cs;
  }
  EXPECT_TRUE(same(yuv_coefficients(AVCOL_SPC_BT2020_CL, true), yuv_coefficients(AVCOL_SPC_BT2020_NCL, true)));
  EXPECT_FALSE(same(yuv_coefficients(AVCOL_SPC_BT709, false), bt601));
  // Limited range: 255/219 from 16; full range: unit gain, chroma scaled by 224/255.
  EXPECT_EQ(bt601.y_offset, 16);
  EXPECT_NEAR(static_cast<double>(bt601.cy) / 65536, 255.0 / 219, 1e-4);
  EXPECT_NEAR(static_cast<double>(bt601.crv) / 65536, 1.402 * 255 / 224, 1e-3);
  const YuvCoefficients full = yuv_coefficients(AVCOL_SPC_BT470BG, true);
  EXPECT_EQ(full.y_offset, 0);
  EXPECT_EQ(full.cy, 65536);
  EXPECT_NEAR(static_cast<double>(full.crv) / 65536, 1.402, 1e-3);
}

}  // namespace
}  // namespace loom::video::detail
