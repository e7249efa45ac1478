// FFmpeg decoding (MP3, AAC, Opus, ADPCM, audio in any whitelisted container), frame for frame as PyAV
// does it: every packet of the stream sent to the decoder, the decoder flushed at the end, libavcodec's own
// skip-samples (encoder delay, edit lists) applied.
extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/samplefmt.h>
}

#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <optional>
#include <type_traits>

#include "audio_decoder.h"
#include "loom/codec/error.h"
#include "loom/codec/internal/ffmpeg_handles.h"
#include "loom/codec/internal/stream_info.h"

namespace loom::audio::detail {
namespace {

using ffmpeg::UniqueCodecContext;
using ffmpeg::UniqueFrame;
using ffmpeg::UniquePacket;

// The dtype read(normalize = false) returns for a decoder sample format.
DType native_of(AVSampleFormat fmt, const std::string& name) {
  switch (av_get_packed_sample_fmt(fmt)) {
    case AV_SAMPLE_FMT_U8: return DType::kUInt8;
    case AV_SAMPLE_FMT_S16: return DType::kInt16;
    case AV_SAMPLE_FMT_S32: return DType::kInt32;
    case AV_SAMPLE_FMT_S64: return DType::kInt64;
    case AV_SAMPLE_FMT_FLT: return DType::kFloat32;
    case AV_SAMPLE_FMT_DBL: return DType::kFloat64;
    default:
      throw Error(ErrorCode::kUnsupported, name,
                  fmt::format("unsupported decoder sample format {}",
                              av_get_sample_fmt_name(fmt) ? av_get_sample_fmt_name(fmt) : "none"));
  }
}

template <typename T>
float to_float(T v);
template <>
float to_float<uint8_t>(uint8_t v) {
  return (static_cast<float>(v) - 128.0f) / 128.0f;
}
template <>
float to_float<int16_t>(int16_t v) {
  return static_cast<float>(v) / 32768.0f;
}
template <>
float to_float<int32_t>(int32_t v) {
  return static_cast<float>(v) / 2147483648.0f;
}
template <>
float to_float<int64_t>(int64_t v) {
  return static_cast<float>(v) / 9223372036854775808.0f;
}
template <>
float to_float<float>(float v) {
  return v;
}
template <>
float to_float<double>(double v) {
  return static_cast<float>(v);
}

// Copies frames [first, first + n) of `frame` into interleaved `out` (float32 when normalize).
template <typename T>
void convert(const AVFrame* frame, int channels, bool planar, int64_t first, int64_t n, void* out, bool normalize) {
  if (planar) {
    for (int c = 0; c < channels; ++c) {
      const T* src = reinterpret_cast<const T*>(frame->extended_data[c]) + first;
      if (normalize) {
        float* o = static_cast<float*>(out) + c;
        for (int64_t i = 0; i < n; ++i) o[i * channels] = to_float<T>(src[i]);
      } else {
        T* o = static_cast<T*>(out) + c;
        for (int64_t i = 0; i < n; ++i) o[i * channels] = src[i];
      }
    }
  } else {
    const T* src = reinterpret_cast<const T*>(frame->extended_data[0]) + first * channels;
    if (normalize) {
      float* o = static_cast<float*>(out);
      for (int64_t i = 0; i < n * channels; ++i) o[i] = to_float<T>(src[i]);
    } else {
      std::memcpy(out, src, static_cast<size_t>(n * channels) * sizeof(T));
    }
  }
}

// Copies frames [first, first + n) of `frame` into rows[c][offset...] (float32 when normalize).
template <typename T>
void convert_planar(const AVFrame* frame, int channels, bool planar, int64_t first, int64_t n, void* const* rows,
                    int64_t offset, bool normalize) {
  for (int c = 0; c < channels; ++c) {
    if (planar) {
      const T* src = reinterpret_cast<const T*>(frame->extended_data[c]) + first;
      if (!normalize || std::is_same_v<T, float>) {
        std::memcpy(static_cast<T*>(rows[c]) + offset, src, static_cast<size_t>(n) * sizeof(T));
      } else {
        float* o = static_cast<float*>(rows[c]) + offset;
        for (int64_t i = 0; i < n; ++i) o[i] = to_float<T>(src[i]);
      }
    } else {
      const T* src = reinterpret_cast<const T*>(frame->extended_data[0]) + first * channels + c;
      if (normalize) {
        float* o = static_cast<float*>(rows[c]) + offset;
        for (int64_t i = 0; i < n; ++i) o[i] = to_float<T>(src[i * channels]);
      } else {
        T* o = static_cast<T*>(rows[c]) + offset;
        for (int64_t i = 0; i < n; ++i) o[i] = src[i * channels];
      }
    }
  }
}

class FfmpegDecoder final : public Decoder {
 public:
  FfmpegDecoder(const Input& input, int stream_index, const Limits& limits)
      : input_(input), requested_stream_(stream_index), limits_(limits), name_(input.name()) {
    open();
  }

  int64_t read(void* out, int64_t max_frames, bool normalize) override {
    auto* bytes = static_cast<uint8_t*>(out);
    const size_t frame_bytes = static_cast<size_t>(channels_) * (normalize ? sizeof(float) : element_size(native_));
    return pump(max_frames, [&](int64_t first, int64_t n, int64_t done) {
      void* dst = bytes + static_cast<size_t>(done) * frame_bytes;
      with_native([&]<typename T>(T) { convert<T>(frame_.get(), channels_, planar(), first, n, dst, normalize); });
    });
  }

  std::optional<int64_t> estimated_frames() const override { return estimate_; }

  int64_t read_planar(void* const* rows, int64_t max_frames, bool normalize) override {
    return pump(max_frames, [&](int64_t first, int64_t n, int64_t done) {
      with_native([&]<typename T>(T) {
        convert_planar<T>(frame_.get(), channels_, planar(), first, n, rows, done, normalize);
      });
    });
  }

  void seek(int64_t frame) override {
    if (frame < position_) open();  // exact backward seek: decode again from the start
    pump(frame - position_, [](int64_t, int64_t, int64_t) {});
    position_ = frame;  // past the end: reads return 0
  }

 private:
  // Hands the next frames, up to max_frames, to copy(first frame in frame_, count, frames done before)
  // piece by piece, decoding as needed; advances the position and returns the frames handed (fewer
  // only at the end of the stream).
  template <typename Copy>
  int64_t pump(int64_t max_frames, Copy&& copy) {
    arm_deadline();
    int64_t done = 0;
    while (done < max_frames) {
      if (frame_used_ >= frame_frames_) {
        if (!next_frame()) break;
        continue;
      }
      const int64_t n = std::min(max_frames - done, frame_frames_ - frame_used_);
      copy(frame_used_, n, done);
      frame_used_ += n;
      done += n;
    }
    position_ += done;
    return done;
  }

  // Calls f(T{}) with T the C++ type of native_.
  template <typename F>
  void with_native(F&& f) const {
    switch (native_) {
      case DType::kUInt8: f(uint8_t{}); break;
      case DType::kInt16: f(int16_t{}); break;
      case DType::kInt32: f(int32_t{}); break;
      case DType::kInt64: f(int64_t{}); break;
      case DType::kFloat64: f(double{}); break;
      default: f(float{}); break;
    }
  }

  bool planar() const { return av_sample_fmt_is_planar(static_cast<AVSampleFormat>(frame_->format)); }

  void arm_deadline() {
    deadline_.until =
        std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                               std::chrono::duration<double>(limits_.deadline_seconds));
  }

  void check_deadline() {
    if (deadline_.expired()) {
      throw Error(ErrorCode::kLimitExceeded, name_,
                  fmt::format("decoding took longer than the deadline of {} s", limits_.deadline_seconds));
    }
  }

  AVFormatContext* fmt_ctx() { return memory_ ? memory_->ctx.get() : file_ctx_.get(); }

  // (Re)opens the container and decoder at the start of the stream.
  void open() {
    arm_deadline();
    codec_.reset();
    file_ctx_.reset();
    memory_.reset();
    if (input_.source) {
      memory_ = std::make_unique<ffmpeg::MemoryInput>(ffmpeg::open_input(*input_.source, limits_, deadline_));
    } else {
      file_ctx_ = ffmpeg::open_input(input_.path.string(), limits_, deadline_);
    }
    AVFormatContext* ctx = fmt_ctx();
    stream_ = -1;
    if (requested_stream_ >= 0) {
      if (static_cast<unsigned>(requested_stream_) >= ctx->nb_streams ||
          ctx->streams[requested_stream_]->codecpar->codec_type != AVMEDIA_TYPE_AUDIO) {
        throw Error(ErrorCode::kInvalidInput, name_,
                    fmt::format("stream {} is not an audio stream", requested_stream_));
      }
      stream_ = requested_stream_;
    } else {
      stream_ = ffmpeg::best_stream(*ctx, AVMEDIA_TYPE_AUDIO);
      if (stream_ < 0) throw Error(ErrorCode::kInvalidInput, name_, "holds no audio stream");
    }
    for (unsigned i = 0; i < ctx->nb_streams; ++i) {
      if (static_cast<int>(i) != stream_) ctx->streams[i]->discard = AVDISCARD_ALL;
    }
    const AVCodecParameters* par = ctx->streams[stream_]->codecpar;
    const AVCodec* codec = avcodec_find_decoder(par->codec_id);
    if (codec == nullptr) {
      throw Error(ErrorCode::kUnsupported, name_,
                  fmt::format("no decoder for audio codec {}", avcodec_get_name(par->codec_id)));
    }
    codec_.reset(avcodec_alloc_context3(codec));
    if (!codec_) throw std::bad_alloc();
    int ret = avcodec_parameters_to_context(codec_.get(), par);
    if (ret < 0) ffmpeg::throw_error(ret, name_, "cannot set up the audio decoder");
    if (par->ch_layout.nb_channels <= 0 || par->sample_rate <= 0) {
      throw Error(ErrorCode::kInvalidInput, name_,
                  fmt::format("audio stream has {} channels at {} Hz", par->ch_layout.nb_channels, par->sample_rate));
    }
    ret = avcodec_open2(codec_.get(), codec, nullptr);
    if (ret < 0) ffmpeg::throw_error(ret, name_, "cannot open the audio decoder");
    const bool first_open = sample_rate_ == 0;
    if (first_open) {
      sample_rate_ = par->sample_rate;
      channels_ = par->ch_layout.nb_channels;
      native_ = native_of(codec_->sample_fmt, name_);
      const AVStream* st = ctx->streams[stream_];
      if (st->duration > 0 && st->time_base.num > 0 && st->time_base.den > 0) {
        estimate_ = av_rescale_q(st->duration, st->time_base, AVRational{1, sample_rate_});
      } else if (ctx->duration > 0) {
        estimate_ = av_rescale_q(ctx->duration, AVRational{1, AV_TIME_BASE}, AVRational{1, sample_rate_});
      }
    }
    if (!packet_) packet_.reset(av_packet_alloc());
    if (!frame_) frame_.reset(av_frame_alloc());
    if (!packet_ || !frame_) throw std::bad_alloc();
    av_frame_unref(frame_.get());
    frame_frames_ = frame_used_ = 0;
    demux_done_ = flushed_ = decoder_done_ = false;
    position_ = 0;
  }

  // Makes frame_ the next decoded frame; false at the end of the stream.
  bool next_frame() {
    frame_frames_ = frame_used_ = 0;
    while (!decoder_done_) {
      check_deadline();
      int ret = avcodec_receive_frame(codec_.get(), frame_.get());
      if (ret == 0) {
        check_frame();
        frame_frames_ = frame_->nb_samples;
        if (frame_frames_ > 0) return true;
        continue;
      }
      if (ret == AVERROR_EOF) {
        decoder_done_ = true;
        break;
      }
      if (ret != AVERROR(EAGAIN)) decode_error(ret);
      // The decoder needs input.
      if (demux_done_) {
        if (flushed_) {
          decoder_done_ = true;
          break;
        }
        flushed_ = true;
        ret = avcodec_send_packet(codec_.get(), nullptr);
        if (ret < 0 && ret != AVERROR_EOF) decode_error(ret);
        continue;
      }
      ret = av_read_frame(fmt_ctx(), packet_.get());
      if (ret == AVERROR_EOF) {
        demux_done_ = true;
        continue;
      }
      if (ret < 0) {
        if (ret == AVERROR_EXIT) check_deadline();
        ffmpeg::throw_error(ret, name_, fmt::format("cannot read packet after frame {}", position_));
      }
      if (packet_->stream_index == stream_) {
        ret = avcodec_send_packet(codec_.get(), packet_.get());
        av_packet_unref(packet_.get());
        if (ret < 0 && ret != AVERROR(EAGAIN)) decode_error(ret);
      } else {
        av_packet_unref(packet_.get());
      }
    }
    return false;
  }

  [[noreturn]] void decode_error(int ret) {
    if (ret == AVERROR(ENOMEM)) throw std::bad_alloc();
    throw Error(
        ret == AVERROR_PATCHWELCOME ? ErrorCode::kUnsupported : ErrorCode::kInvalidInput, name_,
        fmt::format("corrupt or truncated audio data after frame {}: {}", position_, ffmpeg::error_string(ret)));
  }

  void check_frame() {
    const int ch = frame_->ch_layout.nb_channels;
    if (ch != channels_ || frame_->sample_rate != sample_rate_) {
      throw Error(ErrorCode::kUnsupported, name_,
                  fmt::format("the stream changes from {} channels at {} Hz to {} channels at {} Hz after frame {}",
                              channels_, sample_rate_, ch, frame_->sample_rate, position_));
    }
    if (native_of(static_cast<AVSampleFormat>(frame_->format), name_) != native_) {
      throw Error(ErrorCode::kUnsupported, name_, fmt::format("the sample format changes after frame {}", position_));
    }
  }

  Input input_;
  int requested_stream_;
  Limits limits_;
  std::string name_;
  ffmpeg::Deadline deadline_{};
  std::unique_ptr<ffmpeg::MemoryInput> memory_;
  ffmpeg::UniqueFormatContext file_ctx_;
  UniqueCodecContext codec_;
  UniquePacket packet_;
  UniqueFrame frame_;
  int stream_ = -1;
  std::optional<int64_t> estimate_;  // frames, from the container's duration
  int64_t frame_frames_ = 0;         // samples per channel in frame_
  int64_t frame_used_ = 0;           // of which already returned
  bool demux_done_ = false, flushed_ = false, decoder_done_ = false;
};

}  // namespace

std::unique_ptr<Decoder> open_ffmpeg(const Input& input, int stream_index, const Limits& limits) {
  return std::make_unique<FfmpegDecoder>(input, stream_index, limits);
}

}  // namespace loom::audio::detail
