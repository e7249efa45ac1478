// JPEG encode through libjpeg-turbo's libjpeg API.
#include <fmt/format.h>

#include "jpeg_handles.h"
#include "loom/codec/error.h"
#include "pixel_rows.h"

namespace loom::vision {

std::vector<uint8_t> encode_jpeg(const Tensor& image, const JpegEncodeOptions& opt) {
  if (image.dtype() != DType::kUInt8) {
    throw Error(ErrorCode::kInvalidInput, "encode_jpeg",
                fmt::format("needs uint8 pixels, got {}", to_string(image.dtype())));
  }
  if (opt.quality < 1 || opt.quality > 100) {
    throw Error(ErrorCode::kInvalidInput, "encode_jpeg", fmt::format("quality {} is outside 1..100", opt.quality));
  }
  if (opt.restart_interval < 0 || opt.restart_interval > 65535) {
    throw Error(ErrorCode::kInvalidInput, "encode_jpeg",
                fmt::format("restart interval {} is outside 0..65535", opt.restart_interval));
  }
  RowSource<uint8_t> rows(image, opt.layout);
  if (rows.channels() != 1 && rows.channels() != 3) {
    throw Error(ErrorCode::kInvalidInput, "encode_jpeg", fmt::format("needs 1 or 3 channels, got {}", rows.channels()));
  }
  if (rows.width() <= 0 || rows.height() <= 0 || rows.width() > JPEG_MAX_DIMENSION ||
      rows.height() > JPEG_MAX_DIMENSION) {
    throw Error(ErrorCode::kInvalidInput, "encode_jpeg",
                fmt::format("size {}x{} is outside 1..{}", rows.width(), rows.height(), JPEG_MAX_DIMENSION));
  }
  JpegCompressor c;
  jpeg_compress_struct& cinfo = c.cinfo;
  const bool ok = guarded(c.err, [&] {
    jpeg_mem_dest(&cinfo, &c.buffer, &c.size);
    cinfo.image_width = static_cast<JDIMENSION>(rows.width());
    cinfo.image_height = static_cast<JDIMENSION>(rows.height());
    cinfo.input_components = rows.channels();
    cinfo.in_color_space = rows.channels() == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, opt.quality, TRUE);
    if (rows.channels() == 3) {
      const int h = opt.subsampling == ChromaSubsampling::k444 ? 1 : 2;
      const int v = opt.subsampling == ChromaSubsampling::k420 ? 2 : 1;
      cinfo.comp_info[0].h_samp_factor = h;
      cinfo.comp_info[0].v_samp_factor = v;
    }
    if (opt.progressive) jpeg_simple_progression(&cinfo);
    cinfo.optimize_coding = opt.optimize ? TRUE : FALSE;
    cinfo.restart_interval = static_cast<unsigned int>(opt.restart_interval);
    jpeg_start_compress(&cinfo, TRUE);
    while (cinfo.next_scanline < cinfo.image_height) {
      // libjpeg does not write through the row pointer.
      JSAMPROW row = const_cast<JSAMPROW>(rows.row(static_cast<int>(cinfo.next_scanline)));
      jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
  });
  if (!ok) throw Error(ErrorCode::kInternal, "encode_jpeg", std::string("libjpeg: ") + c.err.message);
  return {c.buffer, c.buffer + c.size};
}

}  // namespace loom::vision
