// audio::save: lossless round trips, parity with soundfile's own writing, lossy formats readable by
// soundfile/ffprobe/sox, atomic writes, bad arguments.
#include "loom/audio/save.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "audio_reference.h"
#include "loom/audio/info.h"
#include "loom/audio/load.h"
#include "loom/codec/error.h"
#include "test_media.h"

namespace loom::audio {
namespace {
namespace fs = std::filesystem;
using loom::test::same_samples;

// [channels, frames] float32: a different sine per channel, in [-0.9, 0.9], with the exact extremes.
Tensor sine(int channels, int64_t frames, int rate) {
  Tensor t = Tensor::empty({channels, frames}, DType::kFloat32);
  float* p = t.data<float>();
  for (int c = 0; c < channels; ++c) {
    for (int64_t i = 0; i < frames; ++i) {
      p[c * frames + i] = static_cast<float>(0.9 * std::sin(2 * M_PI * (220.0 * (c + 1)) * i / rate));
    }
  }
  p[0] = 1.0f;
  p[1] = -1.0f;
  return t;
}

template <typename T>
Tensor quantize(const Tensor& x, double scale, double offset) {
  Tensor t = Tensor::empty(x.shape(), dtype_of<T>());
  for (int64_t i = 0; i < x.numel(); ++i) {
    t.data<T>()[i] = static_cast<T>(std::lround(x.data<float>()[i] * scale + offset));
  }
  return t;
}

TEST(AudioSaveTest, LosslessRoundTrips) {
  loom::test::TempDir dir;
  const Tensor f32 = sine(2, 5000, 16000);
  Tensor f64 = Tensor::empty({2, 5000}, DType::kFloat64);
  for (int64_t i = 0; i < f32.numel(); ++i) f64.data<double>()[i] = f32.data<float>()[i] * 1.25;  // beyond 1 is kept
  const Tensor s16 = quantize<int16_t>(f32, 32767, 0);
  const Tensor s32 = quantize<int32_t>(f32, 2147483000.0, 0);
  const Tensor u8 = quantize<uint8_t>(f32, 127, 128);
  Tensor s24 = quantize<int32_t>(f32, 8388607, 0);
  for (int64_t i = 0; i < s24.numel(); ++i) s24.data<int32_t>()[i] *= 256;  // left-aligned, as load returns it
  struct Case {
    const char* file;
    Tensor x;
    std::string encoding;
    int bits;
  };
  const std::vector<Case> cases = {
      {"f32.wav", f32, "", 0},        {"f64.wav", f64, "", 0},        {"s16.wav", s16, "", 0},
      {"s32.wav", s32, "", 0},        {"u8.wav", u8, "", 0},          {"s16.flac", s16, "", 0},
      {"s24.flac", s24, "", 0},       {"s24.wav", s24, "PCM_S", 24},  {"s16.aiff", s16, "", 0},
      {"s32.aiff", s32, "PCM_S", 32}, {"f32.aiff", f32, "PCM_F", 32}, {"s16b.flac", s16, "PCM_S", 16},
  };
  for (const Case& c : cases) {
    SaveOptions o;
    o.encoding = c.encoding;
    o.bits_per_sample = c.bits;
    save(dir / c.file, c.x, 16000, o);
    LoadOptions lo;
    lo.normalize = false;
    const Audio a = load(dir / c.file, lo);
    EXPECT_EQ(a.sample_rate, 16000) << c.file;
    EXPECT_TRUE(same_samples(a.samples, c.x)) << c.file;
  }
  // frames-first input and a 1-D (mono) tensor.
  SaveOptions o;
  o.channels_first = false;
  save(dir / "ff.wav", s16.permute({1, 0}).contiguous(), 8000, o);
  LoadOptions lo;
  lo.normalize = false;
  EXPECT_TRUE(same_samples(load(dir / "ff.wav", lo).samples, s16));
  save(dir / "mono.flac", s16.select(0, 1), 8000);
  EXPECT_TRUE(same_samples(load(dir / "mono.flac", lo).samples, s16.slice(0, 1, 2).contiguous()));
}

// soundfile reads loom's file exactly as it reads the file it writes itself from the same samples.
TEST(AudioSaveTest, SameAsSoundfileWrites) {
  loom::test::TempDir dir;
  const Tensor x = sine(2, 3000, 22050);
  struct Case {
    const char* file;
    const char* sf_format;
    const char* sf_subtype;
    const char* encoding;
    int bits;
    const char* dtype;
  };
  const Case cases[] = {
      {"a.wav", "WAV", "PCM_16", "PCM_S", 16, "int32"}, {"b.wav", "WAV", "PCM_24", "PCM_S", 24, "int32"},
      {"c.wav", "WAV", "PCM_32", "PCM_S", 32, "int32"}, {"d.wav", "WAV", "PCM_U8", "PCM_U", 8, "int32"},
      {"e.wav", "WAV", "ULAW", "ULAW", 0, "int32"},     {"f.wav", "WAV", "ALAW", "ALAW", 0, "int32"},
      {"g.wav", "WAV", "FLOAT", "", 0, "float32"},      {"h.flac", "FLAC", "PCM_16", "PCM_S", 16, "int32"},
      {"i.flac", "FLAC", "PCM_24", "", 0, "int32"},     {"j.aiff", "AIFF", "PCM_16", "PCM_S", 16, "int32"},
      {"k.aiff", "AIFF", "ULAW", "ULAW", 8, "int32"},   {"l.flac", "FLAC", "PCM_S8", "PCM_S", 8, "int32"},
  };
  for (const Case& c : cases) {
    SaveOptions o;
    o.encoding = c.encoding;
    o.bits_per_sample = c.bits;
    save(dir / c.file, x, 22050, o);
    const auto out = loom::test::run_python_reference(
        "audio_save.py", {{"samples", x.permute({1, 0}).contiguous()}},
        std::string("{\"file\": \"") + (dir / c.file).string() + "\", \"format\": \"" + c.sf_format +
            "\", \"subtype\": \"" + c.sf_subtype + "\", \"rate\": 22050, \"dtype\": \"" + c.dtype + "\"}");
    ASSERT_EQ(out.count("loom"), 1u) << c.file;
    EXPECT_EQ(out.at("format").data<int64_t>()[0], 1) << c.file << ": not " << c.sf_format << "/" << c.sf_subtype;
    EXPECT_EQ(out.at("info").data<int64_t>()[2], 3000) << c.file;
    EXPECT_TRUE(same_samples(out.at("loom"), out.at("soundfile"))) << c.file;
  }
}

TEST(AudioSaveTest, LossyFormatsAreReadableEverywhere) {
  loom::test::TempDir dir;
  const Tensor x = sine(2, 48000, 48000);
  for (const char* file : {"v.ogg", "o.opus", "m.mp3"}) {
    save(dir / file, x, 48000);
    const AudioInfo i = info(dir / file);
    EXPECT_EQ(i.channels, 2) << file;
    EXPECT_EQ(i.sample_rate, 48000) << file;
    const std::string cmd = "ffprobe -v error -show_streams " + (dir / file).string() + " >/dev/null";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << file;
    const Audio a = load(dir / file);
    ASSERT_EQ(a.samples.size(0), 2) << file;
    // Lossy codecs shift and pad: the decoded length is within 2 frames of audio of the input's.
    EXPECT_NEAR(static_cast<double>(a.samples.size(1)), 48000.0, 2 * 1152.0) << file;
    // The tone is there: the decoded signal's energy is close to the input's.
    double e_in = 0, e_out = 0;
    for (int64_t i2 = 0; i2 < 48000; ++i2) e_in += std::pow(x.data<float>()[i2], 2);
    const Tensor ch0 = a.samples.select(0, 0).contiguous();
    for (int64_t i2 = 0; i2 < ch0.numel(); ++i2) e_out += std::pow(ch0.data<float>()[i2], 2);
    EXPECT_NEAR(e_out / e_in, 1.0, 0.1) << file;
  }
  // Compression changes the size: FLAC level 0 vs 8, Vorbis quality 1 vs 9.
  auto size_with = [&](const char* file, double c) {
    SaveOptions o;
    o.compression = c;
    save(dir / file, x, 48000, o);
    return fs::file_size(dir / file);
  };
  EXPECT_GT(size_with("q1.ogg", 9), size_with("q9.ogg", 1));
  const Tensor s16 = quantize<int16_t>(sine(2, 48000, 48000), 32767, 0);
  SaveOptions fast, small;
  fast.compression = 0;
  small.compression = 8;
  save(dir / "c0.flac", s16, 48000, fast);
  save(dir / "c8.flac", s16, 48000, small);
  EXPECT_GT(fs::file_size(dir / "c0.flac"), fs::file_size(dir / "c8.flac"));
  LoadOptions lo;
  lo.normalize = false;
  EXPECT_TRUE(same_samples(load(dir / "c8.flac", lo).samples, s16));
  // sox accepts loom's WAV and FLAC.
  save(dir / "s.wav", s16, 48000);
  for (const char* f : {"s.wav", "c8.flac"}) {
    EXPECT_EQ(std::system(("sox " + (dir / f).string() + " -n stat 2>/dev/null").c_str()), 0) << f;
  }
}

// The largest normalised cross-correlation of `a` and `b` (1-D float32) over lags -max_lag .. max_lag.
double best_correlation(const float* a, int64_t na, const float* b, int64_t nb, int64_t max_lag) {
  double best = -1;
  for (int64_t lag = -max_lag; lag <= max_lag; ++lag) {
    double ab = 0, aa = 0, bb = 0;
    for (int64_t i = 0; i < na; ++i) {
      const int64_t j = i + lag;
      if (j < 0 || j >= nb) continue;
      ab += static_cast<double>(a[i]) * b[j];
      aa += static_cast<double>(a[i]) * a[i];
      bb += static_cast<double>(b[j]) * b[j];
    }
    if (aa > 0 && bb > 0) best = std::max(best, ab / std::sqrt(aa * bb));
  }
  return best;
}

// Each decoded channel [C, N] float32 correlates with the same input channel (a different tone each).
void expect_same_tones(const Tensor& decoded, const Tensor& input, const std::string& what) {
  ASSERT_EQ(decoded.size(0), input.size(0)) << what;
  for (int64_t c = 0; c < input.size(0); ++c) {
    const Tensor d = decoded.select(0, c).contiguous();
    const Tensor x = input.select(0, c).contiguous();
    // The middle second of the input against the decoded signal around it (codec delay: a few frames).
    const int64_t start = 24000, n = 48000;
    if (d.numel() < start + n) {
      ADD_FAILURE() << what << ": only " << d.numel() << " samples";
      return;
    }
    EXPECT_GT(best_correlation(x.data<float>() + start, n, d.data<float>() + start - 2048, n + 4096, 2048), 0.9)
        << what << " channel " << c;
  }
}

// MP3, Opus and AAC through FFmpeg at two bit rates each: ffprobe sees the codec, rate, channels and a
// bit rate near the requested one; the higher rate makes the larger file; loom and PyAV decode the tones.
TEST(AudioSaveTest, FfmpegFormatsAtTwoBitRates) {
  loom::test::TempDir dir;
  const Tensor x = sine(2, 3 * 48000, 48000);
  struct Case {
    const char* ext;
    const char* codec;
    int64_t low, high;
  };
  const Case cases[] = {{"mp3", "mp3", 96000, 192000}, {"opus", "opus", 48000, 128000}, {"m4a", "aac", 96000, 192000}};
  for (const Case& c : cases) {
    uintmax_t sizes[2] = {};
    for (int k = 0; k < 2; ++k) {
      const int64_t rate = k == 0 ? c.low : c.high;
      const fs::path file = dir / fmt::format("{}.{}", rate, c.ext);
      SaveOptions o;
      o.bit_rate = rate;
      save(file, x, 48000, o);
      sizes[k] = fs::file_size(file);
      const std::string what = file.filename().string();
      const auto out = loom::test::run_python_reference(
          "audio_save_ffmpeg.py", {}, fmt::format("{{\"file\": \"{}\", \"codec\": \"{}\"}}", file.string(), c.codec));
      ASSERT_EQ(out.count("probe"), 1u) << what;
      const int64_t* probe = out.at("probe").data<int64_t>();
      EXPECT_EQ(probe[0], 1) << what << ": not " << c.codec;
      EXPECT_EQ(probe[1], 48000) << what;
      EXPECT_EQ(probe[2], 2) << what;
      const int64_t measured = probe[3] > 0 ? probe[3] : probe[4];  // Ogg streams have no bit rate of their own
      EXPECT_NEAR(static_cast<double>(measured), static_cast<double>(rate), 0.15 * rate) << what;
      // PyAV's decode and loom's: the input's length within the codec's padding, and the same tones.
      EXPECT_EQ(out.at("rate").data<int64_t>()[0], 48000) << what;
      const Tensor pyav = out.at("samples");
      EXPECT_NEAR(static_cast<double>(pyav.size(1)), static_cast<double>(x.size(1)), 2048.0) << what;
      expect_same_tones(pyav, x, what + " (PyAV)");
      const Audio a = load(file);
      EXPECT_EQ(a.sample_rate, 48000) << what;
      EXPECT_NEAR(static_cast<double>(a.samples.size(1)), static_cast<double>(x.size(1)), 2048.0) << what;
      expect_same_tones(a.samples, x, what + " (loom)");
    }
    EXPECT_GT(sizes[1], sizes[0]) << c.ext;
  }
}

// Rates the encoder does not take are resampled to one it does; raw ADTS; the encoders' defaults;
// compression as LAME's VBR quality and Opus' complexity; integer input.
TEST(AudioSaveTest, FfmpegFormatsResampleAndDefaults) {
  loom::test::TempDir dir;
  const Tensor x = sine(1, 44100, 44100);
  save(dir / "a.opus", x, 44100);  // Opus runs at 48 kHz
  const Audio opus = load(dir / "a.opus");
  EXPECT_EQ(opus.sample_rate, 48000);
  EXPECT_NEAR(static_cast<double>(opus.samples.size(1)), 48000.0, 2048.0);
  save(dir / "a.aac", x, 44100);  // ADTS
  const Audio adts = load(dir / "a.aac");
  EXPECT_EQ(adts.sample_rate, 44100);
  EXPECT_EQ(adts.samples.size(0), 1);
  EXPECT_NEAR(static_cast<double>(adts.samples.size(1)), 44100.0, 2048.0);
  SaveOptions adts_format;
  adts_format.format = "adts";
  save(dir / "raw.bin", x, 44100, adts_format);
  EXPECT_EQ(loom::test::read_bytes(dir / "raw.bin"), loom::test::read_bytes(dir / "a.aac"));  // bit-exact muxing
  // LAME -V 0 makes a larger file than -V 9.
  auto mp3_size = [&](double q) {
    SaveOptions o;
    o.compression = q;
    const fs::path f = dir / fmt::format("v{}.mp3", q);
    save(f, x, 44100, o);
    EXPECT_EQ(load(f).sample_rate, 44100);
    return fs::file_size(f);
  };
  EXPECT_GT(mp3_size(0), mp3_size(9));
  // int16 input is scaled like float input: the same file.
  const Tensor s16 = quantize<int16_t>(x, 32768, 0);
  Tensor back = Tensor::empty(x.shape(), DType::kFloat32);
  for (int64_t i = 0; i < x.numel(); ++i) back.data<float>()[i] = s16.data<int16_t>()[i] / 32768.0f;
  save(dir / "i.m4a", s16, 44100);
  save(dir / "f.m4a", back, 44100);
  EXPECT_EQ(loom::test::read_bytes(dir / "i.m4a"), loom::test::read_bytes(dir / "f.m4a"));
  const Audio m4a = load(dir / "i.m4a");
  EXPECT_EQ(m4a.sample_rate, 44100);
  EXPECT_NEAR(static_cast<double>(m4a.samples.size(1)), 44100.0, 2048.0);
}

std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(AudioSaveTest, AtomicAndNoPartialFiles) {
  loom::test::TempDir dir;
  const Tensor x = sine(1, 1000, 44100);
  const fs::path out = dir / "keep.wav";
  save(out, x, 44100);
  const auto before = loom::test::read_bytes(out);
  // Failures after the file exists leave it untouched and leave nothing else behind.
  SaveOptions bad_encoding;
  bad_encoding.encoding = "PCM_U";
  bad_encoding.bits_per_sample = 16;
  EXPECT_EQ(loom::test::error_code_of([&] { save(out, x, 44100, bad_encoding); }), ErrorCode::kInvalidInput);
  SaveOptions mp3;  // LAME holds 1 or 2 channels: the FFmpeg encoder refuses 3 when it opens
  mp3.format = "mp3";
  const Tensor three = sine(3, 1000, 44100);
  EXPECT_EQ(loom::test::error_code_of([&] { save(out, three, 44100, mp3); }), ErrorCode::kInvalidInput);
  mp3.bit_rate = 1'000'000;
  EXPECT_EQ(loom::test::error_code_of([&] { save(out, x, 44100, mp3); }), ErrorCode::kInvalidInput);
  SaveOptions keep;
  keep.overwrite = false;
  EXPECT_EQ(loom::test::error_code_of([&] { save(out, x, 44100, keep); }), ErrorCode::kIo);
  EXPECT_EQ(loom::test::read_bytes(out), before);
  EXPECT_EQ(loom::test::error_code_of([&] { save(dir / "new.mp3", three, 44100); }), ErrorCode::kInvalidInput);
  SaveOptions fast_aac;
  fast_aac.bit_rate = 10'000'000;
  EXPECT_EQ(loom::test::error_code_of([&] { save(dir / "new.m4a", three, 44100, fast_aac); }),
            ErrorCode::kInvalidInput);
  EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"keep.wav"});
  // Overwriting replaces the file whole.
  save(out, x, 8000);
  EXPECT_EQ(load(out).sample_rate, 8000);
  EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"keep.wav"});
  // A folder that does not exist: kIo.
  EXPECT_EQ(loom::test::error_code_of([&] { save(dir / "no" / "x.wav", x, 8000); }), ErrorCode::kIo);
}

TEST(AudioSaveTest, IntegerSamplesIntoAFloatFileAreScaledToUnitRange) {
  loom::test::TempDir dir;
  const Tensor f32 = sine(2, 3000, 16000);
  const Tensor s16 = quantize<int16_t>(f32, 32767, 0);
  const Tensor s32 = quantize<int32_t>(f32, 2147483000.0, 0);
  const Tensor u8 = quantize<uint8_t>(f32, 127, 128);
  const std::pair<Tensor, double> cases[] = {{s16, 32768.0}, {s32, 2147483648.0}, {u8, 128.0}};
  for (const auto& [x, scale] : cases) {
    for (int bits : {32, 64}) {
      const fs::path out = dir / fmt::format("{}_{}.wav", to_string(x.dtype()), bits);
      SaveOptions options;
      options.encoding = "PCM_F";
      options.bits_per_sample = bits;
      save(out, x, 16000, options);
      const Tensor y = load(out).samples;  // float32 in [-1, 1]
      ASSERT_EQ(y.numel(), x.numel()) << out;
      for (int64_t i = 0; i < x.numel(); ++i) {
        const double v = x.dtype() == DType::kUInt8   ? x.data<uint8_t>()[i] - 128.0
                         : x.dtype() == DType::kInt16 ? static_cast<double>(x.data<int16_t>()[i])
                                                      : static_cast<double>(x.data<int32_t>()[i]);
        ASSERT_NEAR(y.data<float>()[i], v / scale, 1e-7) << out << " sample " << i;
      }
    }
  }
}

TEST(AudioSaveTest, BadArguments) {
  loom::test::TempDir dir;
  const Tensor x = sine(2, 100, 8000);
  auto code = [&](const fs::path& p, const Tensor& t, int rate, const SaveOptions& o) {
    return loom::test::error_code_of([&] { save(p, t, rate, o); });
  };
  EXPECT_EQ(code(dir / "x.xyz", x, 8000, {}), ErrorCode::kInvalidInput);  // extension
  SaveOptions fmt;
  fmt.format = "wma";
  EXPECT_EQ(code(dir / "x.wav", x, 8000, fmt), ErrorCode::kInvalidInput);
  EXPECT_EQ(code(dir / "x.wav", x, 0, {}), ErrorCode::kInvalidInput);
  EXPECT_EQ(code(dir / "x.wav", Tensor(), 8000, {}), ErrorCode::kInvalidInput);
  EXPECT_EQ(code(dir / "x.wav", Tensor::zeros({0, 10}, DType::kFloat32), 8000, {}), ErrorCode::kInvalidInput);
  EXPECT_EQ(code(dir / "x.wav", Tensor::zeros({2, 10}, DType::kInt64), 8000, {}), ErrorCode::kInvalidInput);
  EXPECT_EQ(code(dir / "x.wav", Tensor::zeros({1, 2, 10}, DType::kFloat32), 8000, {}), ErrorCode::kInvalidInput);
  SaveOptions enc;
  enc.encoding = "PCM_X";
  EXPECT_EQ(code(dir / "x.wav", x, 8000, enc), ErrorCode::kInvalidInput);
  enc.encoding = "PCM_S";
  EXPECT_EQ(code(dir / "x.mp3", x, 8000, enc), ErrorCode::kInvalidInput);  // lossy takes no encoding
  enc.encoding = "PCM_F";
  EXPECT_EQ(code(dir / "x.flac", x, 8000, enc), ErrorCode::kInvalidInput);  // FLAC has no float
  SaveOptions comp;
  comp.compression = 9;
  EXPECT_EQ(code(dir / "x.flac", x, 8000, comp), ErrorCode::kInvalidInput);
  comp.compression = 1;
  EXPECT_EQ(code(dir / "x.wav", x, 8000, comp), ErrorCode::kInvalidInput);  // WAV is not compressed
  EXPECT_EQ(code(dir / "x.m4a", x, 8000, comp), ErrorCode::kInvalidInput);  // AAC has no compression
  comp.compression = 10;
  EXPECT_EQ(code(dir / "x.mp3", x, 8000, comp), ErrorCode::kInvalidInput);  // LAME -V is 0 .. 9
  comp.compression = 2.5;
  EXPECT_EQ(code(dir / "x.opus", x, 8000, comp), ErrorCode::kInvalidInput);  // complexity is an integer
  comp.compression = 2;
  comp.bit_rate = 128000;
  EXPECT_EQ(code(dir / "x.mp3", x, 8000, comp), ErrorCode::kInvalidInput);  // CBR or VBR, not both
  // A bit rate: not for PCM, FLAC or Vorbis; in range for the lossy codecs.
  const std::pair<const char*, int64_t> bad_rates[] = {
      {"x.wav", 128000}, {"x.flac", 128000},    {"x.aiff", 128000}, {"x.ogg", 128000}, {"x.mp3", 0},
      {"x.mp3", -64000}, {"x.mp3", 4000},       {"x.mp3", 640000},  {"x.opus", 100},   {"x.opus", 600000},
      {"x.m4a", 1000},   {"x.m4a", 10'000'000}, {"x.aac", 0},
  };
  for (const auto& [file, rate] : bad_rates) {
    SaveOptions b;
    b.bit_rate = rate;
    EXPECT_EQ(code(dir / file, x, 8000, b), ErrorCode::kInvalidInput) << file << " " << rate;
  }
  EXPECT_TRUE(names_in(dir.path()).empty());
}

}  // namespace
}  // namespace loom::audio
