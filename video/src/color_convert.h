// YUV (or any FFmpeg pixel format) to packed RGB24, with optional resize in the same pass.
// Private to loom::video.
#pragma once

extern "C" {
#include <libavutil/frame.h>
#include <libswscale/swscale.h>
}

#include <cstdint>

#include "loom/codec/internal/ffmpeg_handles.h"

namespace loom::video::detail {

// swscale flags of every conversion; tests convert with the same flags on the ffmpeg side.
inline constexpr int kSwsFlags = SWS_BILINEAR;

// Converts decoded frames to RGB24 at a fixed output size. The matrix and range come from each frame
// the way the ffmpeg CLI's scale filter takes them (FFmpeg 5.1, in_color_matrix=auto): the frame's
// colorspace (BT.601 when unspecified or not one swscale knows), its color_range when specified (else
// the pixel format's: full for yuvj*). The swscale context is rebuilt when the input changes.
class ColorConverter {
 public:
  ColorConverter(int out_width, int out_height) : out_width_(out_width), out_height_(out_height) {}
  int out_width() const { return out_width_; }
  int out_height() const { return out_height_; }
  // Writes out_height rows of out_width * 3 bytes, `dst_stride` bytes apart.
  void convert(const AVFrame& frame, uint8_t* dst, int dst_stride);

 private:
  int out_width_, out_height_;
  ffmpeg::UniqueSws sws_;
  int in_width_ = 0, in_height_ = 0, in_format_ = -1, in_colorspace_ = -1, in_range_ = -1;
};

}  // namespace loom::video::detail
