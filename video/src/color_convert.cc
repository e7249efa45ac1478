#include "color_convert.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <mutex>
#include <new>
#include <vector>

#include "loom/accel/interleave.h"
#include "loom/codec/error.h"

namespace loom::video::detail {
namespace {

bool is_yuv420_8bit(int format) {
  return format == AV_PIX_FMT_YUV420P || format == AV_PIX_FMT_YUVJ420P;
}

// Narrower frames gain nothing from the kernel, whose vectors hold up to 64 pixels (it converts rows
// narrower than a vector one pixel at a time).
constexpr int kMinDirectWidth = 64;

ffmpeg::UniqueSws make_context(int in_width, int in_height, int format, int out_width, int out_height) {
  ffmpeg::UniqueSws sws(sws_getContext(in_width, in_height, static_cast<AVPixelFormat>(format), out_width, out_height,
                                       AV_PIX_FMT_RGB24, kSwsFlags, nullptr, nullptr, nullptr));
  if (!sws) {
    throw Error(ErrorCode::kUnsupported, "",
                "cannot convert this pixel format to RGB (swscale refused the conversion)");
  }
  return sws;
}

// sws_setColorspaceDetails' arguments, as sws_getColorspaceDetails reports them.
struct ColorDetails {
  int* inv_table = nullptr;
  int* table = nullptr;
  int src_range = 0, dst_range = 0, brightness = 0, contrast = 0, saturation = 0;
};

ColorDetails details_of(SwsContext* sws) {
  ColorDetails d;
  sws_getColorspaceDetails(sws, &d.inv_table, &d.src_range, &d.table, &d.dst_range, &d.brightness, &d.contrast,
                           &d.saturation);
  return d;
}

void set_details(SwsContext* sws, const ColorDetails& d) {
  sws_setColorspaceDetails(sws, d.inv_table, d.src_range, d.table, d.dst_range, d.brightness, d.contrast, d.saturation);
}

// The kernel's plan for `frame`'s planes into `dst`.
Yuv420Plan yuv420_plan(const AVFrame& frame, const Yuv420Coefficients& coefficients, uint8_t* dst, Layout layout) {
  Yuv420Plan plan;
  plan.y = frame.data[0], plan.u = frame.data[1], plan.v = frame.data[2];
  plan.y_pitch = frame.linesize[0], plan.u_pitch = frame.linesize[1], plan.v_pitch = frame.linesize[2];
  plan.width = frame.width, plan.height = frame.height;
  plan.coefficients = coefficients;
  plan.dst = dst;
  plan.planar = layout == Layout::kCHW;
  return plan;
}

// `frame` through `sws` (whose output is out_width x out_height RGB24) into `dst` in `layout`: swscale
// writes into `scratch`, its rows padded for its whole-vector stores, whose rows are then copied (kHWC)
// or de-interleaved (kCHW).
void swscale_to(SwsContext* sws, const AVFrame& frame, int out_width, int out_height, uint8_t* dst, Layout layout,
                std::vector<uint8_t>& scratch) {
  const size_t row = static_cast<size_t>(out_width) * 3;
  const size_t stride = (row + 63) / 64 * 64 + 64;
  scratch.resize(stride * static_cast<size_t>(out_height) + 256);
  uint8_t* planes[4] = {scratch.data(), nullptr, nullptr, nullptr};
  const int strides[4] = {static_cast<int>(stride), 0, 0, 0};
  if (sws_scale(sws, frame.data, frame.linesize, 0, frame.height, planes, strides) != out_height) {
    throw Error(ErrorCode::kInternal, "", "swscale wrote fewer rows than asked");
  }
  if (layout == Layout::kHWC) {
    for (int y = 0; y < out_height; ++y) std::memcpy(dst + y * row, scratch.data() + y * stride, row);
    return;
  }
  const size_t plane = static_cast<size_t>(out_width) * out_height;
  for (int y = 0; y < out_height; ++y) {
    const size_t at = static_cast<size_t>(y) * out_width;
    uint8_t* rgb[3] = {dst + at, dst + plane + at, dst + 2 * plane + at};
    accel::deinterleave(scratch.data() + y * stride, static_cast<size_t>(out_width), 3, rgb);
  }
}

// Whether the kernel with `coefficients` gives the bytes of swscale set up with `details` for a
// `format` frame `width` wide: both convert a probe frame of that width and at least 2^17 pixels of
// pseudo-random samples (allocated as FFmpeg allocates decoded frames).
bool kernel_matches_swscale(int width, int format, const ColorDetails& details,
                            const Yuv420Coefficients& coefficients) {
  const int height = std::max(2, ((1 << 17) / width + 1) & ~1);
  ffmpeg::UniqueFrame probe(av_frame_alloc());
  if (!probe) throw std::bad_alloc();
  probe->width = width;
  probe->height = height;
  probe->format = format;
  if (av_frame_get_buffer(probe.get(), 0) < 0) throw std::bad_alloc();
  uint32_t state = 0x9E3779B9u;
  for (int plane = 0; plane < 3; ++plane) {
    const int rows = plane == 0 ? height : height / 2;
    uint8_t* bytes = probe->data[plane];
    for (int64_t i = 0; i < static_cast<int64_t>(rows) * probe->linesize[plane]; ++i) {
      state = state * 1664525u + 1013904223u;
      bytes[i] = static_cast<uint8_t>(state >> 24);
    }
  }
  ffmpeg::UniqueSws sws = make_context(width, height, format, width, height);
  set_details(sws.get(), details);
  std::vector<uint8_t> want(static_cast<size_t>(width) * height * 3), got(want.size()), scratch;
  swscale_to(sws.get(), *probe, width, height, want.data(), Layout::kHWC, scratch);
  yuv420_to_rgb(yuv420_plan(*probe, coefficients, got.data(), Layout::kHWC));
  return got == want;
}

// kernel_matches_swscale, asked once per process for each width, pixel format and set of colour
// details: the answer depends on nothing else (the FFmpeg and the CPU stay), and a loader that opens
// many videos of one size would otherwise pay a probe (about 0.5 ms at 480x270) for every decoder.
// Thread safe; two threads asking at once may both probe.
bool kernel_matches_swscale_once(int width, int format, const ColorDetails& d, const Yuv420Coefficients& coefficients) {
  using Key = std::array<int, 10>;
  static std::mutex mutex;
  static std::map<Key, bool> answers;
  const Key key{width,          format,      d.inv_table[0], d.inv_table[1], d.inv_table[2],
                d.inv_table[3], d.src_range, d.brightness,   d.contrast,     d.saturation};
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (const auto it = answers.find(key); it != answers.end()) return it->second;
  }
  const bool matches = kernel_matches_swscale(width, format, d, coefficients);
  const std::lock_guard<std::mutex> lock(mutex);
  answers.emplace(key, matches);
  return matches;
}

}  // namespace

void ColorConverter::configure(const AVFrame& frame) {
  if (sws_ && frame.width == in_width_ && frame.height == in_height_ && frame.format == in_format_ &&
      frame.colorspace == in_colorspace_ && frame.color_range == in_range_) {
    return;
  }
  sws_ = make_context(frame.width, frame.height, frame.format, out_width_, out_height_);
  ColorDetails details = details_of(sws_.get());
  int colorspace = frame.colorspace;
  if (colorspace < 1 || colorspace > 10 || colorspace == 8) colorspace = AVCOL_SPC_BT470BG;
  const int* coefficients = sws_getCoefficients(colorspace);
  if (frame.color_range != AVCOL_RANGE_UNSPECIFIED) details.src_range = frame.color_range == AVCOL_RANGE_JPEG;
  details.inv_table = const_cast<int*>(coefficients);
  details.table = details.inv_table;
  set_details(sws_.get(), details);
  in_width_ = frame.width;
  in_height_ = frame.height;
  in_format_ = frame.format;
  in_colorspace_ = frame.colorspace;
  in_range_ = frame.color_range;

  direct_.reset();
  if (is_yuv420_8bit(frame.format) && frame.width >= kMinDirectWidth && frame.height % 2 == 0 &&
      frame.width == out_width_ && frame.height == out_height_) {
    const Yuv420Coefficients c = swscale_yuv420_coefficients(details.inv_table, details.src_range != 0,
                                                             details.brightness, details.contrast, details.saturation);
    if (kernel_matches_swscale_once(frame.width, frame.format, details, c)) direct_ = c;
  }
}

void ColorConverter::convert(const AVFrame& frame, uint8_t* dst, Layout layout) {
  if (!convert_direct(frame, dst, layout)) convert_swscale(frame, dst, layout);
}

bool ColorConverter::convert_direct(const AVFrame& frame, uint8_t* dst, Layout layout) {
  configure(frame);
  if (!direct_) return false;
  yuv420_to_rgb(yuv420_plan(frame, *direct_, dst, layout));
  return true;
}

void ColorConverter::convert_swscale(const AVFrame& frame, uint8_t* dst, Layout layout) {
  configure(frame);
  swscale_to(sws_.get(), frame, out_width_, out_height_, dst, layout, scratch_);
}

}  // namespace loom::video::detail
