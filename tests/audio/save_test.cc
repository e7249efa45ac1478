// audio::save: lossless round trips, parity with soundfile's own writing, lossy formats readable by
// soundfile/ffprobe/sox, atomic writes, bad arguments.
#include "loom/audio/save.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

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
  struct Case { const char* file; Tensor x; std::string encoding; int bits; };
  const std::vector<Case> cases = {
      {"f32.wav", f32, "", 0},      {"f64.wav", f64, "", 0},        {"s16.wav", s16, "", 0},
      {"s32.wav", s32, "", 0},      {"u8.wav", u8, "", 0},          {"s16.flac", s16, "", 0},
      {"s24.flac", s24, "", 0},     {"s24.wav", s24, "PCM_S", 24},  {"s16.aiff", s16, "", 0},
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
  struct Case { const char* file; const char* sf_format; const char* sf_subtype; const char* encoding; int bits; const char* dtype; };
  const Case cases[] = {
      {"a.wav", "WAV", "PCM_16", "PCM_S", 16, "int32"},   {"b.wav", "WAV", "PCM_24", "PCM_S", 24, "int32"},
      {"c.wav", "WAV", "PCM_32", "PCM_S", 32, "int32"},   {"d.wav", "WAV", "PCM_U8", "PCM_U", 8, "int32"},
      {"e.wav", "WAV", "ULAW", "ULAW", 0, "int32"},       {"f.wav", "WAV", "ALAW", "ALAW", 0, "int32"},
      {"g.wav", "WAV", "FLOAT", "", 0, "float32"},        {"h.flac", "FLAC", "PCM_16", "PCM_S", 16, "int32"},
      {"i.flac", "FLAC", "PCM_24", "", 0, "int32"},       {"j.aiff", "AIFF", "PCM_16", "PCM_S", 16, "int32"},
      {"k.aiff", "AIFF", "ULAW", "ULAW", 8, "int32"},     {"l.flac", "FLAC", "PCM_S8", "PCM_S", 8, "int32"},
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
  SaveOptions opus;
  opus.format = "opus";
  EXPECT_EQ(loom::test::error_code_of([&] { save(out, x, 44100, opus); }), ErrorCode::kInvalidInput);  // rate
  SaveOptions keep;
  keep.overwrite = false;
  EXPECT_EQ(loom::test::error_code_of([&] { save(out, x, 44100, keep); }), ErrorCode::kIo);
  EXPECT_EQ(loom::test::read_bytes(out), before);
  EXPECT_EQ(loom::test::error_code_of([&] { save(dir / "new.opus", x, 44100); }), ErrorCode::kInvalidInput);
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
        const double v = x.dtype() == DType::kUInt8 ? x.data<uint8_t>()[i] - 128.0
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
  EXPECT_TRUE(names_in(dir.path()).empty());
}

}  // namespace
}  // namespace loom::audio
