#include "color_convert.h"

#include <new>

#include "loom/codec/error.h"

namespace loom::video::detail {

void ColorConverter::convert(const AVFrame& frame, uint8_t* dst, int dst_stride) {
  if (!sws_ || frame.width != in_width_ || frame.height != in_height_ || frame.format != in_format_ ||
      frame.colorspace != in_colorspace_ || frame.color_range != in_range_) {
    sws_.reset(sws_getContext(frame.width, frame.height, static_cast<AVPixelFormat>(frame.format), out_width_,
                              out_height_, AV_PIX_FMT_RGB24, kSwsFlags, nullptr, nullptr, nullptr));
    if (!sws_) {
      throw Error(ErrorCode::kUnsupported, "",
                  "cannot convert this pixel format to RGB (swscale refused the conversion)");
    }
    int* inv_table = nullptr;
    int* table = nullptr;
    int src_range = 0, dst_range = 0, brightness = 0, contrast = 0, saturation = 0;
    sws_getColorspaceDetails(sws_.get(), &inv_table, &src_range, &table, &dst_range, &brightness, &contrast,
                             &saturation);
    int colorspace = frame.colorspace;
    if (colorspace < 1 || colorspace > 10 || colorspace == 8) colorspace = AVCOL_SPC_BT470BG;
    const int* coefficients = sws_getCoefficients(colorspace);
    if (frame.color_range != AVCOL_RANGE_UNSPECIFIED) src_range = frame.color_range == AVCOL_RANGE_JPEG;
    sws_setColorspaceDetails(sws_.get(), coefficients, src_range, coefficients, dst_range, brightness, contrast,
                             saturation);
    in_width_ = frame.width;
    in_height_ = frame.height;
    in_format_ = frame.format;
    in_colorspace_ = frame.colorspace;
    in_range_ = frame.color_range;
  }
  uint8_t* planes[4] = {dst, nullptr, nullptr, nullptr};
  int strides[4] = {dst_stride, 0, 0, 0};
  const int rows = sws_scale(sws_.get(), frame.data, frame.linesize, 0, frame.height, planes, strides);
  if (rows != out_height_) throw Error(ErrorCode::kInternal, "", "swscale wrote fewer rows than asked");
}

}  // namespace loom::video::detail
