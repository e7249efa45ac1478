// AudioEncoder: float32 planar samples -> swresample -> FIFO of encoder frames -> FFmpeg encoder.
#include "loom/codec/internal/ffmpeg_audio_encoder.h"

extern "C" {
#include <libavutil/audio_fifo.h>
#include <libavutil/channel_layout.h>
#include <libavutil/samplefmt.h>
#include <libswresample/swresample.h>
}

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <new>
#include <vector>

#include "loom/codec/error.h"
#include "loom/codec/internal/ffmpeg_handles.h"

namespace loom::ffmpeg {
namespace {

struct FifoDeleter {
  void operator()(AVAudioFifo* f) const { av_audio_fifo_free(f); }
};

// The encoder's sample format: float if it takes it, else 32-bit integers (FLAC: 24 bits), else its first.
AVSampleFormat sample_format_for(const AVCodec* codec) {
  if (codec->sample_fmts == nullptr) return AV_SAMPLE_FMT_FLTP;
  AVSampleFormat chosen = codec->sample_fmts[0];
  for (const AVSampleFormat* f = codec->sample_fmts; *f != AV_SAMPLE_FMT_NONE; ++f) {
    if (*f == AV_SAMPLE_FMT_FLTP || *f == AV_SAMPLE_FMT_FLT) return *f;
    if (*f == AV_SAMPLE_FMT_S32 && chosen == AV_SAMPLE_FMT_S16) chosen = *f;
  }
  return chosen;
}

}  // namespace

int encoder_rate(const AVCodec* codec, int rate) {
  if (codec->supported_samplerates == nullptr) return rate;
  int above = 0, highest = 0;
  for (const int* r = codec->supported_samplerates; *r != 0; ++r) {
    if (*r == rate) return rate;
    if (*r > rate && (above == 0 || *r < above)) above = *r;
    highest = std::max(highest, *r);
  }
  return above != 0 ? above : highest;
}

struct AudioEncoder::Impl {
  std::string input;
  UniqueCodecContext ctx;
  UniqueSwr swr;
  std::unique_ptr<AVAudioFifo, FifoDeleter> fifo;
  UniqueFrame frame;
  UniquePacket packet;
  int channels = 0;
  int64_t pts = 0;  // encoder samples sent so far

  // Sends `f` (nullptr: flush) and hands every packet back to `sink`.
  void encode(const AVFrame* f, const PacketSink& sink) {
    int r = avcodec_send_frame(ctx.get(), f);
    if (r < 0) ffmpeg::throw_error(r, input, fmt::format("cannot encode ({})", ctx->codec->name));
    for (;;) {
      r = avcodec_receive_packet(ctx.get(), packet.get());
      if (r == AVERROR(EAGAIN) || r == AVERROR_EOF) return;
      if (r < 0) ffmpeg::throw_error(r, input, fmt::format("cannot encode ({})", ctx->codec->name));
      sink(packet.get());
      av_packet_unref(packet.get());
    }
  }

  // Encodes whole encoder frames from the FIFO; with `flush` also the last partial one.
  void drain(bool flush, const PacketSink& sink) {
    const int frame_size = ctx->frame_size > 0 ? ctx->frame_size : 1024;
    while (av_audio_fifo_size(fifo.get()) >= frame_size || (flush && av_audio_fifo_size(fifo.get()) > 0)) {
      const int n = std::min(frame_size, av_audio_fifo_size(fifo.get()));
      AVFrame* f = frame.get();
      av_frame_unref(f);
      f->nb_samples = n;
      f->format = ctx->sample_fmt;
      f->sample_rate = ctx->sample_rate;
      if (av_channel_layout_copy(&f->ch_layout, &ctx->ch_layout) < 0) throw std::bad_alloc();
      if (av_frame_get_buffer(f, 0) < 0) throw std::bad_alloc();
      if (av_audio_fifo_read(fifo.get(), reinterpret_cast<void**>(f->data), n) != n) {
        throw Error(ErrorCode::kInternal, input, "audio FIFO underrun");
      }
      f->pts = pts;
      pts += n;
      encode(f, sink);
    }
  }

  // swr_convert of `n` input samples (in == nullptr: flush) into the FIFO.
  void convert(const uint8_t* const* in, int n) {
    const int cap = swr_get_out_samples(swr.get(), n) + 32;
    uint8_t** out = nullptr;
    int linesize = 0;
    if (av_samples_alloc_array_and_samples(&out, &linesize, ctx->ch_layout.nb_channels, cap, ctx->sample_fmt, 0) < 0) {
      throw std::bad_alloc();
    }
    struct Free {
      uint8_t** p;
      ~Free() {
        av_freep(&p[0]);
        av_freep(&p);
      }
    } free_out{out};
    for (;;) {
      const int got = swr_convert(swr.get(), out, cap, const_cast<const uint8_t**>(in), n);
      if (got < 0) ffmpeg::throw_error(got, input, "cannot convert audio");
      if (got > 0 && av_audio_fifo_write(fifo.get(), reinterpret_cast<void**>(out), got) != got) throw std::bad_alloc();
      if (in != nullptr || got == 0) return;  // a flush loops until swr is empty
    }
  }
};

AudioEncoder::AudioEncoder(const std::string& input, const AVCodec* codec, const AudioEncoderSettings& s)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.input = input;
  if (codec == nullptr || codec->type != AVMEDIA_TYPE_AUDIO) {
    throw Error(ErrorCode::kInvalidInput, input, "not an audio encoder");
  }
  if (s.channels < 1 || s.channels > 64) {
    throw Error(ErrorCode::kInvalidInput, input, fmt::format("{} audio channels (1 to 64)", s.channels));
  }
  if (s.sample_rate <= 0 || s.sample_rate > 6'000'000) {
    throw Error(ErrorCode::kInvalidInput, input, fmt::format("invalid audio sample rate {}", s.sample_rate));
  }
  m.channels = s.channels;
  m.ctx.reset(check_alloc(avcodec_alloc_context3(codec)));
  AVCodecContext* ac = m.ctx.get();
  const int rate = encoder_rate(codec, s.sample_rate);
  ac->sample_rate = rate;
  ac->time_base = {1, rate};
  ac->sample_fmt = sample_format_for(codec);
  if (ac->sample_fmt == AV_SAMPLE_FMT_S32) ac->bits_per_raw_sample = 24;
  av_channel_layout_default(&ac->ch_layout, s.channels);
  if (s.global_header) ac->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
  if (s.bit_rate) ac->bit_rate = *s.bit_rate;
  if (s.compression_level) ac->compression_level = *s.compression_level;
  if (s.vbr_quality) {
    ac->flags |= AV_CODEC_FLAG_QSCALE;
    ac->global_quality = static_cast<int>(std::lround(FF_QP2LAMBDA * *s.vbr_quality));
  }
  ffmpeg::open_encoder(ac, s.codec_options, input);
  AVChannelLayout in_layout{};
  av_channel_layout_default(&in_layout, s.channels);
  SwrContext* swr = nullptr;
  const int r = swr_alloc_set_opts2(&swr, &ac->ch_layout, ac->sample_fmt, rate, &in_layout, AV_SAMPLE_FMT_FLTP,
                                    s.sample_rate, 0, nullptr);
  av_channel_layout_uninit(&in_layout);
  m.swr.reset(swr);
  if (r < 0) ffmpeg::throw_error(r, input, "cannot set up audio conversion");
  if (const int ri = swr_init(swr); ri < 0) ffmpeg::throw_error(ri, input, "cannot set up audio conversion");
  m.fifo.reset(check_alloc(av_audio_fifo_alloc(ac->sample_fmt, ac->ch_layout.nb_channels, 4096)));
  m.frame.reset(check_alloc(av_frame_alloc()));
  m.packet.reset(check_alloc(av_packet_alloc()));
}

AudioEncoder::~AudioEncoder() = default;

const AVCodecContext* AudioEncoder::context() const {
  return impl_->ctx.get();
}

AVStream* AudioEncoder::add_stream(AVFormatContext* fmt) const {
  AVStream* st = check_alloc(avformat_new_stream(fmt, nullptr));
  st->time_base = impl_->ctx->time_base;
  if (const int r = avcodec_parameters_from_context(st->codecpar, impl_->ctx.get()); r < 0) {
    ffmpeg::throw_error(r, impl_->input, "cannot set audio stream parameters");
  }
  return st;
}

void AudioEncoder::feed(const float* const* planes, int64_t n, const PacketSink& sink) {
  Impl& m = *impl_;
  constexpr int64_t kChunk = 8192;
  std::vector<const uint8_t*> in(static_cast<size_t>(m.channels));
  for (int64_t done = 0; done < n;) {
    const int k = static_cast<int>(std::min(kChunk, n - done));
    for (int c = 0; c < m.channels; ++c)
      in[static_cast<size_t>(c)] = reinterpret_cast<const uint8_t*>(planes[c] + done);
    m.convert(in.data(), k);
    done += k;
    m.drain(false, sink);
  }
}

void AudioEncoder::finish(const PacketSink& sink) {
  Impl& m = *impl_;
  m.convert(nullptr, 0);
  m.drain(true, sink);
  m.encode(nullptr, sink);
}

}  // namespace loom::ffmpeg
