// audio::apply_effects / apply_effects_file / resample / parse_effects compared with the `sox` CLI
// (Debian sox 14.4.2, the same libsox) on real files, plus refusals and concurrency.
//
// Both sides start from the same samples: the media file is converted by `sox` itself to a 32-bit float
// WAV, which the test reads into a tensor (loom side) and hands to `sox -D in.wav -e signed -b 32 out.wav
// <chain>` (CLI side). The CLI's 32-bit integer output holds libsox's samples exactly, so the comparison
// is exact: loom's float(s / 2^31) against the same formula applied to the CLI's integers.
#include "loom/audio/effects.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "loom/codec/error.h"
#include "test_media.h"

namespace loom::audio {
namespace {
namespace fs = std::filesystem;
using loom::test::TempDir;

struct Wav {
  Tensor samples;  // float32 [channels, frames]
  int sample_rate = 0;
};

uint32_t le32(const uint8_t* p) {
  return p[0] | p[1] << 8 | p[2] << 16 | uint32_t(p[3]) << 24;
}
uint16_t le16(const uint8_t* p) {
  return static_cast<uint16_t>(p[0] | p[1] << 8);
}

// A tiny reader for the WAVs this test has sox write: 32-bit float or 32-bit signed integer PCM (plain or
// WAVE_FORMAT_EXTENSIBLE). Integers become float(s / 2^31), as loom converts libsox's samples.
Wav read_wav(const fs::path& path) {
  const std::vector<uint8_t> bytes = loom::test::read_bytes(path);
  if (bytes.size() < 12 || std::memcmp(bytes.data(), "RIFF", 4) != 0 || std::memcmp(bytes.data() + 8, "WAVE", 4) != 0) {
    ADD_FAILURE() << "not a WAV: " << path;
    return {};
  }
  int format = 0, channels = 0, bits = 0, rate = 0;
  for (size_t pos = 12; pos + 8 <= bytes.size();) {
    const uint32_t size = le32(&bytes[pos + 4]);
    const uint8_t* body = &bytes[pos + 8];
    if (std::memcmp(&bytes[pos], "fmt ", 4) == 0) {
      format = le16(body);
      channels = le16(body + 2);
      rate = static_cast<int>(le32(body + 4));
      bits = le16(body + 14);
      if (format == 0xFFFE) format = le16(body + 24);  // the sub-format GUID starts with the format tag
    } else if (std::memcmp(&bytes[pos], "data", 4) == 0) {
      EXPECT_EQ(bits, 32) << path;
      const int64_t frames = std::min<uint64_t>(size, bytes.size() - pos - 8) / 4 / channels;
      Wav wav{Tensor::empty({channels, frames}, DType::kFloat32), rate};
      float* out = wav.samples.data<float>();
      for (int64_t f = 0; f < frames; ++f) {
        for (int c = 0; c < channels; ++c) {
          const uint8_t* p = body + (f * channels + c) * 4;
          const uint32_t u = le32(p);
          float value;
          if (format == 3) {
            std::memcpy(&value, &u, 4);
          } else {
            EXPECT_EQ(format, 1) << path;
            value = static_cast<float>(static_cast<int32_t>(u) * (1.0 / 2147483648.0));
          }
          out[c * frames + f] = value;
        }
      }
      return wav;
    }
    pos += 8 + size + (size & 1);
  }
  ADD_FAILURE() << "no data chunk: " << path;
  return {};
}

// Writes a 32-bit float WAV from a [channels, frames] tensor.
void write_wav_f32(const fs::path& path, const Tensor& samples, int rate) {
  const int channels = static_cast<int>(samples.size(0));
  const int64_t frames = samples.size(1);
  const Tensor t = samples.contiguous();
  const float* in = t.data<float>();
  std::vector<uint8_t> out;
  auto put32 = [&](uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
  };
  auto put16 = [&](uint16_t v) {
    out.push_back(v & 0xff);
    out.push_back(static_cast<uint8_t>(v >> 8));
  };
  const uint32_t data_size = static_cast<uint32_t>(frames * channels * 4);
  out.insert(out.end(), {'R', 'I', 'F', 'F'});
  put32(4 + 8 + 16 + 8 + data_size);
  out.insert(out.end(), {'W', 'A', 'V', 'E', 'f', 'm', 't', ' '});
  put32(16);
  put16(3);
  put16(static_cast<uint16_t>(channels));
  put32(static_cast<uint32_t>(rate));
  put32(static_cast<uint32_t>(rate * channels * 4));
  put16(static_cast<uint16_t>(channels * 4));
  put16(32);
  out.insert(out.end(), {'d', 'a', 't', 'a'});
  put32(data_size);
  for (int64_t f = 0; f < frames; ++f) {
    for (int c = 0; c < channels; ++c) {
      uint32_t u;
      std::memcpy(&u, &in[c * frames + f], 4);
      put32(u);
    }
  }
  loom::test::write_bytes(path, out);
}

std::string quote(const fs::path& path) {
  return "'" + path.string() + "'";
}

void run_sox(const std::string& args) {
  const std::string command = "sox " + args + " 2>/dev/null";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
}

std::string chain_text(const EffectChain& chain) {
  std::string text;
  for (const Effect& e : chain) {
    text += " " + e.name;
    for (const std::string& a : e.args) text += " " + a;
  }
  return text;
}

// The media file as a 32-bit float WAV written by sox (no dither: widening needs none).
fs::path as_f32_wav(const TempDir& dir, const std::string& media_name) {
  const fs::path out = dir / (fs::path(media_name).stem().string() + ".f32.wav");
  if (!fs::exists(out))
    run_sox("-D " + quote(loom::test::media("audio/" + media_name)) + " -e floating-point -b 32 " + quote(out));
  return out;
}

// `sox -D in.wav -e signed -b 32 out.wav <chain>`, read back.
Wav sox_cli(const TempDir& dir, const fs::path& in, const EffectChain& chain,
            const std::string& out_options = "-e signed -b 32") {
  static std::atomic<int> counter{0};
  const fs::path out = dir / ("cli" + std::to_string(counter++) + ".wav");
  run_sox("-D " + quote(in) + " " + out_options + " " + quote(out) + chain_text(chain));
  return read_wav(out);
}

// Largest |a - b| and the count of differing values; shapes must match.
struct Diff {
  double max_abs = 0;
  int64_t differing = 0;
};

Diff compare(const Tensor& a, const Tensor& b) {
  Diff d;
  EXPECT_EQ(a.ndim(), 2);
  EXPECT_EQ(b.ndim(), 2);
  if (a.ndim() != 2 || b.ndim() != 2 || a.size(0) != b.size(0) || a.size(1) != b.size(1)) {
    ADD_FAILURE() << "shapes differ: [" << a.size(0) << ", " << a.size(1) << "] vs [" << b.size(0) << ", " << b.size(1)
                  << "]";
    d.max_abs = std::numeric_limits<double>::infinity();
    return d;
  }
  const Tensor ca = a.contiguous(), cb = b.contiguous();
  const float* pa = ca.data<float>();
  const float* pb = cb.data<float>();
  for (int64_t i = 0; i < ca.numel(); ++i) {
    if (pa[i] != pb[i]) {
      ++d.differing;
      d.max_abs = std::max(d.max_abs, std::abs(static_cast<double>(pa[i]) - pb[i]));
    }
  }
  return d;
}

// loom on the tensor read from `in` vs the CLI on the file `in`: exactly equal, same rate and shape.
// `loom_extra` is what the CLI adds to `chain` by itself, spelled out for loom.
void expect_equal_to_cli(const TempDir& dir, const fs::path& in, const EffectChain& chain,
                         const EffectChain& loom_extra = {}) {
  SCOPED_TRACE("chain:" + chain_text(chain) + " on " + in.filename().string());
  const Wav input = read_wav(in);
  EffectChain loom_chain = chain;
  loom_chain.insert(loom_chain.end(), loom_extra.begin(), loom_extra.end());
  const EffectResult loom = apply_effects(input.samples, input.sample_rate, loom_chain);
  const Wav cli = sox_cli(dir, in, chain);
  EXPECT_EQ(loom.sample_rate, cli.sample_rate);
  const Diff d = compare(loom.samples, cli.samples);
  EXPECT_EQ(d.differing, 0) << "max |diff| " << d.max_abs;
  EXPECT_GT(loom.samples.size(1), 0);
}

// ---- resampling ----

struct RateCase {
  const char* media;
  int in_rate;
  int out_rate;
};

class ResampleVsSox : public ::testing::TestWithParam<std::tuple<RateCase, ResampleQuality>> {};

const char* quality_flag(ResampleQuality q) {
  static const char* kFlags[] = {"-q", "-l", "-m", "-h", "-v"};
  return kFlags[static_cast<int>(q)];
}

TEST_P(ResampleVsSox, ExactlyEqualsCli) {
  const auto [rc, quality] = GetParam();
  TempDir dir;
  const fs::path in = as_f32_wav(dir, rc.media);
  const Wav input = read_wav(in);
  ASSERT_EQ(input.sample_rate, rc.in_rate);
  const Tensor loom = resample(input.samples, rc.in_rate, rc.out_rate, quality, true, ResampleEngine::kSox);
  const Wav cli = sox_cli(dir, in, {{"rate", {quality_flag(quality), std::to_string(rc.out_rate)}}});
  ASSERT_EQ(cli.sample_rate, rc.out_rate);
  const Diff d = compare(loom, cli.samples);
  EXPECT_EQ(d.differing, 0) << "max |diff| " << d.max_abs;
  // The length is the CLI's: round(frames * out / in).
  EXPECT_NEAR(static_cast<double>(loom.size(1)), std::round(input.samples.size(1) * double(rc.out_rate) / rc.in_rate),
              1);
}

INSTANTIATE_TEST_SUITE_P(
    ResampleRates, ResampleVsSox,
    ::testing::Combine(::testing::Values(RateCase{"tfio_ZASFX_ADSR_no_sustain.f32.wav", 44100, 16000},
                                         RateCase{"exo_bear.flac", 48000, 22050},
                                         RateCase{"sine_mono_f32.wav", 16000, 44100},
                                         RateCase{"pluck-pcm16.wav", 11025, 48000}),
                       ::testing::Values(ResampleQuality::kQuick, ResampleQuality::kLow, ResampleQuality::kMedium,
                                         ResampleQuality::kHigh, ResampleQuality::kVeryHigh)));

// The CLI writing 32-bit float quantises to its own 25-bit grid ((s + 64) & ~127): within 2^-25 of loom.
TEST(ResampleTest, WithinHalfAStepOfCliFloatOutput) {
  TempDir dir;
  const fs::path in = as_f32_wav(dir, "exo_bear.flac");
  const Wav input = read_wav(in);
  const Tensor loom = resample(input.samples, 48000, 16000, ResampleQuality::kHigh, true, ResampleEngine::kSox);
  const Wav cli = sox_cli(dir, in, {{"rate", {"16000"}}}, "-e floating-point -b 32");
  const Diff d = compare(loom, cli.samples);
  EXPECT_LE(d.max_abs, std::ldexp(1.0, -25) + 1e-12);
  EXPECT_GT(d.differing, 0);  // the grids do differ, so the bound above is what is being tested
}

constexpr ResampleEngine kEngines[] = {ResampleEngine::kSoxr, ResampleEngine::kSox};

const char* engine_name(ResampleEngine e) {
  return e == ResampleEngine::kSoxr ? "soxr" : "sox";
}

TEST(ResampleTest, SameRateKeepsTheSamples) {
  TempDir dir;
  const Wav input = read_wav(as_f32_wav(dir, "sine_mono_f32.wav"));
  for (ResampleEngine e : kEngines) {
    const Tensor out = resample(input.samples, 16000, 16000, ResampleQuality::kHigh, true, e);
    // kSox: float32 in [-1, 1] -> x * 2^31 truncated -> / 2^31: exact for these samples (24-bit mantissas).
    EXPECT_EQ(compare(out, input.samples).differing, 0) << engine_name(e);
  }
}

TEST(ResampleTest, ChannelsLastLayoutIsTheTranspose) {
  TempDir dir;
  const Wav input = read_wav(as_f32_wav(dir, "exo_bear.flac"));
  for (ResampleEngine e : kEngines) {
    const Tensor first = resample(input.samples, 48000, 22050, ResampleQuality::kMedium, true, e);
    const Tensor last = resample(input.samples.permute({1, 0}), 48000, 22050, ResampleQuality::kMedium, false, e);
    ASSERT_EQ(last.size(1), 2);
    EXPECT_EQ(compare(first, last.permute({1, 0})).differing, 0) << engine_name(e);
  }
}

TEST(ResampleTest, RefusesBadRatesAndSamples) {
  const Tensor t = Tensor::zeros({1, 100}, DType::kFloat32);
  Tensor nan = Tensor::zeros({2, 100}, DType::kFloat32);
  nan.data<float>()[150] = std::numeric_limits<float>::quiet_NaN();
  for (ResampleEngine e : kEngines) {
    SCOPED_TRACE(engine_name(e));
    auto code = [&](const Tensor& x, int in, int out) {
      return loom::test::error_code_of([&] { resample(x, in, out, ResampleQuality::kHigh, true, e); });
    };
    EXPECT_EQ(code(t, 0, 16000), ErrorCode::kInvalidInput);
    EXPECT_EQ(code(t, 16000, 0), ErrorCode::kInvalidInput);
    EXPECT_EQ(code(t, 16000, -5), ErrorCode::kInvalidInput);
    EXPECT_EQ(code(t, 100'000'000, 16000), ErrorCode::kLimitExceeded);
    EXPECT_EQ(code(Tensor::zeros({1, 0}, DType::kFloat32), 16000, 8000), ErrorCode::kInvalidInput);
    EXPECT_EQ(code(Tensor::zeros({1, 100}, DType::kFloat64), 16000, 8000), ErrorCode::kInvalidInput);
    const Error error = loom::test::error_of([&] { resample(nan, 16000, 8000, ResampleQuality::kHigh, true, e); });
    EXPECT_EQ(error.code(), ErrorCode::kInvalidInput);
    EXPECT_NE(std::string(error.what()).find("NaN or infinity (channel 1, frame 50)"), std::string::npos)
        << error.what();
  }
  // An output larger than Limits::max_bytes is refused before any work.
  const Tensor long_input = Tensor::zeros({1, 1'000'000}, DType::kFloat32);
  EXPECT_EQ(loom::test::error_code_of([&] { resample(long_input, 8000, 10'000'000); }), ErrorCode::kLimitExceeded);
}

// libsoxr against the analytic result: tones of 1 and 3 kHz resampled down and up equal the same tones
// sampled at the new rate, within the recipe's precision (20 bits at kHigh, 28 at kVeryHigh, of which
// float32 output keeps about 24), away from the ends (the filters' edges). Every quality gives the
// sox engine's length, round(frames * out / in), and the last frames carry the tone (soxr_oneshot left
// the last 124 of 60 s + 1 frame at 44.1 -> 16 kHz silent).
TEST(ResampleTest, SoxrEqualsTheIdealTones) {
  for (auto [in, out, seconds] :
       {std::tuple{44100, 16000, 60}, {16000, 44100, 2}, {48000, 22050, 2}, {8000, 48000, 2}}) {
    const int64_t n = seconds * in + (seconds == 60 ? 1 : 7);
    Tensor t = Tensor::empty({2, n}, DType::kFloat32);
    auto tone = [](int channel, double k, int rate) {
      return channel == 0 ? 0.5 * std::sin(2 * M_PI * 1000.0 * k / rate)
                          : 0.25 * std::cos(2 * M_PI * 3000.0 * k / rate + 0.3);
    };
    for (int64_t k = 0; k < n; ++k) {
      for (int c = 0; c < 2; ++c) t.data<float>()[c * n + k] = static_cast<float>(tone(c, static_cast<double>(k), in));
    }
    for (ResampleQuality q : {ResampleQuality::kQuick, ResampleQuality::kLow, ResampleQuality::kMedium,
                              ResampleQuality::kHigh, ResampleQuality::kVeryHigh}) {
      SCOPED_TRACE(std::to_string(in) + " -> " + std::to_string(out) + " Hz, quality " +
                   std::to_string(static_cast<int>(q)));
      const Tensor got = resample(t, in, out, q);
      const int64_t m = got.size(1);
      EXPECT_EQ(m, std::llround(static_cast<double>(n) * out / in));
      EXPECT_EQ(m, resample(t, in, out, q, true, ResampleEngine::kSox).size(1));
      double tail = 0;
      for (int64_t k = m - 20; k < m; ++k) tail = std::max(tail, static_cast<double>(std::abs(got.data<float>()[k])));
      EXPECT_GT(tail, 0.25) << "the last frames are silent";
      if (q != ResampleQuality::kHigh && q != ResampleQuality::kVeryHigh) continue;
      double worst = 0;
      for (int64_t k = m / 10; k < m - m / 10; ++k) {
        for (int c = 0; c < 2; ++c) {
          worst = std::max(worst, std::abs(got.data<float>()[c * m + k] - tone(c, static_cast<double>(k), out)));
        }
      }
      EXPECT_LE(worst, std::ldexp(1.0, q == ResampleQuality::kHigh ? -20 : -22));
    }
  }
}

// The two engines on real audio at kHigh: libsoxr keeps values beyond [-1, 1] (a full-scale file rings
// past it when resampled) where SoX's 32-bit integers clip; the first and last 50 ms differ (the filters'
// edges); elsewhere they differ by little.
TEST(ResampleTest, SoxrAndSoxAgreeBelowFullScale) {
  TempDir dir;
  struct Case {
    const char* media;
    int in_rate, out_rate;
    double bound;  // measured: 2^-16.8, 2^-20.5, 2^-13.9 (a full-scale file, next to the clipped samples)
  };
  for (const Case& c : {Case{"exo_bear.flac", 48000, 22050, std::ldexp(1.0, -16)},
                        Case{"tfio_ZASFX_ADSR_no_sustain.f32.wav", 44100, 16000, std::ldexp(1.0, -19)},
                        Case{"pluck-pcm16.wav", 11025, 48000, std::ldexp(1.0, -13)}}) {
    SCOPED_TRACE(c.media);
    const Wav input = read_wav(as_f32_wav(dir, c.media));
    const Tensor soxr = resample(input.samples, c.in_rate, c.out_rate);
    const Tensor sox =
        resample(input.samples, c.in_rate, c.out_rate, ResampleQuality::kHigh, true, ResampleEngine::kSox);
    ASSERT_EQ(soxr.numel(), sox.numel());
    double worst = 0, beyond = 0;
    const int64_t frames = soxr.size(1), edge = c.out_rate / 20;  // the filters' first and last 50 ms differ
    for (int64_t i = 0; i < soxr.numel(); ++i) {
      const float a = soxr.data<float>()[i], b = sox.data<float>()[i];
      beyond = std::max(beyond, static_cast<double>(std::abs(a)));
      const int64_t t = i % frames;
      if (std::abs(b) < 0.999f && t >= edge && t < frames - edge) {
        worst = std::max(worst, std::abs(static_cast<double>(a) - b));
      }
    }
    EXPECT_LE(worst, c.bound);
    RecordProperty(std::string("max_abs_diff_") + c.media, std::to_string(worst));
    if (std::string(c.media) == "pluck-pcm16.wav") EXPECT_GT(beyond, 1.0);  // soxr does not clip
  }
}

// ---- effect chains ----

class EffectsVsSox : public ::testing::TestWithParam<std::tuple<const char*, const char*>> {};

TEST_P(EffectsVsSox, ExactlyEqualsCli) {
  const auto [media, text] = GetParam();
  TempDir dir;
  const fs::path in = as_f32_wav(dir, media);
  // reverb makes mono stereo when it starts; the CLI then adds "channels 1" to keep the input's count.
  const bool mono_reverb = std::string(text).starts_with("reverb") && read_wav(in).samples.size(0) == 1;
  expect_equal_to_cli(dir, in, parse_effects(text), mono_reverb ? parse_effects("channels 1") : EffectChain{});
}

INSTANTIATE_TEST_SUITE_P(
    EffectsChains, EffectsVsSox,
    ::testing::Combine(::testing::Values("exo_bear.flac", "pluck-pcm16.wav", "sine_mono_f32.wav"),
                       ::testing::Values("gain -3", "gain 6", "lowpass 4000", "highpass 300", "lowpass -1 2000",
                                         "bandpass 1000 200q", "gain -3; lowpass 4000; rate 16000", "channels 1",
                                         "remix -", "tempo 1.25", "tempo -s 0.8", "reverb", "reverb 50 50 100",
                                         "speed 1.5; rate 22050", "pitch 200; rate 16000", "echo 0.8 0.9 100 0.3",
                                         "compand 0.3,1 6:-70,-60,-20 -5 -90 0.2", "trim 0.1 0.5", "pad 0.05 0.1",
                                         "fade t 0.05 0 0.05", "reverse", "vol 0.5", "dcshift 0.1", "overdrive 10",
                                         "chorus 0.7 0.9 55 0.4 0.25 2 -t", "contrast 75", "equalizer 1000 2q -6",
                                         "sinc 300-3000", "norm -1")));

TEST(EffectsTest, ShapeAndRateFollowTheChain) {
  TempDir dir;
  const Wav input = read_wav(as_f32_wav(dir, "exo_bear.flac"));  // 2 channels, 48 kHz, 131568 frames
  const EffectResult mono = apply_effects(input.samples, 48000, parse_effects("channels 1"));
  EXPECT_EQ(mono.samples.size(0), 1);
  EXPECT_EQ(mono.samples.size(1), 131568);
  EXPECT_EQ(mono.sample_rate, 48000);
  const EffectResult up = apply_effects(input.samples, 48000, parse_effects("remix 1 2 1v0.5,2v0.5; rate 16000"));
  EXPECT_EQ(up.samples.size(0), 3);
  EXPECT_EQ(up.samples.size(1), 131568 / 3);
  EXPECT_EQ(up.sample_rate, 16000);
  // speed alone changes the rate only (the CLI would add "rate 48000" after it): 48000 * 1.5.
  const EffectResult fast = apply_effects(input.samples, 48000, parse_effects("speed 1.5"));
  EXPECT_EQ(fast.sample_rate, 72000);
  EXPECT_EQ(fast.samples.size(1), 131568);
  const EffectResult slow = apply_effects(input.samples, 48000, parse_effects("tempo 2"));
  EXPECT_EQ(slow.sample_rate, 48000);
  EXPECT_NEAR(static_cast<double>(slow.samples.size(1)), 131568 / 2.0, 2);
}

// The CLI adds "rate <input rate>" after speed and pitch by itself; loom needs it spelled out.
TEST(EffectsTest, CliAutomaticRateAfterSpeedAndPitch) {
  TempDir dir;
  const fs::path in = as_f32_wav(dir, "exo_bear.flac");
  const Wav input = read_wav(in);
  for (const char* effect : {"speed 1.5", "speed 0.7", "pitch -300"}) {
    SCOPED_TRACE(effect);
    const EffectResult loom = apply_effects(input.samples, 48000, parse_effects(std::string(effect) + "; rate 48000"));
    const Wav cli = sox_cli(dir, in, parse_effects(effect));
    EXPECT_EQ(cli.sample_rate, 48000);
    EXPECT_EQ(compare(loom.samples, cli.samples).differing, 0);
  }
}

// reverb on mono gives 2 channels (as torchaudio's apply_effects_tensor did); the CLI adds "channels 1".
TEST(EffectsTest, ReverbOnMonoIsStereo) {
  TempDir dir;
  const Wav input = read_wav(as_f32_wav(dir, "sine_mono_f32.wav"));
  const EffectResult out = apply_effects(input.samples, 16000, parse_effects("reverb"));
  EXPECT_EQ(out.samples.size(0), 2);
  EXPECT_EQ(read_wav(as_f32_wav(dir, "sine_mono_f32.wav")).samples.size(0), 1);
  EXPECT_EQ(sox_cli(dir, as_f32_wav(dir, "sine_mono_f32.wav"), parse_effects("reverb")).samples.size(0), 1);
}

// dither draws random numbers: loom starts every chain from libsox's initial seed, as `sox -R` does, so
// the output is reproducible and equals the repeatable CLI.
TEST(EffectsTest, DitherIsRepeatableAndEqualsCliRepeatable) {
  TempDir dir;
  const fs::path in = as_f32_wav(dir, "pluck-pcm16.wav");
  const Wav input = read_wav(in);
  const EffectChain chain = parse_effects("gain -4; dither -s -p 12");
  const EffectResult a = apply_effects(input.samples, 11025, chain);
  const EffectResult b = apply_effects(input.samples, 11025, chain);
  EXPECT_EQ(compare(a.samples, b.samples).differing, 0);
  const EffectResult plain = apply_effects(input.samples, 11025, parse_effects("gain -4"));
  EXPECT_GT(compare(a.samples, plain.samples).differing, 1000);  // dither did something
  const Wav cli = sox_cli(dir, in, chain, "-R -e signed -b 32");
  EXPECT_EQ(compare(a.samples, cli.samples).differing, 0);
}

// synth's noise draws from libsox's global generator during the flow: repeatable, equal to `sox -R`,
// and the same when other chains run at the same time.
TEST(EffectsTest, SynthNoiseIsRepeatableAndEqualsCliRepeatable) {
  TempDir dir;
  const fs::path in = as_f32_wav(dir, "exo_bear.flac");
  const Wav input = read_wav(in);
  const EffectChain chain = parse_effects("synth pinknoise mix; gain -6");
  const EffectResult a = apply_effects(input.samples, 48000, chain);
  std::thread other([&] { apply_effects(input.samples, 48000, parse_effects("synth whitenoise; rate 8000")); });
  const EffectResult b = apply_effects(input.samples, 48000, chain);
  other.join();
  EXPECT_EQ(compare(a.samples, b.samples).differing, 0);
  const Wav cli = sox_cli(dir, in, chain, "-R -e signed -b 32");
  EXPECT_EQ(compare(a.samples, cli.samples).differing, 0);
}

TEST(EffectsTest, EmptyChainPassesTheSamplesThrough) {
  TempDir dir;
  const Wav input = read_wav(as_f32_wav(dir, "pluck-pcm16.wav"));
  const EffectResult out = apply_effects(input.samples, input.sample_rate, {});
  EXPECT_EQ(out.sample_rate, 11025);
  EXPECT_EQ(compare(out.samples, input.samples).differing, 0);
}

// Values beyond [-1, 1] clip on the way in, as when the CLI reads a float WAV holding them.
TEST(EffectsTest, OutOfRangeInputClipsLikeTheCli) {
  TempDir dir;
  Tensor t = Tensor::empty({2, 4000}, DType::kFloat32);
  float* p = t.data<float>();
  for (int64_t i = 0; i < 8000; ++i) p[i] = static_cast<float>(1.7 * std::sin(0.01 * i * (1 + i / 4000)));
  const fs::path in = dir / "loud.wav";
  write_wav_f32(in, t, 8000);
  expect_equal_to_cli(dir, in, parse_effects("gain -6"));
  const EffectResult out = apply_effects(t, 8000, parse_effects("gain -6"));
  float peak = 0;
  for (int64_t i = 0; i < out.samples.numel(); ++i) peak = std::max(peak, std::abs(out.samples.data<float>()[i]));
  EXPECT_LT(peak, 0.51f);  // clipped to 1 and then halved, not 1.7 halved
  EXPECT_GT(peak, 0.49f);
}

// A strided (non-contiguous) tensor gives the same result as its contiguous copy.
TEST(EffectsTest, StridedInput) {
  TempDir dir;
  const Wav input = read_wav(as_f32_wav(dir, "exo_bear.flac"));
  const Tensor every_other = input.samples.slice(1, 0, input.samples.size(1), 2);
  ASSERT_FALSE(every_other.is_contiguous());
  const EffectResult a = apply_effects(every_other, 24000, parse_effects("lowpass 3000; rate 16000"));
  const EffectResult b = apply_effects(every_other.contiguous(), 24000, parse_effects("lowpass 3000; rate 16000"));
  EXPECT_EQ(compare(a.samples, b.samples).differing, 0);
}

// apply_effects_file reads with libsox (16-bit PCM, FLAC) exactly as the CLI does.
TEST(EffectsTest, FileEqualsCli) {
  TempDir dir;
  for (const char* media :
       {"pluck-pcm16.wav", "exo_bear.flac", "pluck-pcm24.wav", "tfio_ZASFX_ADSR_no_sustain.f32.wav"}) {
    for (const char* text : {"", "gain -3; lowpass 4000; rate 16000", "channels 1; tempo 0.9"}) {
      SCOPED_TRACE(std::string(media) + ": " + text);
      const fs::path path = loom::test::media(std::string("audio/") + media);
      const EffectResult loom = apply_effects_file(path, parse_effects(text));
      const Wav cli = sox_cli(dir, path, parse_effects(text));
      EXPECT_EQ(loom.sample_rate, cli.sample_rate);
      EXPECT_EQ(compare(loom.samples, cli.samples).differing, 0);
    }
  }
}

TEST(EffectsTest, FileErrors) {
  TempDir dir;
  EXPECT_EQ(loom::test::error_code_of([&] { apply_effects_file(dir / "missing.wav", {}); }), ErrorCode::kIo);
  const fs::path junk = dir / "junk.wav";
  loom::test::write_bytes(junk, std::vector<uint8_t>(100, 0x42));
  EXPECT_EQ(loom::test::error_code_of([&] { apply_effects_file(junk, {}); }), ErrorCode::kInvalidInput);
  const Error e = loom::test::error_of(
      [&] { apply_effects_file(loom::test::media("audio/pluck-pcm16.wav"), parse_effects("nosuch 3")); });
  EXPECT_EQ(e.code(), ErrorCode::kInvalidInput);
  EXPECT_NE(std::string(e.what()).find("nosuch"), std::string::npos) << e.what();
}

TEST(EffectsTest, BadChainsAndInputs) {
  const Tensor t = Tensor::zeros({2, 1000}, DType::kFloat32);
  {
    const Error e = loom::test::error_of([&] { apply_effects(t, 16000, {{"flanger2000", {}}}); });
    EXPECT_EQ(e.code(), ErrorCode::kInvalidInput);
    EXPECT_NE(std::string(e.what()).find("flanger2000"), std::string::npos) << e.what();
  }
  {
    const Error e = loom::test::error_of([&] { apply_effects(t, 16000, parse_effects("gain -3; lowpass abc")); });
    EXPECT_EQ(e.code(), ErrorCode::kInvalidInput);
    EXPECT_NE(std::string(e.what()).find("lowpass abc"), std::string::npos) << e.what();
  }
  {
    // libsox's own words for a rejected option make it into the message.
    const Error e = loom::test::error_of([&] { apply_effects(t, 16000, parse_effects("rate -x 8000")); });
    EXPECT_EQ(e.code(), ErrorCode::kInvalidInput);
    EXPECT_NE(std::string(e.what()).find("rate -x 8000"), std::string::npos) << e.what();
  }
  // Effects libsox keeps for itself (its file input/output) are not effects users may name.
  EXPECT_EQ(loom::test::error_code_of([&] { apply_effects(t, 16000, {{"input", {}}}); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(loom::test::error_code_of([&] { apply_effects(t, 16000, {{"output", {}}}); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(loom::test::error_code_of([&] { apply_effects(t, 16000, {{"", {}}}); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(loom::test::error_code_of([&] { apply_effects(t, 16000, parse_effects("channels 0")); }),
            ErrorCode::kInvalidInput);
  EXPECT_EQ(loom::test::error_code_of([&] { apply_effects(t, 16000, parse_effects("lowpass")); }),
            ErrorCode::kInvalidInput);
  // A chain ending at 11025 * 1.5 = 16537.5 Hz.
  EXPECT_EQ(loom::test::error_code_of([&] { apply_effects(t, 11025, parse_effects("speed 1.5")); }),
            ErrorCode::kInvalidInput);
  // Inputs.
  EXPECT_EQ(loom::test::error_code_of([&] {
              apply_effects(Tensor::zeros({2, 0}, DType::kFloat32), 16000, {});
            }),
            ErrorCode::kInvalidInput);
  EXPECT_EQ(loom::test::error_code_of([&] {
              apply_effects(Tensor::zeros({0, 10}, DType::kFloat32), 16000, {});
            }),
            ErrorCode::kInvalidInput);
  EXPECT_EQ(loom::test::error_code_of([&] { apply_effects(Tensor::zeros({1000}, DType::kFloat32), 16000, {}); }),
            ErrorCode::kInvalidInput);
  EXPECT_EQ(loom::test::error_code_of([&] {
              apply_effects(Tensor::zeros({2, 10}, DType::kInt16), 16000, {});
            }),
            ErrorCode::kInvalidInput);
  EXPECT_EQ(loom::test::error_code_of([&] { apply_effects(Tensor(), 16000, {}); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(loom::test::error_code_of([&] { apply_effects(t, 0, {}); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(loom::test::error_code_of([&] {
              apply_effects(Tensor::zeros({2000, 10}, DType::kFloat32), 16000, {});
            }),
            ErrorCode::kLimitExceeded);
  Tensor nan = Tensor::zeros({2, 1000}, DType::kFloat32);
  nan.data<float>()[1500] = std::numeric_limits<float>::quiet_NaN();
  const Error e = loom::test::error_of([&] { apply_effects(nan, 16000, parse_effects("gain -1")); });
  EXPECT_EQ(e.code(), ErrorCode::kInvalidInput);
  EXPECT_NE(std::string(e.what()).find("NaN"), std::string::npos) << e.what();
  nan.data<float>()[1500] = std::numeric_limits<float>::infinity();
  EXPECT_EQ(loom::test::error_code_of([&] { apply_effects(nan, 16000, {}); }), ErrorCode::kInvalidInput);
  // After all these refusals libsox still works.
  EXPECT_EQ(apply_effects(t, 16000, parse_effects("rate 8000")).samples.size(1), 500);
}

// Chains run concurrently from many threads give what they give alone.
TEST(EffectsTest, ConcurrentChainsMatchSequential) {
  TempDir dir;
  const Wav bear = read_wav(as_f32_wav(dir, "exo_bear.flac"));
  const Wav sine = read_wav(as_f32_wav(dir, "sine_mono_f32.wav"));
  const std::vector<std::pair<const Wav*, std::string>> jobs = {
      {&bear, "rate -v 16000"},        {&sine, "rate 44100"}, {&bear, "gain -3; lowpass 4000; rate 22050"},
      {&sine, "reverb; rate -q 8000"}, {&bear, "tempo 1.1"},  {&sine, "sinc 200-2000; rate -m 11025"}};
  std::vector<EffectResult> expected;
  for (const auto& [wav, text] : jobs)
    expected.push_back(apply_effects(wav->samples, wav->sample_rate, parse_effects(text)));
  std::vector<std::thread> threads;
  std::atomic<int> mismatches{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 3; ++round) {
        const size_t j = (t + round) % jobs.size();
        const EffectResult r =
            apply_effects(jobs[j].first->samples, jobs[j].first->sample_rate, parse_effects(jobs[j].second));
        if (r.sample_rate != expected[j].sample_rate || r.samples.size(1) != expected[j].samples.size(1) ||
            std::memcmp(r.samples.data(), expected[j].samples.data(), r.samples.nbytes()) != 0) {
          ++mismatches;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(mismatches.load(), 0);
}

// ---- parse_effects ----

TEST(EffectsParseTest, SplitsEffectsAndArguments) {
  const EffectChain chain = parse_effects("gain -3; lowpass 4000;rate -v 16000 ;\n channels 1;;");
  ASSERT_EQ(chain.size(), 4u);
  EXPECT_EQ(chain[0].name, "gain");
  EXPECT_EQ(chain[0].args, (std::vector<std::string>{"-3"}));
  EXPECT_EQ(chain[1].name, "lowpass");
  EXPECT_EQ(chain[1].args, (std::vector<std::string>{"4000"}));
  EXPECT_EQ(chain[2].name, "rate");
  EXPECT_EQ(chain[2].args, (std::vector<std::string>{"-v", "16000"}));
  EXPECT_EQ(chain[3].name, "channels");
  EXPECT_EQ(chain[3].args, (std::vector<std::string>{"1"}));
  EXPECT_TRUE(parse_effects("").empty());
  EXPECT_TRUE(parse_effects(" ; ;\n").empty());
}

TEST(EffectsParseTest, Quotes) {
  const EffectChain chain = parse_effects("compand '0.3,1' \"6:-70,-60,-20\" -5; noiseprof 'a b;c.prof' ''");
  ASSERT_EQ(chain.size(), 2u);
  EXPECT_EQ(chain[0].args, (std::vector<std::string>{"0.3,1", "6:-70,-60,-20", "-5"}));
  EXPECT_EQ(chain[1].args, (std::vector<std::string>{"a b;c.prof", ""}));
  EXPECT_EQ(loom::test::error_code_of([] { parse_effects("gain '-3"); }), ErrorCode::kInvalidInput);
}

}  // namespace
}  // namespace loom::audio
