// YUV (or any FFmpeg pixel format) to RGB24, with optional resize in the same pass: swscale, or loom's
// 4:2:0 kernel (yuv420_rgb.h) where it gives swscale's bytes. Private to loom::video.
#pragma once

extern "C" {
#include <libavutil/frame.h>
#include <libswscale/swscale.h>
}

#include <cstdint>
#include <optional>
#include <vector>

#include "loom/codec/internal/ffmpeg_handles.h"
#include "loom/codec/layout.h"
#include "yuv420_rgb.h"

namespace loom::video::detail {

// swscale flags of every conversion; tests convert with the same flags on the ffmpeg side.
inline constexpr int kSwsFlags = SWS_BILINEAR;

// Converts decoded frames to RGB24 at a fixed output size. The matrix and range come from each frame
// the way the ffmpeg CLI's scale filter takes them (FFmpeg 5.1, in_color_matrix=auto): the frame's
// colorspace (BT.601 when unspecified or not one swscale knows), its color_range when specified (else
// the pixel format's: full for yuvj*). The swscale context is rebuilt when the input changes.
//
// An 8-bit 4:2:0 frame (yuv420p, yuvj420p) at least 64 pixels wide, of even height, kept at its size,
// can go through loom's kernel instead (convert_direct): swscale then takes its unscaled path, whose
// arithmetic the kernel runs. When the context is built, a probe frame of the input's width
// (pseudo-random samples) is converted both ways, and the kernel is used only if every byte agrees:
// another FFmpeg version or CPU falls back to swscale. The answer is kept for the process, per width,
// pixel format and colour details.
class ColorConverter {
 public:
  ColorConverter(int out_width, int out_height) : out_width_(out_width), out_height_(out_height) {}
  int out_width() const { return out_width_; }
  int out_height() const { return out_height_; }
  // Writes `frame` as RGB24 into `dst`: out_height rows of out_width * 3 bytes (kHWC) or three planes
  // R, G, B (kCHW), nothing past them. loom's kernel where it gives swscale's bytes, else swscale.
  void convert(const AVFrame& frame, uint8_t* dst, Layout layout);
  // The two ways, for tests: the kernel (false, nothing written, where it would not give swscale's
  // bytes) and swscale (through a scratch frame: its SIMD may write whole vectors past a row's end).
  bool convert_direct(const AVFrame& frame, uint8_t* dst, Layout layout);
  void convert_swscale(const AVFrame& frame, uint8_t* dst, Layout layout);

 private:
  // (Re)builds the swscale context and decides on the kernel when `frame` differs from the last input.
  void configure(const AVFrame& frame);

  int out_width_, out_height_;
  ffmpeg::UniqueSws sws_;
  std::optional<Yuv420Coefficients> direct_;  // the kernel's coefficients, if it matched swscale
  int in_width_ = 0, in_height_ = 0, in_format_ = -1, in_colorspace_ = -1, in_range_ = -1;
  std::vector<uint8_t> scratch_;  // swscale's padded RGB24 frame
};

}  // namespace loom::video::detail
