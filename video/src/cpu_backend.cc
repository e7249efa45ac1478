// The CPU decode backend: FFmpeg's software decoders, then RGB24 in the output layout (color_convert.h):
// straight into the slot by loom's 4:2:0 kernel where it gives swscale's bytes, else swscale.
#include <cstring>
#include <optional>
#include <vector>

#include "color_convert.h"
#include "decode_backend.h"
#include "loom/accel/interleave.h"

namespace loom::video::detail {
namespace {

class CpuBackend final : public DecodeBackend {
 public:
  Device device() const override { return Device::cpu(); }

  void configure(AVCodecContext& codec, const DecoderOptions& options) override {
    codec.thread_count = options.num_threads;
  }

  void convert(const AVFrame& frame, const OutputSlot& slot) override {
    const int out_width = slot.width, out_height = slot.height;
    if (!converter_ || converter_->out_width() != out_width || converter_->out_height() != out_height) {
      converter_.emplace(out_width, out_height);
    }
    if (converter_->convert_direct(frame, slot.data, slot.layout)) return;
    // swscale's SIMD paths may write past the end of a row (whole vectors), so it converts into a padded
    // scratch frame that is then copied (NHWC) or de-interleaved (NCHW) into the output.
    const size_t row = static_cast<size_t>(out_width) * 3;
    const size_t stride = (row + 63) / 64 * 64 + 64;
    scratch_.resize(stride * static_cast<size_t>(out_height) + 256);
    converter_->convert(frame, scratch_.data(), static_cast<int>(stride));
    const size_t plane = static_cast<size_t>(out_width) * out_height;
    uint8_t* base = slot.data;
    if (slot.layout == Layout::kHWC) {
      for (int y = 0; y < out_height; ++y) std::memcpy(base + y * row, scratch_.data() + y * stride, row);
      return;
    }
    for (int y = 0; y < out_height; ++y) {
      const size_t at = static_cast<size_t>(y) * out_width;
      uint8_t* planes[3] = {base + at, base + plane + at, base + 2 * plane + at};  // R, G, B
      accel::deinterleave(scratch_.data() + y * stride, static_cast<size_t>(out_width), 3, planes);
    }
  }

 private:
  std::optional<ColorConverter> converter_;  // for the last slot's size
  std::vector<uint8_t> scratch_;             // one padded RGB24 frame
};

}  // namespace

std::unique_ptr<DecodeBackend> make_cpu_backend() {
  return std::make_unique<CpuBackend>();
}

}  // namespace loom::video::detail
