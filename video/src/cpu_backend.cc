// The CPU decode backend: FFmpeg's software decoders, then RGB24 in the output layout (color_convert.h):
// straight into the slot by loom's 4:2:0 kernel where it gives swscale's bytes, else swscale.
#include <optional>

#include "color_convert.h"
#include "decode_backend.h"

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
    converter_->convert(frame, slot.data, slot.layout);
  }

 private:
  std::optional<ColorConverter> converter_;  // for the last slot's size
};

}  // namespace

std::unique_ptr<DecodeBackend> make_cpu_backend() {
  return std::make_unique<CpuBackend>();
}

}  // namespace loom::video::detail
