// The Nv12Plan (nv12_plan.h) of a decoded NV12/P010/P016 frame: the frame's own matrix and range
// taken as ColorConverter (color_convert.h) takes them for swscale, so that the GPU conversion
// follows the CPU one. Private to loom::video.
#pragma once

extern "C" {
#include <libavutil/frame.h>
#include <libavutil/pixfmt.h>
}

#include <cstdint>

#include "loom/codec/layout.h"
#include "nv12_plan.h"

namespace loom::video::detail {

// swscale's coefficients (sws_getCoefficients) for `colorspace` (an AVColorSpace: BT.709, FCC,
// BT.470BG, SMPTE 170M, SMPTE 240M, BT.2020 (non-constant and constant luminance alike, as swscale);
// BT.601 for unspecified and every other value), with the range rule of sws_setColorspaceDetails:
// limited range scales luma by 255/219 from 16, full range scales chroma by 224/255.
YuvCoefficients yuv_coefficients(int colorspace, bool full_range);

// Whether `frame` is full range: its color_range when set, else its pixel format's (yuvj*: full),
// as ColorConverter decides. `format` is the pixel format of the samples (the sw_format of a
// hardware frame).
bool is_full_range(const AVFrame& frame, AVPixelFormat format);

// True for the semi-planar 4:2:0 formats the plan converts: NV12, P010 and P016 (little-endian).
bool is_nv12_like(AVPixelFormat format);

// The plan converting `frame`, whose samples are in `format` (is_nv12_like) at frame.data[0] (luma)
// and frame.data[1] (U,V) with frame.linesize pitches, into `dst` at the frame's size in `layout`.
// Chroma is read as swscale reads it for that frame (nv12_plan.h): linear vertically unless the
// samples are 8-bit and the height is even.
Nv12Plan nv12_plan(const AVFrame& frame, AVPixelFormat format, uint8_t* dst, Layout layout);

}  // namespace loom::video::detail
