// audio::save: WAV, FLAC, AIFF and Ogg/Vorbis through libsndfile (virtual I/O into memory); MP3, Opus and
// AAC (M4A, ADTS) through FFmpeg (ffmpeg::AudioEncoder, muxed into memory through an ffmpeg::AvioSink);
// then loom::write_file_atomic (loom/codec/atomic_file.h).
#include "loom/audio/save.h"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/mem.h>
}
#include <fmt/format.h>
#include <sndfile.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <new>
#include <vector>

#include "loom/codec/atomic_file.h"
#include "loom/codec/byte_source.h"
#include "loom/codec/error.h"
#include "loom/codec/internal/avio_sink.h"
#include "loom/codec/internal/ffmpeg_audio_encoder.h"
#include "loom/codec/internal/ffmpeg_handles.h"
#include "sndfile_memory.h"

namespace loom::audio {
namespace {

using ffmpeg::UniqueOutputContext;

using detail::SndfileCloser;
using MemoryFile = detail::SndfileMemory<std::vector<uint8_t>>;

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::string format_of(const std::filesystem::path& path, const SaveOptions& o, const std::string& name) {
  std::string f = lower(o.format);
  if (f.empty()) {
    const std::string ext = lower(path.extension().string());
    if (ext == ".wav")
      f = "wav";
    else if (ext == ".flac")
      f = "flac";
    else if (ext == ".aif" || ext == ".aiff" || ext == ".aifc")
      f = "aiff";
    else if (ext == ".ogg" || ext == ".oga")
      f = "ogg";
    else if (ext == ".opus")
      f = "opus";
    else if (ext == ".mp3")
      f = "mp3";
    else if (ext == ".m4a")
      f = "m4a";
    else if (ext == ".aac")
      f = "adts";
    else
      throw Error(ErrorCode::kInvalidInput, name,
                  fmt::format("no audio format for the extension \"{}\"; set SaveOptions::format", ext));
  }
  if (f == "vorbis") f = "ogg";
  if (f == "aac") f = "adts";
  if (f != "wav" && f != "flac" && f != "aiff" && f != "ogg" && f != "opus" && f != "mp3" && f != "m4a" &&
      f != "adts") {
    throw Error(ErrorCode::kInvalidInput, name, fmt::format("unknown audio format \"{}\"", o.format));
  }
  return f;
}

// The libsndfile format word for format + encoding + bits.
int sf_format_of(const std::string& format, const SaveOptions& o, DType dtype, const std::string& name) {
  if (format == "ogg") return SF_FORMAT_OGG | SF_FORMAT_VORBIS;
  const int major = format == "wav" ? SF_FORMAT_WAV : format == "flac" ? SF_FORMAT_FLAC : SF_FORMAT_AIFF;
  std::string enc = o.encoding;
  int bits = o.bits_per_sample;
  if (enc.empty()) {
    switch (dtype) {
      case DType::kUInt8: enc = format == "wav" ? "PCM_U" : "PCM_S"; break;
      case DType::kInt16:
      case DType::kInt32: enc = "PCM_S"; break;
      default: enc = format == "flac" ? "PCM_S" : "PCM_F"; break;
    }
  }
  if (bits == 0) {
    if (enc == "ULAW" || enc == "ALAW" || enc == "PCM_U")
      bits = 8;
    else if (enc == "PCM_F")
      bits = dtype == DType::kFloat64 ? 64 : 32;
    else if (dtype == DType::kUInt8)
      bits = 8;
    else if (dtype == DType::kInt16)
      bits = 16;
    else
      bits = format == "flac" ? 24 : 32;
  }
  int sub = 0;
  if (enc == "PCM_S") {
    sub = bits == 8    ? SF_FORMAT_PCM_S8
          : bits == 16 ? SF_FORMAT_PCM_16
          : bits == 24 ? SF_FORMAT_PCM_24
          : bits == 32 ? SF_FORMAT_PCM_32
                       : 0;
  } else if (enc == "PCM_U") {
    sub = bits == 8 ? SF_FORMAT_PCM_U8 : 0;
  } else if (enc == "PCM_F") {
    sub = bits == 32 ? SF_FORMAT_FLOAT : bits == 64 ? SF_FORMAT_DOUBLE : 0;
  } else if (enc == "ULAW") {
    sub = bits == 8 ? SF_FORMAT_ULAW : 0;
  } else if (enc == "ALAW") {
    sub = bits == 8 ? SF_FORMAT_ALAW : 0;
  } else {
    throw Error(ErrorCode::kInvalidInput, name, fmt::format("unknown encoding \"{}\"", enc));
  }
  if (sub == 0) {
    throw Error(ErrorCode::kInvalidInput, name, fmt::format("encoding {} has no {}-bit form", enc, bits));
  }
  return major | sub;
}

// uint8, int16 or int32 samples as doubles in [-1, 1): (x - 128) / 128, x / 2^15, x / 2^31.
std::vector<double> integer_to_unit(const Tensor& t) {
  std::vector<double> out(static_cast<size_t>(t.numel()));
  switch (t.dtype()) {
    case DType::kUInt8:
      std::transform(t.data<uint8_t>(), t.data<uint8_t>() + t.numel(), out.begin(),
                     [](uint8_t v) { return (v - 128) / 128.0; });
      break;
    case DType::kInt16:
      std::transform(t.data<int16_t>(), t.data<int16_t>() + t.numel(), out.begin(),
                     [](int16_t v) { return v / 32768.0; });
      break;
    default:
      std::transform(t.data<int32_t>(), t.data<int32_t>() + t.numel(), out.begin(),
                     [](int32_t v) { return v / 2147483648.0; });
      break;
  }
  return out;
}

// ---- FFmpeg: MP3, Opus, AAC ----

struct FfmpegFormat {
  const char* muxer;
  const char* encoder;
};

FfmpegFormat ffmpeg_format(const std::string& format) {
  if (format == "mp3") return {"mp3", "libmp3lame"};
  if (format == "opus") return {"ogg", "libopus"};
  if (format == "m4a") return {"ipod", "aac"};
  return {"adts", "aac"};
}

bool is_ffmpeg_format(const std::string& format) {
  return format == "mp3" || format == "opus" || format == "m4a" || format == "adts";
}

// Validates bit_rate and compression for `format` and turns them into encoder settings.
void ffmpeg_rate_settings(const std::string& format, const SaveOptions& o, const AVCodec* codec, int channels,
                          int sample_rate, ffmpeg::AudioEncoderSettings& s, const std::string& name) {
  if (o.bit_rate) {
    const int64_t b = *o.bit_rate;
    int64_t lo = 8000, hi = 320000;                            // MP3 (LAME's 8 .. 320 kb/s)
    if (format == "opus") lo = 500, hi = 256000LL * channels;  // libopus, as FFmpeg checks it
    // AAC: at most 6144 bits per channel in a 1024-sample frame.
    if (format == "m4a" || format == "adts") hi = 6LL * ffmpeg::encoder_rate(codec, sample_rate) * channels;
    if (b < lo || b > hi) {
      throw Error(ErrorCode::kInvalidInput, name,
                  fmt::format("bit rate {} b/s is out of range for {} ({} to {} b/s here)", b, format, lo, hi));
    }
    s.bit_rate = b;
    // libopus' unconstrained VBR spends far more than the target on tonal audio (a sine at 48 kb/s
    // comes out near 70 kb/s); constrained VBR keeps the average at the target.
    if (format == "opus") s.codec_options["vbr"] = "constrained";
  }
  if (o.compression) {
    const double c = *o.compression;
    if (format == "mp3" && c >= 0 && c <= 9) {
      if (o.bit_rate) {
        throw Error(ErrorCode::kInvalidInput, name,
                    "mp3 takes a bit_rate (CBR) or a compression (VBR quality), not both");
      }
      s.vbr_quality = c;
    } else if (format == "opus" && c >= 0 && c <= 10 && c == std::floor(c)) {
      s.compression_level = static_cast<int>(c);
    } else {
      throw Error(ErrorCode::kInvalidInput, name, fmt::format("compression {} is out of range for {}", c, format));
    }
  }
}

// float32 planar [C, N] copy of `frames_first` ([N, C], any supported dtype), integers scaled to [-1, 1).
Tensor planar_float(const Tensor& frames_first) {
  const int64_t n = frames_first.size(0), c = frames_first.size(1);
  Tensor out = Tensor::empty({c, n}, DType::kFloat32);
  float* dst = out.data<float>();
  auto put = [&](auto&& value_at) {
    for (int64_t i = 0; i < n; ++i)
      for (int64_t ch = 0; ch < c; ++ch) dst[ch * n + i] = static_cast<float>(value_at(i * c + ch));
  };
  switch (frames_first.dtype()) {
    case DType::kFloat32: {
      const float* p = frames_first.data<float>();
      put([p](int64_t k) { return p[k]; });
      break;
    }
    case DType::kFloat64: {
      const double* p = frames_first.data<double>();
      put([p](int64_t k) { return p[k]; });
      break;
    }
    default: {
      const std::vector<double> unit = integer_to_unit(frames_first);
      put([&unit](int64_t k) { return unit[static_cast<size_t>(k)]; });
      break;
    }
  }
  return out;
}

std::vector<uint8_t> encode_ffmpeg(const std::string& format, const Tensor& frames_first, int sample_rate,
                                   const SaveOptions& o, const std::string& name) {
  if (!o.encoding.empty() || o.bits_per_sample != 0) {
    throw Error(ErrorCode::kInvalidInput, name, fmt::format("{} takes no encoding or bits_per_sample", format));
  }
  const int channels = static_cast<int>(frames_first.size(1));
  if (channels > 64)
    throw Error(ErrorCode::kInvalidInput, name, fmt::format("{} channels ({} takes 1 to 64)", channels, format));
  if (sample_rate > 6'000'000)
    throw Error(ErrorCode::kInvalidInput, name, fmt::format("sample rate {} Hz", sample_rate));
  const FfmpegFormat f = ffmpeg_format(format);
  const AVCodec* codec = avcodec_find_encoder_by_name(f.encoder);
  if (codec == nullptr)
    throw Error(ErrorCode::kUnsupported, name, fmt::format("no {} encoder in this FFmpeg", f.encoder));
  const AVOutputFormat* ofmt = av_guess_format(f.muxer, nullptr, nullptr);
  if (ofmt == nullptr) throw Error(ErrorCode::kUnsupported, name, fmt::format("no {} muxer in this FFmpeg", f.muxer));
  ffmpeg::AudioEncoderSettings settings;
  settings.sample_rate = sample_rate;
  settings.channels = channels;
  settings.global_header = (ofmt->flags & AVFMT_GLOBALHEADER) != 0;
  ffmpeg_rate_settings(format, o, codec, channels, sample_rate, settings, name);

  ffmpeg::quiet_logging();
  AVFormatContext* raw = nullptr;
  if (const int r = avformat_alloc_output_context2(&raw, ofmt, nullptr, nullptr); r < 0) {
    ffmpeg::throw_error(r, name, "cannot create the muxer");
  }
  UniqueOutputContext mux(raw);
  mux->flags |= AVFMT_FLAG_BITEXACT;  // no random serial numbers or version strings: same input, same bytes
  ffmpeg::AudioEncoder encoder(name, codec, settings);
  AVStream* stream = encoder.add_stream(mux.get());

  ffmpeg::AvioSink out = ffmpeg::AvioSink::to_memory();
  AVIOContext* io = out.context();
  mux->pb = io;
  mux->flags |= AVFMT_FLAG_CUSTOM_IO;
  if (const int r = avformat_write_header(mux.get(), nullptr); r < 0)
    ffmpeg::throw_error(r, name, "cannot write the header");
  const AVRational codec_tb = encoder.context()->time_base;
  const auto sink = [&](AVPacket* p) {
    av_packet_rescale_ts(p, codec_tb, stream->time_base);
    p->stream_index = stream->index;
    if (const int r = av_interleaved_write_frame(mux.get(), p); r < 0)
      ffmpeg::throw_error(r, name, "cannot write a packet");
  };
  const Tensor planar = planar_float(frames_first);
  std::vector<const float*> planes(static_cast<size_t>(channels));
  for (int c = 0; c < channels; ++c) planes[static_cast<size_t>(c)] = planar.data<float>() + c * planar.size(1);
  encoder.feed(planes.data(), planar.size(1), sink);
  encoder.finish(sink);
  if (const int r = av_write_trailer(mux.get()); r < 0) ffmpeg::throw_error(r, name, "cannot write the trailer");
  avio_flush(io);
  if (io->error < 0) ffmpeg::throw_error(io->error, name, "cannot write");
  return out.take_bytes();
}

}  // namespace

void save(const std::filesystem::path& path, const Tensor& samples, int sample_rate, const SaveOptions& o) {
  const std::string name = path.string();
  if (!samples.defined() || !samples.device().is_cpu() || (samples.ndim() != 1 && samples.ndim() != 2)) {
    throw Error(ErrorCode::kInvalidInput, name, "samples must be a 1-D or 2-D CPU tensor");
  }
  const DType dtype = samples.dtype();
  if (dtype != DType::kUInt8 && dtype != DType::kInt16 && dtype != DType::kInt32 && dtype != DType::kFloat32 &&
      dtype != DType::kFloat64) {
    throw Error(ErrorCode::kInvalidInput, name, fmt::format("cannot save {} samples", to_string(dtype)));
  }
  // Interleaved [frames, channels], contiguous.
  const Tensor frames_first = samples.ndim() == 1 ? samples.contiguous().view({samples.size(0), 1})
                              : o.channels_first  ? samples.permute({1, 0}).contiguous()
                                                  : samples.contiguous();
  const int64_t frames = frames_first.size(0);
  const int64_t channels = frames_first.size(1);
  if (channels <= 0 || channels > 1024) {
    throw Error(ErrorCode::kInvalidInput, name, fmt::format("{} channels (1 to 1024 can be saved)", channels));
  }
  if (sample_rate <= 0) throw Error(ErrorCode::kInvalidInput, name, fmt::format("sample rate {} Hz", sample_rate));

  const std::string format = format_of(path, o, name);
  if (is_ffmpeg_format(format)) {
    write_file_atomic(path, encode_ffmpeg(format, frames_first, sample_rate, o, name), o.overwrite);
    return;
  }
  if (o.bit_rate) {
    throw Error(ErrorCode::kInvalidInput, name,
                fmt::format("{} takes no bit_rate{}", format,
                            format == "ogg" ? " (set the Vorbis quality with compression)" : ""));
  }
  SF_INFO info{};
  info.samplerate = sample_rate;
  info.channels = static_cast<int>(channels);
  info.format = sf_format_of(format, o, dtype, name);
  if (!sf_format_check(&info)) {
    throw Error(ErrorCode::kInvalidInput, name,
                fmt::format("libsndfile cannot write {} with this encoding, {} channels "
                            "and {} Hz",
                            format, channels, sample_rate));
  }
  double level = -1;
  if (o.compression) {
    const double c = *o.compression;
    if (format == "flac" && c >= 0 && c <= 8)
      level = c / 8.0;
    else if (format == "ogg" && c >= 0 && c <= 10)
      level = 1.0 - c / 10.0;
    else
      throw Error(ErrorCode::kInvalidInput, name, fmt::format("compression {} is out of range for {}", c, format));
  }

  MemoryFile out;
  SF_VIRTUAL_IO io = MemoryFile::io();
  {
    std::unique_ptr<SNDFILE, SndfileCloser> file(sf_open_virtual(&io, SFM_WRITE, &info, &out));
    if (!file) {
      throw Error(ErrorCode::kInvalidInput, name, fmt::format("cannot encode {}: {}", format, sf_strerror(nullptr)));
    }
    SNDFILE* f = file.get();
    sf_command(f, SFC_SET_CLIPPING, nullptr, SF_TRUE);
    if (level >= 0 && !sf_command(f, SFC_SET_COMPRESSION_LEVEL, &level, sizeof(level))) {
      throw Error(ErrorCode::kInvalidInput, name, fmt::format("cannot set compression: {}", sf_strerror(f)));
    }
    sf_count_t written = 0;
    const int subtype = info.format & SF_FORMAT_SUBMASK;
    if ((subtype == SF_FORMAT_FLOAT || subtype == SF_FORMAT_DOUBLE) && dtype != DType::kFloat32 &&
        dtype != DType::kFloat64) {
      // Integer samples into a float file: scaled to [-1, 1) as load(normalize=true) reads them
      // (libsndfile would store the integer values unscaled).
      written = sf_writef_double(f, integer_to_unit(frames_first).data(), frames);
    } else {
      switch (dtype) {
        case DType::kUInt8: {
          std::vector<short> wide(static_cast<size_t>(frames * channels));
          const uint8_t* p = frames_first.data<uint8_t>();
          for (size_t i = 0; i < wide.size(); ++i) wide[i] = static_cast<short>((p[i] - 128) * 256);
          written = sf_writef_short(f, wide.data(), frames);
          break;
        }
        case DType::kInt16: written = sf_writef_short(f, frames_first.data<int16_t>(), frames); break;
        case DType::kInt32: written = sf_writef_int(f, frames_first.data<int32_t>(), frames); break;
        case DType::kFloat32: written = sf_writef_float(f, frames_first.data<float>(), frames); break;
        default: written = sf_writef_double(f, frames_first.data<double>(), frames); break;
      }
    }
    if (written != frames) {
      throw Error(ErrorCode::kInvalidInput, name, fmt::format("cannot encode {}: {}", format, sf_strerror(f)));
    }
    // sf_close (the deleter) writes the final headers and flushes encoders into `out`.
  }
  write_file_atomic(path, out.bytes, o.overwrite);
}

}  // namespace loom::audio
