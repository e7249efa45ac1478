// VideoEncoder: RGB uint8 frames -> swscale -> FFmpeg encoder -> muxer writing an AtomicFile's
// descriptor through a custom AVIOContext; close() commits it.
#include "loom/video/encoder.h"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
}

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstring>

#include "loom/accel/interleave.h"
#include "loom/codec/atomic_file.h"
#include "loom/codec/error.h"
#include "loom/codec/internal/avio_sink.h"
#include "loom/codec/internal/ffmpeg_audio_encoder.h"
#include "loom/codec/internal/ffmpeg_handles.h"

namespace loom::video {
namespace {

using ffmpeg::check_alloc;
using ffmpeg::UniqueCodecContext;
using ffmpeg::UniqueFrame;
using ffmpeg::UniqueOutputContext;
using ffmpeg::UniquePacket;
using ffmpeg::UniqueSws;

// ---- Containers ----
struct Container {
  const char* muxer;
  const char* default_video;
  const char* default_audio;
};

Container container_for(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  if (ext == ".mp4") return {"mp4", "libx264", "aac"};
  if (ext == ".mov") return {"mov", "libx264", "aac"};
  if (ext == ".mkv") return {"matroska", "libx264", "flac"};
  if (ext == ".webm") return {"webm", "libvpx-vp9", "libopus"};
  if (ext == ".avi") return {"avi", "mpeg4", "libmp3lame"};
  throw Error(ErrorCode::kUnsupported, path.string(),
              fmt::format("unknown video file extension '{}' (use .mp4, .mov, .mkv, .webm or .avi)", ext));
}

const AVCodec* find_encoder(const std::string& input, const std::string& name, AVMediaType type) {
  const AVCodec* codec = nullptr;
  if (name == "av1") {
    for (const char* n : {"libsvtav1", "libaom-av1", "librav1e"}) {
      if ((codec = avcodec_find_encoder_by_name(n)) != nullptr) break;
    }
    if (codec == nullptr) {
      throw Error(ErrorCode::kUnsupported, input, "no AV1 encoder (libsvtav1, libaom-av1, librav1e) in this FFmpeg");
    }
  } else {
    codec = avcodec_find_encoder_by_name(name.c_str());
    if (codec == nullptr) {
      // A codec name ("h264", "vp9"): its default encoder.
      if (const AVCodecDescriptor* d = avcodec_descriptor_get_by_name(name.c_str()))
        codec = avcodec_find_encoder(d->id);
    }
    if (codec == nullptr) {
      throw Error(ErrorCode::kUnsupported, input, fmt::format("encoder '{}' is not available in this FFmpeg", name));
    }
  }
  if (codec->type != type) {
    throw Error(ErrorCode::kInvalidInput, input,
                fmt::format("'{}' is not a{} encoder", codec->name, type == AVMEDIA_TYPE_VIDEO ? " video" : "n audio"));
  }
  return codec;
}

void check_container_takes(const std::string& input, const AVOutputFormat* ofmt, const AVCodec* codec) {
  if (avformat_query_codec(ofmt, codec->id, FF_COMPLIANCE_NORMAL) == 0) {
    throw Error(
        ErrorCode::kUnsupported, input,
        fmt::format("the {} container cannot hold {} ({})", ofmt->name, avcodec_get_name(codec->id), codec->name));
  }
}

// Integers exactly; N*1000/1001 for NTSC-style rates; else av_d2q.
AVRational fps_rational(double fps) {
  if (std::fabs(fps - std::round(fps)) < 1e-9 && fps <= INT_MAX) return {static_cast<int>(std::round(fps)), 1};
  const double k = std::round(fps * 1001.0 / 1000.0);
  if (k >= 1 && k * 1000 <= INT_MAX && std::fabs(fps - k * 1000.0 / 1001.0) < 0.01) {
    return {static_cast<int>(k) * 1000, 1001};
  }
  return av_d2q(fps, 1'001'000);
}

// Sets `key` to `value` on the encoder's private options; false when it has no such option.
bool set_private(AVCodecContext* ctx, const char* key, const std::string& value, const std::string& input) {
  if (ctx->priv_data == nullptr || av_opt_find(ctx->priv_data, key, nullptr, 0, 0) == nullptr) return false;
  const int r = av_opt_set(ctx->priv_data, key, value.c_str(), 0);
  if (r < 0) {
    throw Error(
        ErrorCode::kInvalidInput, input,
        fmt::format("{}: invalid value '{}' for {}: {}", ctx->codec->name, value, key, ffmpeg::error_string(r)));
  }
  return true;
}

// ---- The steps of VideoEncoder::open that need no encoder state ----

// The frame size, rate and thread count: Error(kInvalidInput) when one is out of range.
void validate_frame_options(const std::string& input, int width, int height, const EncoderOptions& options) {
  if (width <= 0 || height <= 0 ||
      av_image_check_size(static_cast<unsigned>(width), static_cast<unsigned>(height), 0, nullptr) < 0) {
    throw Error(ErrorCode::kInvalidInput, input, fmt::format("invalid frame size {}x{}", width, height));
  }
  if (!(options.fps > 0) || !std::isfinite(options.fps) || options.fps > 1e6) {
    throw Error(ErrorCode::kInvalidInput, input, fmt::format("invalid fps {}", options.fps));
  }
  if (options.num_threads < 0) throw Error(ErrorCode::kInvalidInput, input, "num_threads must be >= 0");
}

// The container (from the file extension), its muxer and the video encoder it is to hold.
struct OutputFormat {
  Container container;
  const AVOutputFormat* ofmt = nullptr;
  const AVCodec* codec = nullptr;
};

OutputFormat choose_format(const std::filesystem::path& path, const std::string& input, const EncoderOptions& options) {
  const Container container = container_for(path);
  const AVCodec* codec =
      find_encoder(input, options.codec.empty() ? container.default_video : options.codec, AVMEDIA_TYPE_VIDEO);
  const AVOutputFormat* ofmt = av_guess_format(container.muxer, nullptr, nullptr);
  if (ofmt == nullptr)
    throw Error(ErrorCode::kUnsupported, input, fmt::format("no {} muxer in this FFmpeg", container.muxer));
  check_container_takes(input, ofmt, codec);
  return {container, ofmt, codec};
}

// options.pixel_format, checked against what `codec` takes and against the frame size's chroma subsampling.
AVPixelFormat choose_pixel_format(const std::string& input, const AVCodec* codec, const EncoderOptions& options,
                                  int width, int height) {
  const AVPixelFormat pix_fmt = av_get_pix_fmt(options.pixel_format.c_str());
  if (pix_fmt == AV_PIX_FMT_NONE) {
    throw Error(ErrorCode::kInvalidInput, input, fmt::format("unknown pixel format '{}'", options.pixel_format));
  }
  if (codec->pix_fmts != nullptr) {
    bool ok = false;
    std::string supported;
    for (const AVPixelFormat* p = codec->pix_fmts; *p != AV_PIX_FMT_NONE; ++p) {
      ok |= *p == pix_fmt;
      supported += (supported.empty() ? "" : ", ") + std::string(av_get_pix_fmt_name(*p));
    }
    if (!ok) {
      throw Error(
          ErrorCode::kUnsupported, input,
          fmt::format("{} cannot encode pixel format {} (it takes {})", codec->name, options.pixel_format, supported));
    }
  }
  const AVPixFmtDescriptor* desc = av_pix_fmt_desc_get(pix_fmt);
  const int sub_w = 1 << desc->log2_chroma_w, sub_h = 1 << desc->log2_chroma_h;
  if (width % sub_w != 0 || height % sub_h != 0) {
    throw Error(ErrorCode::kInvalidInput, input,
                fmt::format("{}x{} frames cannot be stored as {}: its chroma planes need a width that is a multiple of "
                            "{} and a height that is a multiple of {} (crop or pad the frames, or use yuv444p)",
                            width, height, options.pixel_format, sub_w, sub_h));
  }
  return pix_fmt;
}

// Frames this size get BT.709, smaller ones BT.601 (SMPTE 170M).
bool is_hd(int width, int height) {
  return height >= 720 || width >= 1280;
}

bool is_rgb(AVPixelFormat pix_fmt) {
  return (av_pix_fmt_desc_get(pix_fmt)->flags & AV_PIX_FMT_FLAG_RGB) != 0;
}

// The colour tags of the stream (see encoder.h): sRGB for RGB formats, else BT.709 or BT.601 by size.
void tag_colours(AVCodecContext* vc, AVPixelFormat pix_fmt, const std::string& pixel_format) {
  const bool hd = is_hd(vc->width, vc->height);
  if (is_rgb(pix_fmt)) {
    vc->color_primaries = AVCOL_PRI_BT709;
    vc->color_trc = AVCOL_TRC_IEC61966_2_1;
    vc->colorspace = AVCOL_SPC_RGB;
    vc->color_range = AVCOL_RANGE_JPEG;
  } else {
    vc->color_primaries = hd ? AVCOL_PRI_BT709 : AVCOL_PRI_SMPTE170M;
    vc->color_trc = hd ? AVCOL_TRC_BT709 : AVCOL_TRC_SMPTE170M;
    vc->colorspace = hd ? AVCOL_SPC_BT709 : AVCOL_SPC_SMPTE170M;
    vc->color_range = pixel_format.starts_with("yuvj") ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG;
  }
}

// EncoderOptions::crf: the encoder's crf or qp option, else the fixed quantiser of the MPEG-style encoders.
void set_crf(AVCodecContext* vc, const AVCodec* codec, int crf, const std::string& input) {
  const std::string v = std::to_string(crf);
  vc->bit_rate = 0;  // constant quality, not a bitrate target
  if (set_private(vc, "crf", v, input) || set_private(vc, "qp", v, input)) return;
  if (codec->id == AV_CODEC_ID_MPEG4 || codec->id == AV_CODEC_ID_MPEG2VIDEO || codec->id == AV_CODEC_ID_MPEG1VIDEO ||
      codec->id == AV_CODEC_ID_MSMPEG4V3 || codec->id == AV_CODEC_ID_MJPEG) {
    if (crf < 1 || crf > 31) {
      throw Error(ErrorCode::kInvalidInput, input,
                  fmt::format("crf {} out of range for {} (its quantiser goes from 1 to 31)", crf, codec->name));
    }
    vc->flags |= AV_CODEC_FLAG_QSCALE;
    vc->global_quality = FF_QP2LAMBDA * crf;
  } else {
    throw Error(ErrorCode::kUnsupported, input, fmt::format("{} has no constant-quality (crf) setting", codec->name));
  }
}

// EncoderOptions::preset: the encoder's preset, else cpu-used, else speed option.
void set_preset(AVCodecContext* vc, const AVCodec* codec, const std::string& preset, const std::string& input) {
  if (!set_private(vc, "preset", preset, input) && !set_private(vc, "cpu-used", preset, input) &&
      !set_private(vc, "speed", preset, input)) {
    throw Error(ErrorCode::kUnsupported, input, fmt::format("{} has no preset (speed) setting", codec->name));
  }
}

}  // namespace

struct VideoEncoder::Impl {
  std::string input;  // path, for messages
  int width = 0, height = 0;
  Layout order = Layout::kCHW;
  AVRational fps{30, 1};
  std::string codec_name;

  std::optional<AtomicFile> file;        // declared before the contexts that write to it
  std::optional<ffmpeg::AvioSink> sink;  // writes `file`
  UniqueOutputContext fmt;
  UniqueCodecContext video;
  AVStream* video_stream = nullptr;
  UniqueSws sws;
  UniqueFrame frame;  // encoder input
  UniqueFrame gbrp;   // scratch planes for NHWC or odd strides
  UniquePacket packet;
  int64_t next_pts = 0;

  // Audio (optional)
  std::unique_ptr<ffmpeg::AudioEncoder> audio;
  AVStream* audio_stream = nullptr;
  Tensor samples;  // contiguous float32 [C, N]
  int in_rate = 0;
  int64_t audio_pos = 0;  // input samples fed so far

  enum class State { kOpen, kClosed, kAborted } state = State::kOpen;

  void check_usable(const char* what) const {
    if (state == State::kClosed) throw Error(ErrorCode::kInvalidInput, input, fmt::format("{} after close()", what));
    if (state == State::kAborted) {
      throw Error(ErrorCode::kInvalidInput, input, fmt::format("{} on an encoder aborted by an earlier error", what));
    }
  }

  void abort() noexcept {
    state = State::kAborted;
    fmt.reset();
    sink.reset();
    if (file) file->abandon();
  }

  [[noreturn]] void ffmpeg_fail(int r, const std::string& what) const {
    if (sink && sink->write_errno() != 0) {
      throw Error(ErrorCode::kIo, input, fmt::format("cannot write: {}", std::strerror(sink->write_errno())));
    }
    ffmpeg::throw_error(r, input, what);
  }

  // Sends `f` (nullptr: flush) to `ctx` and writes every packet it gives back.
  void encode(AVCodecContext* ctx, AVStream* st, const AVFrame* f) {
    int r = avcodec_send_frame(ctx, f);
    if (r < 0) ffmpeg_fail(r, fmt::format("cannot encode ({})", ctx->codec->name));
    for (;;) {
      r = avcodec_receive_packet(ctx, packet.get());
      if (r == AVERROR(EAGAIN) || r == AVERROR_EOF) return;
      if (r < 0) ffmpeg_fail(r, fmt::format("cannot encode ({})", ctx->codec->name));
      mux(packet.get(), ctx->time_base, st);
    }
  }

  // Writes `p` (time stamps in `time_base`) to stream `st`.
  void mux(AVPacket* p, AVRational time_base, AVStream* st) {
    av_packet_rescale_ts(p, time_base, st->time_base);
    p->stream_index = st->index;
    const int r = av_interleaved_write_frame(fmt.get(), p);
    if (r < 0) ffmpeg_fail(r, "cannot write a packet");
    if (sink->write_errno() != 0) ffmpeg_fail(AVERROR(sink->write_errno()), "cannot write");
  }

  // The audio encoder's packets go to the audio stream.
  ffmpeg::AudioEncoder::PacketSink audio_sink() {
    return [this](AVPacket* p) { mux(p, audio->context()->time_base, audio_stream); };
  }

  // Encodes the input samples up to `until` (exclusive).
  void feed_audio(int64_t until) {
    if (!audio) return;
    until = std::min(until, samples.size(1));
    if (audio_pos >= until) return;
    const int channels = static_cast<int>(samples.size(0));
    const int64_t total = samples.size(1);
    const float* base = samples.data<float>();
    std::vector<const float*> planes(static_cast<size_t>(channels));
    for (int c = 0; c < channels; ++c) planes[static_cast<size_t>(c)] = base + c * total + audio_pos;
    audio->feed(planes.data(), until - audio_pos, audio_sink());
    audio_pos = until;
  }

  // ---- The steps of VideoEncoder::open, in order ----
  void create_muxer(const AVOutputFormat* ofmt);
  void open_video_encoder(const AVCodec* codec, AVPixelFormat pix_fmt, const EncoderOptions& options);
  void add_video_stream();
  void add_audio_track(const AudioTrack& a, const char* default_codec, const AVOutputFormat* ofmt);
  // swscale from GBRP planes to the encoder's frames, the frame and the packet.
  void create_converter(AVPixelFormat pix_fmt, const std::string& pixel_format);
  // The AtomicFile (Error(kIo) when `path` exists and !overwrite), then the header through an AvioSink;
  // abort() on failure.
  void open_output(const std::filesystem::path& path, bool overwrite);

  void write_frame(const uint8_t* const planes[4], const int linesizes[4]) {
    if (av_frame_make_writable(frame.get()) < 0) throw std::bad_alloc();
    sws_scale(sws.get(), planes, linesizes, 0, height, frame->data, frame->linesize);
    frame->pts = next_pts++;
    encode(video.get(), video_stream, frame.get());
    // Keep the audio up with the video: everything up to the end of this frame.
    if (audio) {
      const int64_t until =
          av_rescale_q_rnd(next_pts, av_inv_q(fps), AVRational{1, in_rate}, static_cast<AVRounding>(AV_ROUND_UP));
      feed_audio(until);
    }
  }
};

VideoEncoder::VideoEncoder(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
VideoEncoder::VideoEncoder(VideoEncoder&&) noexcept = default;
VideoEncoder& VideoEncoder::operator=(VideoEncoder&&) noexcept = default;
VideoEncoder::~VideoEncoder() {
  if (impl_ && impl_->state == Impl::State::kOpen) impl_->abort();
}

int64_t VideoEncoder::frames_written() const {
  return impl_->next_pts;
}
const std::string& VideoEncoder::codec_name() const {
  return impl_->codec_name;
}
int VideoEncoder::fps_num() const {
  return impl_->fps.num;
}
int VideoEncoder::fps_den() const {
  return impl_->fps.den;
}

void VideoEncoder::Impl::create_muxer(const AVOutputFormat* ofmt) {
  AVFormatContext* raw_fmt = nullptr;
  const int fr = avformat_alloc_output_context2(&raw_fmt, ofmt, nullptr, nullptr);
  if (fr < 0) ffmpeg::throw_error(fr, input, "cannot create the muxer");
  fmt.reset(raw_fmt);
  fmt->flags |= AVFMT_FLAG_BITEXACT;  // no random UIDs or version strings: same input, same bytes
}

void VideoEncoder::Impl::open_video_encoder(const AVCodec* codec, AVPixelFormat pix_fmt,
                                            const EncoderOptions& options) {
  video.reset(check_alloc(avcodec_alloc_context3(codec)));
  AVCodecContext* vc = video.get();
  vc->width = width;
  vc->height = height;
  vc->pix_fmt = pix_fmt;
  vc->time_base = av_inv_q(fps);
  vc->framerate = fps;
  vc->sample_aspect_ratio = {1, 1};
  vc->thread_count = options.num_threads;
  tag_colours(vc, pix_fmt, options.pixel_format);
  if (fmt->oformat->flags & AVFMT_GLOBALHEADER) vc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
  if (options.crf) set_crf(vc, codec, *options.crf, input);
  if (!options.preset.empty()) set_preset(vc, codec, options.preset, input);
  ffmpeg::open_encoder(vc, options.codec_options, input);
}

void VideoEncoder::Impl::add_video_stream() {
  video_stream = check_alloc(avformat_new_stream(fmt.get(), nullptr));
  video_stream->time_base = video->time_base;
  video_stream->avg_frame_rate = fps;
  video_stream->r_frame_rate = fps;
  if (const int r = avcodec_parameters_from_context(video_stream->codecpar, video.get()); r < 0) {
    ffmpeg::throw_error(r, input, "cannot set stream parameters");
  }
}

void VideoEncoder::Impl::add_audio_track(const AudioTrack& a, const char* default_codec, const AVOutputFormat* ofmt) {
  if (!a.samples.defined() || a.samples.dtype() != DType::kFloat32 || a.samples.ndim() != 2 || a.samples.size(0) < 1 ||
      !a.samples.device().is_cpu()) {
    throw Error(ErrorCode::kInvalidInput, input, "audio samples must be a float32 CPU tensor [channels >= 1, samples]");
  }
  if (a.samples.size(0) > 64) {
    throw Error(ErrorCode::kInvalidInput, input, fmt::format("{} audio channels (at most 64)", a.samples.size(0)));
  }
  if (a.sample_rate <= 0 || a.sample_rate > 6'000'000) {
    throw Error(ErrorCode::kInvalidInput, input, fmt::format("invalid audio sample rate {}", a.sample_rate));
  }
  const AVCodec* acodec = find_encoder(input, a.codec.empty() ? default_codec : a.codec, AVMEDIA_TYPE_AUDIO);
  check_container_takes(input, ofmt, acodec);
  samples = a.samples.contiguous();
  in_rate = a.sample_rate;
  ffmpeg::AudioEncoderSettings settings;
  settings.sample_rate = a.sample_rate;
  settings.channels = static_cast<int>(a.samples.size(0));
  settings.global_header = (fmt->oformat->flags & AVFMT_GLOBALHEADER) != 0;
  audio = std::make_unique<ffmpeg::AudioEncoder>(input, acodec, settings);
  audio_stream = audio->add_stream(fmt.get());
}

void VideoEncoder::Impl::create_converter(AVPixelFormat pix_fmt, const std::string& pixel_format) {
  // Canonical GBRP input planes -> the encoder's pixel format.
  sws.reset(sws_getContext(width, height, AV_PIX_FMT_GBRP, width, height, pix_fmt,
                           SWS_BICUBIC | SWS_ACCURATE_RND | SWS_BITEXACT, nullptr, nullptr, nullptr));
  if (!sws) throw Error(ErrorCode::kUnsupported, input, fmt::format("cannot convert RGB to {}", pixel_format));
  if (!is_rgb(pix_fmt)) {
    const int* coeffs = sws_getCoefficients(is_hd(width, height) ? SWS_CS_ITU709 : SWS_CS_ITU601);
    sws_setColorspaceDetails(sws.get(), coeffs, 1, coeffs, video->color_range == AVCOL_RANGE_JPEG ? 1 : 0, 0, 1 << 16,
                             1 << 16);
  }
  frame.reset(check_alloc(av_frame_alloc()));
  frame->format = pix_fmt;
  frame->width = width;
  frame->height = height;
  if (av_frame_get_buffer(frame.get(), 0) < 0) throw std::bad_alloc();
  for (AVBufferRef* b : frame->buf)
    if (b) std::memset(b->data, 0, b->size);
  packet.reset(check_alloc(av_packet_alloc()));
}

void VideoEncoder::Impl::open_output(const std::filesystem::path& path, bool overwrite) {
  file.emplace(AtomicFile::create(path, overwrite));
  try {
    sink.emplace(ffmpeg::AvioSink::to_fd(file->fd()));
    fmt->pb = sink->context();
    fmt->flags |= AVFMT_FLAG_CUSTOM_IO;
    if (const int r = avformat_write_header(fmt.get(), nullptr); r < 0) ffmpeg_fail(r, "cannot write the header");
  } catch (...) {
    abort();
    throw;
  }
}

VideoEncoder VideoEncoder::open(const std::filesystem::path& path, int width, int height, const EncoderOptions& options,
                                const std::optional<AudioTrack>& audio) {
  ffmpeg::quiet_logging();
  auto impl = std::make_unique<Impl>();
  Impl& s = *impl;
  s.input = path.string();
  s.width = width;
  s.height = height;
  s.order = options.dimension_order;

  // Validate everything before touching the disk.
  validate_frame_options(s.input, width, height, options);
  const OutputFormat out = choose_format(path, s.input, options);
  s.codec_name = out.codec->name;
  const AVPixelFormat pix_fmt = choose_pixel_format(s.input, out.codec, options, width, height);
  s.fps = fps_rational(options.fps);

  s.create_muxer(out.ofmt);
  s.open_video_encoder(out.codec, pix_fmt, options);
  s.add_video_stream();
  if (audio) s.add_audio_track(*audio, out.container.default_audio, out.ofmt);
  s.create_converter(pix_fmt, options.pixel_format);
  s.open_output(path, options.overwrite);
  return VideoEncoder(std::move(impl));
}

void VideoEncoder::write(const Tensor& frames) {
  Impl& s = *impl_;
  s.check_usable("write()");
  const bool nchw = s.order == Layout::kCHW;
  const char* layout = nchw ? "[N, 3, H, W]" : "[N, H, W, 3]";
  if (!frames.defined() || frames.ndim() != 4) {
    throw Error(ErrorCode::kInvalidInput, s.input, fmt::format("frames must be a uint8 tensor {}", layout));
  }
  if (!frames.device().is_cpu()) throw Error(ErrorCode::kUnsupported, s.input, "frames must be on the CPU");
  if (frames.dtype() != DType::kUInt8) {
    throw Error(ErrorCode::kInvalidInput, s.input,
                fmt::format("frames must be uint8, not {}", to_string(frames.dtype())));
  }
  const int64_t c = frames.size(nchw ? 1 : 3), h = frames.size(nchw ? 2 : 1), w = frames.size(nchw ? 3 : 2);
  if (c != 3) {
    throw Error(ErrorCode::kInvalidInput, s.input,
                fmt::format("frames must be {} with 3 (RGB) channels, got {}", layout, c));
  }
  if (h != s.height || w != s.width) {
    throw Error(ErrorCode::kInvalidInput, s.input,
                fmt::format("frames are {}x{}, the encoder was opened for {}x{}", w, h, s.width, s.height));
  }
  try {
    for (int64_t n = 0; n < frames.size(0); ++n) {
      const Tensor f = frames.select(0, n);  // [3, H, W] or [H, W, 3]
      // sws_scale reads four planes and strides (the fourth is alpha): unused ones must be null/0.
      const uint8_t* planes[4] = {};
      int linesizes[4] = {};
      if (nchw && f.stride(2) == 1 && f.stride(1) >= w && f.stride(1) <= INT_MAX) {
        // Borrow the planes; GBRP's plane order is G, B, R.
        const auto* base = static_cast<const uint8_t*>(f.data());
        planes[0] = base + f.stride(0);
        planes[1] = base + 2 * f.stride(0);
        planes[2] = base;
        linesizes[0] = linesizes[1] = linesizes[2] = static_cast<int>(f.stride(1));
      } else {
        if (!s.gbrp) {
          s.gbrp.reset(check_alloc(av_frame_alloc()));
          s.gbrp->format = AV_PIX_FMT_GBRP;
          s.gbrp->width = s.width;
          s.gbrp->height = s.height;
          if (av_frame_get_buffer(s.gbrp.get(), 0) < 0) throw std::bad_alloc();
          for (AVBufferRef* b : s.gbrp->buf)
            if (b) std::memset(b->data, 0, b->size);
        }
        const auto* base = static_cast<const uint8_t*>(f.data());
        const int64_t sc = f.stride(nchw ? 0 : 2), sy = f.stride(nchw ? 1 : 0), sx = f.stride(nchw ? 2 : 1);
        constexpr int kPlaneOf[3] = {2, 0, 1};     // R -> plane 2, G -> 0, B -> 1
        const bool rgb_rows = sx == 3 && sc == 1;  // interleaved rows (NHWC): one deinterleave per row
        for (int64_t y = 0; rgb_rows && y < h; ++y) {
          uint8_t* rows[3];
          for (int ch = 0; ch < 3; ++ch) rows[ch] = s.gbrp->data[kPlaneOf[ch]] + y * s.gbrp->linesize[kPlaneOf[ch]];
          accel::deinterleave(base + y * sy, static_cast<size_t>(w), 3, rows);
        }
        for (int ch = 0; ch < 3 && !rgb_rows; ++ch) {  // any other strides: sample by sample
          uint8_t* dst = s.gbrp->data[kPlaneOf[ch]];
          const int ls = s.gbrp->linesize[kPlaneOf[ch]];
          for (int64_t y = 0; y < h; ++y) {
            const uint8_t* src = base + ch * sc + y * sy;
            uint8_t* row = dst + y * ls;
            for (int64_t x = 0; x < w; ++x) row[x] = src[x * sx];
          }
        }
        for (int p = 0; p < 3; ++p) {
          planes[p] = s.gbrp->data[p];
          linesizes[p] = s.gbrp->linesize[p];
        }
      }
      s.write_frame(planes, linesizes);
    }
  } catch (...) {
    s.abort();
    throw;
  }
}

void VideoEncoder::close() {
  Impl& s = *impl_;
  if (s.state == Impl::State::kClosed) return;
  s.check_usable("close()");
  try {
    s.encode(s.video.get(), s.video_stream, nullptr);
    if (s.audio) {
      s.feed_audio(s.samples.size(1));
      s.audio->finish(s.audio_sink());
    }
    if (const int r = av_write_trailer(s.fmt.get()); r < 0) s.ffmpeg_fail(r, "cannot write the trailer");
    AVIOContext* io = s.sink->context();
    avio_flush(io);
    if (io->error < 0 || s.sink->write_errno() != 0) s.ffmpeg_fail(io->error, "cannot write");
    s.file->commit();
  } catch (...) {
    s.abort();
    throw;
  }
  s.state = Impl::State::kClosed;
  s.fmt.reset();
  s.sink.reset();
}

void encode_video(const std::filesystem::path& path, const Tensor& frames, double fps, const EncoderOptions& options,
                  const std::optional<AudioTrack>& audio) {
  if (!frames.defined() || frames.ndim() != 4) {
    throw Error(ErrorCode::kInvalidInput, path.string(), "frames must be a uint8 tensor [N, 3, H, W] or [N, H, W, 3]");
  }
  EncoderOptions o = options;
  o.fps = fps;
  const bool nchw = o.dimension_order == Layout::kCHW;
  const int64_t h = frames.size(nchw ? 2 : 1), w = frames.size(nchw ? 3 : 2);
  if (h > INT_MAX || w > INT_MAX) throw Error(ErrorCode::kInvalidInput, path.string(), "frames are too large");
  VideoEncoder e = VideoEncoder::open(path, static_cast<int>(w), static_cast<int>(h), o, audio);
  e.write(frames);
  e.close();
}

}  // namespace loom::video
