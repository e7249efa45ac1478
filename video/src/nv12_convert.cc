#include "nv12_convert.h"

extern "C" {
#include <libswscale/swscale.h>
}

namespace loom::video::detail {

YuvCoefficients yuv_coefficients(int colorspace, bool full_range) {
  // The colorspaces ColorConverter hands to swscale (color_convert.cc); others are BT.601.
  if (colorspace < 1 || colorspace > 10 || colorspace == 8) colorspace = AVCOL_SPC_BT470BG;
  const int* table = sws_getCoefficients(colorspace);  // crv, cbu, cgu, cgv (16.16, all positive)
  YuvCoefficients c;
  c.crv = table[0];
  c.cbu = table[1];
  c.cgu = table[2];
  c.cgv = table[3];
  if (full_range) {
    c.cy = 1 << 16;
    c.y_offset = 0;
    c.crv = c.crv * 224 / 255;
    c.cbu = c.cbu * 224 / 255;
    c.cgu = c.cgu * 224 / 255;
    c.cgv = c.cgv * 224 / 255;
  } else {
    c.cy = ((int64_t{1} << 16) * 255 + 219 / 2) / 219;
    c.y_offset = 16;
  }
  return c;
}

bool is_full_range(const AVFrame& frame, AVPixelFormat format) {
  if (frame.color_range != AVCOL_RANGE_UNSPECIFIED) return frame.color_range == AVCOL_RANGE_JPEG;
  return format == AV_PIX_FMT_YUVJ420P || format == AV_PIX_FMT_YUVJ422P || format == AV_PIX_FMT_YUVJ444P ||
         format == AV_PIX_FMT_YUVJ440P || format == AV_PIX_FMT_YUVJ411P;
}

bool is_nv12_like(AVPixelFormat format) {
  return format == AV_PIX_FMT_NV12 || format == AV_PIX_FMT_P010LE || format == AV_PIX_FMT_P016LE;
}

Nv12Plan nv12_plan(const AVFrame& frame, AVPixelFormat format, uint8_t* dst, Layout layout) {
  Nv12Plan plan;
  plan.luma = frame.data[0];
  plan.chroma = frame.data[1];
  plan.luma_pitch = frame.linesize[0];
  plan.chroma_pitch = frame.linesize[1];
  plan.width = frame.width;
  plan.height = frame.height;
  plan.sixteen_bit = format != AV_PIX_FMT_NV12;
  // swscale's unscaled 4:2:0 to RGB path (8-bit, even height) repeats chroma rows; its scaler
  // (every other case) interpolates them.
  plan.chroma_linear = plan.sixteen_bit || frame.height % 2 != 0;
  plan.coefficients = yuv_coefficients(frame.colorspace, is_full_range(frame, format));
  plan.dst = dst;
  plan.planar = layout == Layout::kCHW;
  return plan;
}

}  // namespace loom::video::detail
