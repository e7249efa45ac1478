// The CUDA decode backend: NVDEC through FFmpeg's CUDA hwaccel, the colour conversion by the kernel of
// nv12_to_rgb.cu, output frames on the device. Built only with LOOM_WITH_CUDA.
//
// Modes, fixed by configure():
// - hardware: the codec context has a CUDA hw_device_ctx and a get_format that takes AV_PIX_FMT_CUDA.
//   A CUDA frame holding NV12/P010/P016 at the slot's size is converted on the device; any other CUDA
//   frame (an output_size, a 4:4:4 surface) is copied to the host, converted by the CPU backend and
//   copied back. A software frame means NVDEC refused the stream once decoding began (FFmpeg offered
//   no CUDA format, or its hwaccel did not initialise): Error(kUnsupported), or with cpu_fallback the
//   host path.
// - software to device (cpu_fallback, a device but no CUDA decoder for the codec, or no NVDEC device
//   context): FFmpeg's software decoder, the CPU backend's conversion, a copy into the device slot.
// - CPU (cpu_fallback without the device): the CPU backend as it is; device() is the CPU.
//
// Streams: FFmpeg copies each decoded picture into its surface on the CUDA legacy default stream of
// the primary context, and reuses the surface once the frame is released. The kernel runs on
// accel::current_stream(device); when that is another stream, it first waits for the default stream
// (the picture is there) and the default stream then waits for the kernel (the surface is not
// overwritten while it is read), through two events.
#include <fmt/format.h>

#include <map>
#include <mutex>
#include <optional>
#include <vector>

extern "C" {
#include <libavutil/hwcontext.h>
#include <libavutil/hwcontext_cuda.h>
#include <libavutil/pixdesc.h>
}

#include "decode_backend.h"
#include "loom/accel/cuda.h"
#include "loom/accel/stream.h"
#include "loom/codec/error.h"
#include "loom/codec/internal/ffmpeg_handles.h"
#include "nv12_convert.h"
#include "nv12_kernels.h"

namespace loom::video::detail {
namespace {

// True when FFmpeg's decoder `codec` can decode into CUDA frames from a CUDA device context (its
// nvdec hwaccel), whatever the GPU: whether the GPU's NVDEC takes the stream shows at get_format.
bool has_cuda_decoder(const AVCodec* codec) {
  for (int i = 0;; ++i) {
    const AVCodecHWConfig* config = avcodec_get_hw_config(codec, i);
    if (config == nullptr) return false;
    if (config->device_type == AV_HWDEVICE_TYPE_CUDA && (config->methods & AV_CODEC_HW_CONFIG_METHOD_HW_DEVICE_CTX)) {
      return true;
    }
  }
}

// FFmpeg's CUDA device context of `device`, on its primary CUDA context (the one the CUDA runtime and
// so accel/ use, so that surfaces and output tensors are addressable by the same kernels): made once
// per process and device, kept for the process's life; a new reference each call. nullptr with
// `why` set when FFmpeg cannot open it (no driver, a device in use exclusively, ...).
AVBufferRef* cuda_device_context(int device, std::string& why) {
  static std::mutex mutex;
  static std::map<int, AVBufferRef*> contexts;  // never released: decoders may be open until exit
  const std::lock_guard lock(mutex);
  auto it = contexts.find(device);
  if (it == contexts.end()) {
    accel::check_cuda_fork_safety("NVDEC decoding");
    accel::note_cuda_initialized();
    AVBufferRef* ref = nullptr;
    const int ret = av_hwdevice_ctx_create(&ref, AV_HWDEVICE_TYPE_CUDA, std::to_string(device).c_str(), nullptr,
                                           AV_CUDA_USE_PRIMARY_CONTEXT);
    if (ret < 0) {
      why = ffmpeg::error_string(ret);
      return nullptr;
    }
    it = contexts.emplace(device, ref).first;
  }
  AVBufferRef* ref = av_buffer_ref(it->second);
  if (ref == nullptr) throw std::bad_alloc();
  return ref;
}

class CudaBackend final : public DecodeBackend {
 public:
  CudaBackend(const DecoderOptions& options, std::string name)
      : name_(std::move(name)),
        device_(options.device.index),
        fallback_(options.cpu_fallback),
        cpu_(make_cpu_backend()) {}

  Device device() const override { return mode_ == Mode::kCpu ? Device::cpu() : Device::cuda(device_); }

  void configure(AVCodecContext& codec, const DecoderOptions& options) override {
    codec_name_ = avcodec_get_name(codec.codec_id);
    const bool decodable = codec.codec != nullptr && has_cuda_decoder(codec.codec);
    const int devices = accel::cuda_device_count();
    if (!decodable && !fallback_) {
      throw Error(ErrorCode::kUnsupported, name_,
                  fmt::format("device cuda:{}: FFmpeg has no CUDA (NVDEC) decoder for codec {}; decode on the CPU, "
                              "or set DecoderOptions::cpu_fallback to fall back to it",
                              device_, codec_name_));
    }
    if (device_ >= devices) {
      if (!fallback_) {
        throw Error(ErrorCode::kUnsupported, name_,
                    fmt::format("device cuda:{}: no such CUDA device ({} usable here: no GPU, driver or a forked "
                                "child of a CUDA process?); decode on the CPU, or set DecoderOptions::cpu_fallback "
                                "to fall back to it",
                                device_, devices));
      }
      mode_ = Mode::kCpu;
      cpu_->configure(codec, options);
      return;
    }
    if (!decodable) {
      mode_ = Mode::kSoftwareToDevice;
      cpu_->configure(codec, options);
      return;
    }
    std::string why;
    AVBufferRef* context = cuda_device_context(device_, why);
    if (context == nullptr) {
      if (!fallback_) {
        throw Error(ErrorCode::kUnsupported, name_,
                    fmt::format("device cuda:{}: FFmpeg cannot open the CUDA device for NVDEC ({}); set "
                                "DecoderOptions::cpu_fallback to decode on the CPU",
                                device_, why));
      }
      mode_ = Mode::kSoftwareToDevice;
      cpu_->configure(codec, options);
      return;
    }
    mode_ = Mode::kHardware;
    codec.hw_device_ctx = context;  // the codec context owns this reference
    codec.opaque = this;
    codec.get_format = &CudaBackend::get_format;
    codec.thread_count = 1;  // NVDEC decodes; CPU threads would only queue pictures
  }

  void convert(const AVFrame& frame, const OutputSlot& slot) override {
    if (mode_ == Mode::kCpu) {
      cpu_->convert(frame, slot);
      return;
    }
    if (frame.format == AV_PIX_FMT_CUDA) {
      convert_surface(frame, slot);
      return;
    }
    if (mode_ == Mode::kHardware && !fallback_) {
      const char* format = av_get_pix_fmt_name(static_cast<AVPixelFormat>(frame.format));
      throw Error(ErrorCode::kUnsupported, name_,
                  fmt::format("device cuda:{}: NVDEC cannot decode this {} stream ({}{}: the GPU's decoder does not "
                              "take its profile, bit depth or size); decode on the CPU, or set "
                              "DecoderOptions::cpu_fallback to fall back to it",
                              device_, codec_name_, format != nullptr ? format : "unknown pixel format",
                              offered_cuda_ ? ", the hardware decoder did not initialise" : ""));
    }
    convert_on_host(frame, slot);
  }

 private:
  enum class Mode { kUnset, kHardware, kSoftwareToDevice, kCpu };

  // FFmpeg's get_format: CUDA when offered; otherwise (no NVDEC path for this stream, or its
  // initialisation failed and FFmpeg asks again without it) the software format, whose frames
  // convert() then refuses or, with cpu_fallback, converts on the host. Never throws (C frames).
  static AVPixelFormat get_format(AVCodecContext* codec, const AVPixelFormat* formats) {
    auto* self = static_cast<CudaBackend*>(codec->opaque);
    for (const AVPixelFormat* f = formats; *f != AV_PIX_FMT_NONE; ++f) {
      if (*f == AV_PIX_FMT_CUDA) {
        self->offered_cuda_ = true;
        return *f;
      }
    }
    for (const AVPixelFormat* f = formats; *f != AV_PIX_FMT_NONE; ++f) {
      const AVPixFmtDescriptor* desc = av_pix_fmt_desc_get(*f);
      if (desc != nullptr && (desc->flags & AV_PIX_FMT_FLAG_HWACCEL) == 0) return *f;
    }
    return AV_PIX_FMT_NONE;
  }

  accel::Stream default_stream() const { return accel::Stream::wrap(nullptr, device_); }

  void convert_surface(const AVFrame& frame, const OutputSlot& slot) {
    const auto* frames = reinterpret_cast<const AVHWFramesContext*>(frame.hw_frames_ctx->data);
    const AVPixelFormat format = frames->sw_format;
    if (!is_nv12_like(format) || slot.width != frame.width || slot.height != frame.height) {
      // A resize or a surface format the kernel does not take: swscale on the host, as on the CPU.
      ffmpeg::UniqueFrame host(av_frame_alloc());
      if (!host) throw std::bad_alloc();
      int ret = av_hwframe_transfer_data(host.get(), &frame, 0);
      if (ret >= 0) ret = av_frame_copy_props(host.get(), &frame);
      if (ret < 0) ffmpeg::throw_error(ret, name_, "cannot copy a decoded NVDEC surface to the host");
      convert_on_host(*host, slot);
      return;
    }
    const accel::DeviceGuard guard(device_);
    const accel::Stream stream = accel::current_stream(device_);
    const bool other_stream = stream.handle() != nullptr;
    if (other_stream) {
      if (!surface_ready_.defined()) surface_ready_ = accel::Event::create(device_);
      if (!surface_read_.defined()) surface_read_ = accel::Event::create(device_);
      surface_ready_.record(default_stream());
      stream.wait(surface_ready_);
    }
    const Nv12Plan plan = nv12_plan(frame, format, slot.data, slot.layout);
    accel::check_cuda(nv12_to_rgb_cuda(plan, stream.handle()), "NVDEC colour conversion (nv12_to_rgb)");
    if (other_stream) {
      surface_read_.record(stream);
      default_stream().wait(surface_read_);
    }
  }

  // The CPU backend's conversion of a host frame into host memory, then a copy into the device slot
  // on the current stream (it returns once the host memory may be reused).
  void convert_on_host(const AVFrame& frame, const OutputSlot& slot) {
    const size_t bytes = static_cast<size_t>(slot.width) * slot.height * 3;
    staging_.resize(bytes);
    OutputSlot host = slot;
    host.data = staging_.data();
    cpu_->convert(frame, host);
    const int64_t shape[1] = {static_cast<int64_t>(bytes)};
    const Tensor from = Tensor::from_blob(staging_.data(), shape, {}, DType::kUInt8);
    const Tensor to = Tensor::from_blob(slot.data, shape, {}, DType::kUInt8, Device::cuda(device_));
    accel::copy_into(from, to, accel::current_stream(device_));
  }

  std::string name_;
  int device_ = 0;
  bool fallback_ = false;
  std::unique_ptr<DecodeBackend> cpu_;  // decoding and conversion on the CPU, where the modes need them
  Mode mode_ = Mode::kUnset;
  std::string codec_name_;
  bool offered_cuda_ = false;  // get_format was offered AV_PIX_FMT_CUDA (set by FFmpeg's thread)
  accel::Event surface_ready_, surface_read_;
  std::vector<uint8_t> staging_;
};

}  // namespace

std::unique_ptr<DecodeBackend> make_cuda_backend(const DecoderOptions& options, const std::string& name) {
  return std::make_unique<CudaBackend>(options, name);
}

}  // namespace loom::video::detail
