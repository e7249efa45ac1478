// The seam between VideoDecoder and the hardware that decodes and converts its frames. Private to
// loom::video.
//
// A backend sets up the FFmpeg decoder before it is opened and turns each decoded AVFrame into one
// frame of the output tensor. VideoDecoder picks one at open (make_decode_backend) and owns it; demux,
// seeking and the frame index do not depend on it.
//
// Backends:
// - CPU (cpu_backend.cc): software decoding with FFmpeg's threads, swscale to RGB24 with the frame's
//   own matrix and range, output_size in the same pass.
// - CUDA/NVDEC (cuda_backend.cc, CUDA builds only): configure() sets codec.hw_device_ctx (an
//   AV_HWDEVICE_TYPE_CUDA device on the primary CUDA context of the requested device, one per process
//   and device) and a get_format callback that picks AV_PIX_FMT_CUDA; convert() turns the NV12/P010
//   surface in frame.data[] (device pointers) into RGB with the CUDA kernel of nv12_to_rgb.cu straight
//   into slot.data, a device pointer; device() is that CUDA device, and the decoder's output tensors
//   are allocated there. With DecoderOptions::cpu_fallback it decodes on the CPU what NVDEC cannot.
#pragma once

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/frame.h>
}

#include <cstdint>
#include <memory>
#include <string>

#include "loom/codec/layout.h"
#include "loom/codec/tensor.h"
#include "loom/video/decoder.h"

namespace loom::video::detail {

// One frame of the output tensor: uint8 RGB, height x width, contiguous, on the backend's device.
struct OutputSlot {
  uint8_t* data = nullptr;  // 3 * height * width bytes
  int width = 0, height = 0;
  Layout layout = Layout::kCHW;  // kCHW: planes R, G, B; kHWC: rows of interleaved R, G, B
};

class DecodeBackend {
 public:
  virtual ~DecodeBackend() = default;

  // The device the output frames are written on.
  virtual Device device() const = 0;
  // Sets up `codec` (allocated, stream parameters copied, not opened yet) for `options`.
  virtual void configure(AVCodecContext& codec, const DecoderOptions& options) = 0;
  // Converts the decoded `frame` into `slot`, resizing it to the slot's size. Throws
  // Error(kUnsupported) when the frame's pixel format cannot be converted.
  virtual void convert(const AVFrame& frame, const OutputSlot& slot) = 0;
};

// The CPU backend (swscale).
std::unique_ptr<DecodeBackend> make_cpu_backend();

// The backend for `options` (`name` names the input in its errors): the CPU one for a CPU device; for
// a CUDA device the CUDA backend, or, in a build without CUDA, the CPU one with cpu_fallback and
// Error(kUnsupported) without. A negative CUDA device index is Error(kInvalidInput).
std::unique_ptr<DecodeBackend> make_decode_backend(const DecoderOptions& options, const std::string& name);

#if defined(LOOM_WITH_CUDA)
// The CUDA backend (cuda_backend.cc). Its configure() throws Error(kUnsupported) (without
// options.cpu_fallback) for a codec FFmpeg has no CUDA decoder for, a device this process cannot use
// or an NVDEC device that does not open; device() is the CPU once it has fallen back for want of a
// device.
std::unique_ptr<DecodeBackend> make_cuda_backend(const DecoderOptions& options, const std::string& name);
#endif

}  // namespace loom::video::detail
