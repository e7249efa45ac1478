// loom::audio spectral ops (spectrogram, mel filter banks, mel spectrogram, amplitude_to_db, MFCC) vs
// torchaudio 0.13, a double-precision DFT and analytic expectations.
#include "loom/audio/spectral.h"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <numbers>
#include <string>
#include <vector>

#include "audio_ops_reference.h"
#include "test_media.h"

namespace loom::audio {
namespace {

using test::expect_matches_torchaudio;
using test::random_signal;
using test::RefCase;

std::string real_wav() {
  return test::media("audio/exo_sample_rf64.wav").string();
}

// A JSON object's fields for the script from SpectrogramOptions-like arguments.
struct Spec {
  int n_fft = 400;
  std::optional<int> win, hop;
  std::optional<double> power = 2.0;
  bool center = true;
  std::string pad_mode = "reflect";
  std::string window = "hann";
  std::optional<bool> periodic;
  std::string normalized = "false";  // JSON: false, true, "frame_length"
  int pad = 0;
  bool onesided = true;

  std::string json() const {
    std::string s = "\"n_fft\": " + std::to_string(n_fft);
    if (win) s += ", \"win_length\": " + std::to_string(*win);
    if (hop) s += ", \"hop_length\": " + std::to_string(*hop);
    s += ", \"power\": " + (power ? std::to_string(*power) : std::string("null"));
    s += std::string(", \"center\": ") + (center ? "true" : "false") + ", \"pad_mode\": \"" + pad_mode + "\"";
    s += ", \"window\": \"" + window + "\", \"normalized\": " + normalized + ", \"pad\": " + std::to_string(pad);
    if (periodic) s += std::string(", \"periodic\": ") + (*periodic ? "true" : "false");
    s += std::string(", \"onesided\": ") + (onesided ? "true" : "false");
    return s;
  }
  SpectrogramOptions options() const {
    SpectrogramOptions o;
    o.n_fft = n_fft;
    o.win_length = win;
    o.hop_length = hop;
    o.power = power;
    o.center = center;
    o.pad_mode = pad_mode == "reflect"     ? PadMode::kReflect
                 : pad_mode == "constant"  ? PadMode::kConstant
                 : pad_mode == "replicate" ? PadMode::kReplicate
                                           : PadMode::kCircular;
    o.window = window == "hann"      ? WindowFunction::kHann
               : window == "hamming" ? WindowFunction::kHamming
                                     : WindowFunction::kRectangular;
    if (periodic) o.periodic_window = *periodic;
    o.normalized = normalized == "true"               ? SpectrogramNorm::kWindow
                   : normalized == "\"frame_length\"" ? SpectrogramNorm::kFrameLength
                                                      : SpectrogramNorm::kNone;
    o.pad = pad;
    o.onesided = onesided;
    return o;
  }
};

std::vector<Spec> spectrogram_sets() {
  std::vector<Spec> sets;
  sets.push_back({});                                        // torchaudio's defaults: 400, hop 200, power 2
  sets.push_back({.n_fft = 400, .hop = 160, .power = 1.0});  // Whisper-like framing, magnitude
  sets.push_back({.n_fft = 512, .win = 400, .hop = 128});    // window shorter than the frame
  sets.push_back({.n_fft = 1024, .hop = 256, .center = false});
  sets.push_back({.n_fft = 1024, .win = 1000, .hop = 333, .power = std::nullopt});  // complex
  sets.push_back({.n_fft = 512, .power = std::nullopt, .center = false, .onesided = false});
  sets.push_back({.n_fft = 400, .window = "hamming", .normalized = "true"});
  sets.push_back({.n_fft = 256, .hop = 64, .power = 1.0, .normalized = "\"frame_length\"", .pad = 37});
  sets.push_back({.n_fft = 400, .pad_mode = "constant"});
  sets.push_back({.n_fft = 400, .pad_mode = "replicate"});
  sets.push_back({.n_fft = 400, .pad_mode = "circular"});
  sets.push_back({.n_fft = 401, .hop = 100, .power = 3.0});  // odd, prime: Bluestein
  sets.push_back({.n_fft = 30, .hop = 7, .window = "hann", .periodic = false});
  sets.push_back({.n_fft = 2048, .hop = 512, .window = "rect"});
  sets.push_back({.n_fft = 1000, .win = 999, .hop = 250});  // 1000 = 8 * 125: Bluestein
  return sets;
}

std::vector<RefCase> spectrogram_cases() {
  std::vector<RefCase> cases;
  for (const Spec& s : spectrogram_sets()) {
    const SpectrogramOptions o = s.options();
    cases.push_back({R"({"op": "spectrogram", )" + s.json() + "}", [o](const Tensor& x) { return spectrogram(x, o); }});
  }
  return cases;
}

TEST(SpectralTest, SpectrogramMatchesTorchaudioOnNoise) {
  expect_matches_torchaudio(random_signal(2, 16000, 11), "", spectrogram_cases());
}

TEST(SpectralTest, SpectrogramMatchesTorchaudioOnARealFile) {
  expect_matches_torchaudio(Tensor(), real_wav(), spectrogram_cases());
}

TEST(SpectralTest, MelFilterBanksMatchTorchaudio) {
  struct Fb {
    int n_freqs;
    double f_min, f_max;
    int n_mels, sr;
    MelNorm norm;
    MelScale scale;
  };
  const Fb sets[] = {{201, 0, 8000, 128, 16000, MelNorm::kNone, MelScale::kHtk},
                     {201, 0, 8000, 80, 16000, MelNorm::kSlaney, MelScale::kSlaney},
                     {513, 50, 7600, 80, 22050, MelNorm::kSlaney, MelScale::kHtk},
                     {1025, 20, 20000, 64, 44100, MelNorm::kNone, MelScale::kSlaney},
                     {257, 300, 3000, 40, 11025, MelNorm::kNone, MelScale::kHtk}};
  std::vector<RefCase> cases;
  for (const Fb& f : sets) {
    cases.push_back(
        {"{\"op\": \"fbanks\", \"n_freqs\": " + std::to_string(f.n_freqs) + ", \"f_min\": " + std::to_string(f.f_min) +
             ", \"f_max\": " + std::to_string(f.f_max) + ", \"n_mels\": " + std::to_string(f.n_mels) + ", \"sr\": " +
             std::to_string(f.sr) + ", \"norm\": " + (f.norm == MelNorm::kSlaney ? "\"slaney\"" : "null") +
             ", \"mel_scale\": " + (f.scale == MelScale::kSlaney ? "\"slaney\"" : "\"htk\"") + "}",
         [f](const Tensor&) { return melscale_fbanks(f.n_freqs, f.f_min, f.f_max, f.n_mels, f.sr, f.norm, f.scale); }});
  }
  expect_matches_torchaudio(Tensor(), "", std::move(cases));
}

struct Mel {
  Spec spec;
  int sr = 16000;
  int n_mels = 128;
  double f_min = 0;
  std::optional<double> f_max;
  bool slaney_norm = false, slaney_scale = false;

  std::string json() const {
    std::string s = spec.json() + ", \"sr\": " + std::to_string(sr) + ", \"n_mels\": " + std::to_string(n_mels) +
                    ", \"f_min\": " + std::to_string(f_min);
    if (f_max) s += ", \"f_max\": " + std::to_string(*f_max);
    s += std::string(", \"norm\": ") + (slaney_norm ? "\"slaney\"" : "null") +
         ", \"mel_scale\": " + (slaney_scale ? "\"slaney\"" : "\"htk\"");
    return s;
  }
  MelSpectrogramOptions options() const {
    MelSpectrogramOptions o;
    o.sample_rate = sr;
    o.spectrogram = spec.options();
    o.n_mels = n_mels;
    o.f_min = f_min;
    o.f_max = f_max;
    o.norm = slaney_norm ? MelNorm::kSlaney : MelNorm::kNone;
    o.mel_scale = slaney_scale ? MelScale::kSlaney : MelScale::kHtk;
    return o;
  }
};

std::vector<Mel> mel_sets(int sr) {
  return {
      {.sr = sr},
      {.spec = {.n_fft = 400, .hop = 160}, .sr = sr, .n_mels = 80, .slaney_norm = true, .slaney_scale = true},
      {.spec = {.n_fft = 1024, .hop = 256, .power = 1.0, .center = false},
       .sr = sr,
       .n_mels = 64,
       .f_min = 60,
       .f_max = sr / 2.0 - 500},
      {.spec = {.n_fft = 512, .win = 480, .hop = 120}, .sr = sr, .n_mels = 40, .slaney_norm = true},
  };
}

std::vector<RefCase> mel_cases(int sr) {
  std::vector<RefCase> cases;
  for (const Mel& m : mel_sets(sr)) {
    const MelSpectrogramOptions o = m.options();
    cases.push_back(
        {R"({"op": "melspectrogram", )" + m.json() + "}", [o](const Tensor& x) { return melspectrogram(x, o); }});
  }
  const Mel mfcc_sets[] = {
      {.sr = sr},
      {.spec = {.n_fft = 400, .hop = 160, .center = false}, .sr = sr, .n_mels = 23},
      {.spec = {.n_fft = 1024, .hop = 512}, .sr = sr, .n_mels = 64, .slaney_norm = true, .slaney_scale = true}};
  const int n_mfcc[] = {40, 13, 20};
  for (int i = 0; i < 3; ++i) {
    for (bool log_mels : {false, true}) {
      MfccOptions o;
      o.mel = mfcc_sets[i].options();
      o.n_mfcc = n_mfcc[i];
      o.log_mels = log_mels;
      o.norm = i == 2 && !log_mels ? DctNorm::kNone : DctNorm::kOrtho;
      cases.push_back({R"({"op": "mfcc", )" + mfcc_sets[i].json() + ", \"n_mfcc\": " + std::to_string(o.n_mfcc) +
                           ", \"log_mels\": " + (log_mels ? "true" : "false") +
                           ", \"dct_norm\": " + (o.norm == DctNorm::kNone ? "null" : "\"ortho\"") + "}",
                       [o](const Tensor& x) { return mfcc(x, o); }});
    }
  }
  for (bool power : {true, false}) {
    for (bool top : {true, false}) {
      cases.push_back({std::string(R"({"op": "amplitude_to_db", "stype": ")") + (power ? "power" : "magnitude") +
                           "\", \"top_db\": " + (top ? "80" : "null") + "}",
                       [power, top](const Tensor& x) {
                         Tensor a = x.clone();
                         for (int64_t i = 0; i < a.numel(); ++i) a.data<float>()[i] = std::abs(a.data<float>()[i]);
                         return amplitude_to_db(a, power ? 10 : 20, 1e-10, 0,
                                                top ? std::optional<double>(80) : std::nullopt);
                       }});
    }
  }
  return cases;
}

TEST(SpectralTest, MelSpectrogramAndMfccMatchTorchaudioOnNoise) {
  expect_matches_torchaudio(random_signal(2, 16000, 12), "", mel_cases(16000));
}

TEST(SpectralTest, MelSpectrogramAndMfccMatchTorchaudioOnARealFile) {
  expect_matches_torchaudio(Tensor(), real_wav(), mel_cases(48000));
}

// ---- analytic / exact ----

// Every FFT path (av_tx direct, Cooley-Tukey split, Bluestein) against a double-precision DFT: the complex
// two-sided spectrum of a rectangular window without padding is exactly the DFT of each frame.
TEST(SpectralTest, SpectrumEqualsADirectDftForManyLengths) {
  std::vector<int> lengths;
  for (int n = 2; n <= 48; ++n) lengths.push_back(n);
  for (int n : {64, 80, 100, 128, 200, 240, 400, 401, 441, 480, 500, 512, 640, 1000, 1024, 1536, 2048})
    lengths.push_back(n);
  for (int n : lengths) {
    SCOPED_TRACE("n_fft " + std::to_string(n));
    const Tensor x = random_signal(1, 3 * n, static_cast<uint32_t>(n));
    SpectrogramOptions o;
    o.n_fft = n;
    o.hop_length = n;
    o.window = WindowFunction::kRectangular;
    o.power = std::nullopt;
    o.center = false;
    o.onesided = false;
    const Tensor s = spectrogram(x, o);  // [1, n, 3, 2]
    ASSERT_EQ(s.size(1), n);
    ASSERT_EQ(s.size(2), 3);
    double err = 0, peak = 0;
    for (int t = 0; t < 3; ++t) {
      for (int k = 0; k < n; ++k) {
        std::complex<double> ref = 0;
        for (int j = 0; j < n; ++j)
          ref += double{x.data<float>()[t * n + j]} * std::polar(1.0, -2 * std::numbers::pi * (int64_t{j} * k % n) / n);
        const float* v = s.data<float>() + (static_cast<int64_t>(k) * 3 + t) * 2;
        err = std::max(err, std::abs(ref - std::complex<double>(v[0], v[1])));
        peak = std::max(peak, std::abs(ref));
      }
    }
    EXPECT_LT(err / peak, 2e-6);
  }
}

TEST(SpectralTest, SpectrogramOfASinePeaksAtItsBin) {
  const int sr = 16000, n = 512, bin = 32;  // 1000 Hz
  Tensor x = Tensor::empty({1, 8000}, DType::kFloat32);
  for (int64_t i = 0; i < 8000; ++i)
    x.data<float>()[i] = 0.25f * static_cast<float>(std::sin(2 * std::numbers::pi * 1000.0 * i / sr));
  SpectrogramOptions o;
  o.n_fft = n;
  o.hop_length = 128;
  o.power = 1.0;
  o.center = false;
  o.window = WindowFunction::kRectangular;
  const Tensor s = spectrogram(x, o);
  ASSERT_EQ(s.size(1), n / 2 + 1);
  ASSERT_EQ(s.size(2), 1 + (8000 - n) / 128);
  const int64_t nf = s.size(2);
  for (int64_t t = 0; t < nf; ++t) {
    int best = 0;
    for (int k = 0; k <= n / 2; ++k)
      if (s.data<float>()[k * nf + t] > s.data<float>()[best * nf + t]) best = k;
    ASSERT_EQ(best, bin) << "frame " << t;
    // A whole number of periods under a rectangular window: |X[bin]| = A n / 2, every other bin ~0.
    EXPECT_NEAR(s.data<float>()[bin * nf + t], 0.25 * n / 2, 1e-3 * n);
    EXPECT_LT(s.data<float>()[(bin + 3) * nf + t], 1e-3 * n);
  }
  // Hann, power 2, centred: the peak bin holds (A n / 4)^2 away from the edges.
  o.window = WindowFunction::kHann;
  o.power = 2.0;
  o.center = true;
  const Tensor p = spectrogram(x, o);
  const int64_t pf = p.size(2);
  EXPECT_NEAR(p.data<float>()[bin * pf + pf / 2], std::pow(0.25 * n / 4, 2), 1e-3 * std::pow(0.25 * n / 4, 2));
  // The mel band that holds 1 kHz is the loudest band of a mel spectrogram.
  MelSpectrogramOptions m;
  m.sample_rate = sr;
  m.spectrogram = o;
  m.n_mels = 40;
  const Tensor mel = melspectrogram(x, m);
  const Tensor fb = melscale_fbanks(n / 2 + 1, 0, sr / 2, 40, sr);
  int band = 0, loud = 0;
  for (int b = 0; b < 40; ++b) {
    if (fb.data<float>()[bin * 40 + b] > fb.data<float>()[bin * 40 + band]) band = b;
    if (mel.data<float>()[b * pf + pf / 2] > mel.data<float>()[loud * pf + pf / 2]) loud = b;
  }
  EXPECT_EQ(loud, band);
}

TEST(SpectralTest, ShapesFollowTorchaudio) {
  const Tensor x = random_signal(3, 16000, 13);
  EXPECT_EQ(test::shape_string(spectrogram(x)), "[3, 201, 81]");
  SpectrogramOptions o;
  o.n_fft = 1024;
  o.hop_length = 256;
  o.center = false;
  o.power = std::nullopt;
  EXPECT_EQ(test::shape_string(spectrogram(x, o)), "[3, 513, 59, 2]");
  EXPECT_EQ(test::shape_string(melspectrogram(x)), "[3, 128, 81]");
  EXPECT_EQ(test::shape_string(mfcc(x)), "[3, 40, 81]");
  EXPECT_EQ(test::shape_string(create_dct(13, 40, DctNorm::kOrtho)), "[40, 13]");
}

// ---- bad input ----

TEST(SpectralTest, BadInputsThrowInvalidInput) {
  using test::error_code_of;
  constexpr auto kInvalid = ErrorCode::kInvalidInput;
  const Tensor x = random_signal(1, 1000, 14);
  auto spec = [&](auto edit) {
    SpectrogramOptions o;
    edit(o);
    return error_code_of([&] { spectrogram(x, o); });
  };
  EXPECT_EQ(spec([](SpectrogramOptions& o) { o.n_fft = 1; }), kInvalid);
  EXPECT_EQ(spec([](SpectrogramOptions& o) { o.n_fft = 0; }), kInvalid);
  EXPECT_EQ(spec([](SpectrogramOptions& o) { o.hop_length = 0; }), kInvalid);
  EXPECT_EQ(spec([](SpectrogramOptions& o) { o.hop_length = -3; }), kInvalid);
  EXPECT_EQ(spec([](SpectrogramOptions& o) { o.win_length = 401; }), kInvalid);
  EXPECT_EQ(spec([](SpectrogramOptions& o) { o.win_length = 0; }), kInvalid);
  EXPECT_EQ(spec([](SpectrogramOptions& o) { o.power = 0.0; }), kInvalid);
  EXPECT_EQ(spec([](SpectrogramOptions& o) { o.power = NAN; }), kInvalid);
  EXPECT_EQ(spec([](SpectrogramOptions& o) { o.pad = -1; }), kInvalid);
  EXPECT_EQ(spec([](SpectrogramOptions& o) { o.n_fft = 2048; }), kInvalid);  // reflect pad 1024 >= 1000 frames
  EXPECT_EQ(spec([](SpectrogramOptions& o) { o.n_fft = 2048, o.center = false; }), kInvalid);  // shorter than n_fft
  EXPECT_EQ(error_code_of([&] { spectrogram(Tensor::zeros({1000}, DType::kFloat32)); }), kInvalid);
  EXPECT_EQ(error_code_of([&] { spectrogram(Tensor::zeros({1, 1000}, DType::kFloat64)); }), kInvalid);

  EXPECT_EQ(error_code_of([&] { melscale_fbanks(201, 0, 8000, 128, 0); }), kInvalid);
  EXPECT_EQ(error_code_of([&] { melscale_fbanks(201, 5000, 4000, 128, 16000); }), kInvalid);
  EXPECT_EQ(error_code_of([&] { melscale_fbanks(201, NAN, 4000, 128, 16000); }), kInvalid);
  EXPECT_EQ(error_code_of([&] { melscale_fbanks(201, 0, 4000, 0, 16000); }), kInvalid);
  EXPECT_EQ(error_code_of([&] { melscale_fbanks(1, 0, 4000, 10, 16000); }), kInvalid);
  MelSpectrogramOptions m;
  m.sample_rate = 0;
  EXPECT_EQ(error_code_of([&] { melspectrogram(x, m); }), kInvalid);
  m = {};
  m.spectrogram.power = std::nullopt;
  EXPECT_EQ(error_code_of([&] { melspectrogram(x, m); }), kInvalid);
  m = {};
  m.f_min = 9000;  // above f_max = 8000
  EXPECT_EQ(error_code_of([&] { melspectrogram(x, m); }), kInvalid);
  MfccOptions f;
  f.n_mfcc = 129;
  EXPECT_EQ(error_code_of([&] { mfcc(x, f); }), kInvalid);
  f = {};
  f.dct_type = 3;
  EXPECT_EQ(error_code_of([&] { mfcc(x, f); }), kInvalid);
  EXPECT_EQ(error_code_of([&] { amplitude_to_db(x, 10, 0, 0, 80.0); }), kInvalid);      // amin 0
  EXPECT_EQ(error_code_of([&] { amplitude_to_db(x, 10, 1e-10, 0, -1.0); }), kInvalid);  // top_db < 0
}

}  // namespace
}  // namespace loom::audio
