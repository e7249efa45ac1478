// ColorConverter's direct conversion by loom's 4:2:0 kernel (video/src/yuv420_rgb.h) gives swscale's own
// bytes (x86: the arithmetic of swscale's x86 converter) or declines. yuv420_rgb_hwy_test.cc checks the
// kernel's targets against the scalar reference.
#include <gtest/gtest.h>

extern "C" {
#include <libavutil/frame.h>
}

#include <random>
#include <vector>

#include "color_convert.h"
#include "loom/codec/internal/ffmpeg_handles.h"

namespace loom::video::detail {
namespace {

ffmpeg::UniqueFrame random_frame(int width, int height, AVPixelFormat format, int colorspace, int range,
                                 std::mt19937& rng) {
  ffmpeg::UniqueFrame frame(av_frame_alloc());
  frame->width = width;
  frame->height = height;
  frame->format = format;
  frame->colorspace = static_cast<AVColorSpace>(colorspace);
  frame->color_range = static_cast<AVColorRange>(range);
  EXPECT_EQ(av_frame_get_buffer(frame.get(), 0), 0);
  for (int plane = 0; plane < 3; ++plane) {
    const int rows = plane == 0 ? height : (height + 1) / 2;
    for (int r = 0; r < rows; ++r) {
      for (int x = 0; x < frame->linesize[plane]; ++x) frame->data[plane][r * frame->linesize[plane] + x] = rng();
    }
  }
  return frame;
}

#if defined(__x86_64__) || defined(__i386__)
// Every colour matrix swscale knows, both ranges (given by the frame, or yuvj420p's full range),
// widths with and without a whole vector's multiple: the direct conversion is taken and equals swscale.
TEST(Yuv420Rgb, DirectConversionIsSwscaleBitForBit) {
  std::mt19937 rng(5);
  int checked = 0;
  for (AVPixelFormat format : {AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUVJ420P}) {
    for (int colorspace : {AVCOL_SPC_UNSPECIFIED, AVCOL_SPC_BT709, AVCOL_SPC_FCC, AVCOL_SPC_BT470BG,
                           AVCOL_SPC_SMPTE170M, AVCOL_SPC_SMPTE240M, AVCOL_SPC_BT2020_NCL}) {
      for (int range : {AVCOL_RANGE_UNSPECIFIED, AVCOL_RANGE_MPEG, AVCOL_RANGE_JPEG}) {
        for (auto [width, height] : {std::pair{480, 270}, {854, 48}, {65, 16}, {130, 2}}) {
          const ffmpeg::UniqueFrame frame = random_frame(width, height, format, colorspace, range, rng);
          ColorConverter converter(width, height);
          for (Layout layout : {Layout::kHWC, Layout::kCHW}) {
            std::vector<uint8_t> got(static_cast<size_t>(width) * height * 3), want(got.size());
            ASSERT_TRUE(converter.convert_direct(*frame, got.data(), layout))
                << width << "x" << height << " colorspace " << colorspace << " range " << range;
            converter.convert_swscale(*frame, want.data(), layout);
            ASSERT_EQ(got, want) << width << "x" << height << " colorspace " << colorspace << " range " << range
                                 << " format " << format << (layout == Layout::kCHW ? " CHW" : " HWC");
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_EQ(checked, 2 * 7 * 3 * 4 * 2);
}
#endif

// What swscale converts otherwise stays with swscale: an odd height (its scaler, not the unscaled
// path), a resize, other pixel formats; and frames narrower than 64 pixels (no gain).
TEST(Yuv420Rgb, DirectConversionDeclinesWhatSwscaleConvertsOtherwise) {
  std::mt19937 rng(6);
  std::vector<uint8_t> out(64 * 64 * 3);
  const auto declines = [&](int width, int height, AVPixelFormat format, int out_width, int out_height) {
    const ffmpeg::UniqueFrame frame = random_frame(width, height, format, AVCOL_SPC_BT709, AVCOL_RANGE_MPEG, rng);
    ColorConverter converter(out_width, out_height);
    return !converter.convert_direct(*frame, out.data(), Layout::kHWC);
  };
  EXPECT_TRUE(declines(64, 15, AV_PIX_FMT_YUV420P, 64, 15));
  EXPECT_TRUE(declines(64, 16, AV_PIX_FMT_YUV420P, 32, 8));
  EXPECT_TRUE(declines(64, 16, AV_PIX_FMT_YUV444P, 64, 16));
  EXPECT_TRUE(declines(64, 16, AV_PIX_FMT_YUV422P, 64, 16));
  EXPECT_TRUE(declines(64, 16, AV_PIX_FMT_YUV420P10LE, 64, 16));
  EXPECT_TRUE(declines(62, 16, AV_PIX_FMT_YUV420P, 62, 16));
#if defined(__x86_64__) || defined(__i386__)
  EXPECT_FALSE(declines(64, 16, AV_PIX_FMT_YUV420P, 64, 16));  // 64 wide, an even height, kept at its size
#endif
}

}  // namespace
}  // namespace loom::video::detail
