// FFmpeg audio encoding shared by audio::save (MP3, Opus, AAC) and video::VideoEncoder (its audio
// track): an encoder opened for a codec, rate, channels and bit rate; float32 planar input resampled
// and converted with swresample to what the encoder takes; whole encoder frames through a FIFO;
// packets handed to the caller, who muxes them. Private to loom (never included by a public header).
#pragma once

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
}

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace loom::ffmpeg {

struct AudioEncoderSettings {
  int sample_rate = 0;              // of the input; the encoder runs at the nearest rate it supports at or above it
  int channels = 0;                 // 1 .. 64
  std::optional<int64_t> bit_rate;  // bits per second; empty: the encoder's default
  std::optional<int> compression_level;              // AVCodecContext::compression_level (Opus: complexity 0..10)
  std::optional<double> vbr_quality;                 // AV_CODEC_FLAG_QSCALE with this quality (LAME: -V 0..9)
  bool global_header = false;                        // the muxer wants extradata (AVFMT_GLOBALHEADER)
  std::map<std::string, std::string> codec_options;  // the encoder's private options (libopus: "vbr")
};

// The rate `codec` runs at for input at `rate`: `rate` itself when supported (or when the codec lists
// none), else the lowest supported rate above it, else the highest.
int encoder_rate(const AVCodec* codec, int rate);

class AudioEncoder {
 public:
  // A packet in the encoder's time base (1 / sample rate); the sink rescales and muxes it (the encoder
  // unreferences it afterwards).
  using PacketSink = std::function<void(AVPacket*)>;

  // Opens `codec` (an audio encoder). Throws loom::Error naming `input`: kInvalidInput for settings
  // the encoder refuses (rate, channels, bit rate).
  AudioEncoder(const std::string& input, const AVCodec* codec, const AudioEncoderSettings& settings);
  ~AudioEncoder();
  AudioEncoder(const AudioEncoder&) = delete;
  AudioEncoder& operator=(const AudioEncoder&) = delete;

  const AVCodecContext* context() const;

  // A new stream of `fmt` with this encoder's parameters and time base.
  AVStream* add_stream(AVFormatContext* fmt) const;

  // Feeds `n` samples per channel (planes[c][0 .. n), float32) and sends every whole encoder frame.
  void feed(const float* const* planes, int64_t n, const PacketSink& sink);
  // Flushes the resampler, the last partial frame and the encoder.
  void finish(const PacketSink& sink);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace loom::ffmpeg
