// JPEG decode through libjpeg-turbo's libjpeg API: ISLOW DCT and fancy upsampling (libjpeg's
// defaults, as Pillow), DCT-domain scaling, partial decode, a progressive scan limit.
#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <string>
#include <vector>

#include "exif.h"
#include "image_codecs.h"
#include "jpeg_handles.h"
#include "loom/codec/error.h"
#include "pixel_rows.h"
#include "whole_image.h"

namespace loom::vision {
namespace {

constexpr int kExifMarker = JPEG_APP0 + 1;
constexpr int kStripRows = 16;  // rows per jpeg_read_scanlines call

[[noreturn]] void fail(const ByteSource& src, const JpegErrorManager& err) {
  if (err.too_many_scans) {
    throw Error(ErrorCode::kLimitExceeded, src.name(),
                fmt::format("progressive JPEG has more than {} scans", err.max_scans));
  }
  if (err.truncated)
    throw Error(ErrorCode::kInvalidInput, src.name(), "truncated JPEG: the data ends before the image");
  const std::string msg = err.message;
  // libjpeg's words for valid files it cannot decode (12-bit, lossless or hierarchical JPEG, odd color
  // spaces); everything else it reports is damage.
  const bool unsupported = msg.rfind("Unsupported JPEG data precision", 0) == 0 ||
                           msg.rfind("Unsupported JPEG process", 0) == 0 ||
                           msg.rfind("Unsupported color conversion", 0) == 0;
  throw Error(unsupported ? ErrorCode::kUnsupported : ErrorCode::kInvalidInput, src.name(), "JPEG: " + msg);
}

bool is_cmyk(J_COLOR_SPACE cs) {
  return cs == JCS_CMYK || cs == JCS_YCCK;
}

// Reads the header (and, when asked, the APP1 marker) of `src` into `d`.
void read_header(JpegDecompressor& d, const ByteSource& src, const Limits& limits, bool want_exif) {
  check_input_size(src, limits);
  d.err.max_scans = limits.max_jpeg_scans;
  const bool ok = guarded(d.err, [&] {
    jpeg_mem_src(&d.cinfo, src.data(), static_cast<unsigned long>(src.size()));
    if (want_exif) jpeg_save_markers(&d.cinfo, kExifMarker, 0xFFFF);
    jpeg_read_header(&d.cinfo, TRUE);
  });
  if (!ok) fail(src, d.err);
  if (limits.max_bytes != 0)
    d.cinfo.mem->max_memory_to_use = static_cast<long>(std::min<uint64_t>(limits.max_bytes, LONG_MAX));
}

int orientation_of(const jpeg_decompress_struct& cinfo) {
  for (jpeg_saved_marker_ptr m = cinfo.marker_list; m != nullptr; m = m->next) {
    if (m->marker == kExifMarker && m->data_length >= 6 && std::equal(m->data, m->data + 6, "Exif\0\0")) {
      return exif_orientation({m->data, m->data_length});
    }
  }
  return 1;
}

int unchanged_channels(const jpeg_decompress_struct& cinfo) {
  return cinfo.jpeg_color_space == JCS_GRAYSCALE ? 1 : 3;
}

// Smallest M/8 (M = 1..8) whose scaled size covers the hint (libjpeg rounds scaled sizes up).
int scale_numerator(int width, int height, int min_width, int min_height) {
  for (int m = 1; m < 8; ++m) {
    const int w = (width * m + 7) / 8, h = (height * m + 7) / 8;
    if (w >= min_width && h >= min_height) return m;
  }
  return 8;
}

}  // namespace

ImageInfo jpeg_info(const ByteSource& src, const Limits& limits) {
  JpegDecompressor d;
  read_header(d, src, limits, /*want_exif=*/true);
  ImageInfo info;
  info.format = Format::kJpeg;
  info.width = static_cast<int>(d.cinfo.image_width);
  info.height = static_cast<int>(d.cinfo.image_height);
  info.channels = unchanged_channels(d.cinfo);
  info.bit_depth = d.cinfo.data_precision;
  info.orientation = orientation_of(d.cinfo);
  info.progressive = d.cinfo.progressive_mode;
  return info;
}

Tensor decode_jpeg_to(const ByteSource& src, const DecodeOptions& opt, const Tensor* into) {
  JpegDecompressor d;
  jpeg_decompress_struct& cinfo = d.cinfo;
  read_header(d, src, opt.limits, opt.apply_exif_orientation);
  check_image_size(opt.limits, src.name(), cinfo.image_width, cinfo.image_height, cinfo.num_components, 1);
  // Read now: the saved markers are freed when decompression ends.
  const int orientation = opt.apply_exif_orientation ? orientation_of(cinfo) : 1;

  const bool cmyk = is_cmyk(cinfo.jpeg_color_space);
  const int channels = mode_channels(opt.mode, unchanged_channels(cinfo));
  // What libjpeg emits; anything it cannot emit directly is converted row by row afterwards.
  int decoded_channels = channels;
  if (cmyk) {
    cinfo.out_color_space = JCS_CMYK;
    decoded_channels = 4;
  } else if (channels <= 2) {
    cinfo.out_color_space = JCS_GRAYSCALE;
    decoded_channels = 1;
  } else {
    cinfo.out_color_space = channels == 4 ? JCS_EXT_RGBA : JCS_RGB;
  }
  if (opt.min_width > 0 || opt.min_height > 0) {
    cinfo.scale_num = scale_numerator(cinfo.image_width, cinfo.image_height, opt.min_width, opt.min_height);
    cinfo.scale_denom = 8;
  }

  // Phase 1: start decompression (a progressive file is read whole here) and set up the crop.
  JDIMENSION crop_x = 0, crop_y = 0, crop_w = 0, crop_h = 0, skip_x = 0;
  if (!guarded(d.err, [&] { jpeg_calc_output_dimensions(&cinfo); })) fail(src, d.err);
  crop_w = cinfo.output_width;
  crop_h = cinfo.output_height;
  if (opt.crop) {
    const Rect area =
        clip_crop(*opt.crop, static_cast<int>(cinfo.output_width), static_cast<int>(cinfo.output_height), src.name());
    crop_x = static_cast<JDIMENSION>(area.x);
    crop_y = static_cast<JDIMENSION>(area.y);
    crop_w = static_cast<JDIMENSION>(area.width);
    crop_h = static_cast<JDIMENSION>(area.height);
  }
  const int out_w = static_cast<int>(crop_w), out_h = static_cast<int>(crop_h);
  Tensor out = output_tensor(orientation == 1 ? into : nullptr, image_shape(opt.layout, out_h, out_w, channels),
                             DType::kUInt8, src.name());
  if (!guarded(d.err, [&] {
        jpeg_start_decompress(&cinfo);
        if (crop_w != cinfo.output_width) {
          // Widens the window to iMCU boundaries; our columns then start skip_x into each row.
          JDIMENSION x = crop_x, w = crop_w;
          jpeg_crop_scanline(&cinfo, &x, &w);
          skip_x = crop_x - x;
        }
        if (crop_y > 0) jpeg_skip_scanlines(&cinfo, crop_y);
      })) {
    fail(src, d.err);
  }

  // Phase 2: rows. Direct into the output when libjpeg's rows already are the output's rows.
  const RowSink<uint8_t> sink(out, opt.layout, out_h, out_w, channels);
  const bool direct =
      sink.interleaved() && !cmyk && decoded_channels == channels && skip_x == 0 && cinfo.output_width == crop_w;
  const size_t decoded_row = static_cast<size_t>(cinfo.output_width) * decoded_channels;
  std::vector<uint8_t> strip(direct ? 0 : decoded_row * kStripRows);
  std::vector<uint8_t> converted(direct ? 0 : static_cast<size_t>(out_w) * channels);
  JSAMPROW rows[kStripRows];
  int y = 0;
  const bool ok = guarded(d.err, [&] {
    while (y < out_h) {
      const int n = std::min(kStripRows, out_h - y);
      for (int i = 0; i < n; ++i) rows[i] = direct ? sink.row(y + i) : strip.data() + i * decoded_row;
      const int got = static_cast<int>(jpeg_read_scanlines(&cinfo, rows, static_cast<JDIMENSION>(n)));
      if (direct) {
        y += got;
        continue;
      }
      for (int i = 0; i < got; ++i, ++y) {
        const uint8_t* row = rows[i] + static_cast<size_t>(skip_x) * decoded_channels;
        if (cmyk) {
          cmyk_to_rows(row, out_w, channels, converted.data());
          row = converted.data();
        } else if (channels == 2) {
          gray_to_gray_alpha(row, out_w, converted.data());
          row = converted.data();
        }
        sink.write(y, row);
      }
    }
    // No jpeg_finish_decompress: every pixel is in, and what may follow (trailing markers, or no EOI
    // at all) does not change them.
    jpeg_abort_decompress(&cinfo);
  });
  if (!ok) fail(src, d.err);
  return apply_orientation(out, opt.layout, orientation);
}

Tensor decode_jpeg(const ByteSource& src, const DecodeOptions& opt) {
  return decode_jpeg_to(src, opt, nullptr);
}

}  // namespace loom::vision
