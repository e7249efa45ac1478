// resample()'s kSinc engine (audio/src/resample_sinc.cc) against analytic expectations: a tone comes back
// as the ideal tone at the new rate within the error of torchaudio's filter, frequencies above the
// rolloff are removed, the output length is torchaudio's ceil, both layouts give the same bits, and bad
// sinc parameters are refused. tests/python/test_resample_sinc.py compares it with torchaudio itself.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <tuple>
#include <utility>

#include "loom/audio/effects.h"
#include "test_media.h"

namespace loom::audio {
namespace {

constexpr double kPi = 3.14159265358979323846;

ResampleOptions sinc(SincWindow window = SincWindow::kHann) {
  ResampleOptions o;
  o.engine = ResampleEngine::kSinc;
  o.window = window;
  return o;
}

// [channels, frames] of amplitude * sin(2 pi hz n / rate + channel).
Tensor tone(int64_t channels, int64_t frames, int rate, double hz, double amplitude) {
  Tensor t = Tensor::empty({channels, frames}, DType::kFloat32);
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t n = 0; n < frames; ++n) {
      t.data<float>()[c * frames + n] = static_cast<float>(amplitude * std::sin(2 * kPi * hz * n / rate + c));
    }
  }
  return t;
}

// The largest |out - ideal tone| away from the first and last 100 ms (the filter's edges).
double tone_error(const Tensor& out, int rate, double hz, double amplitude) {
  const int64_t channels = out.size(0), frames = out.size(1), skip = rate / 10;
  double worst = 0;
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t n = skip; n < frames - skip; ++n) {
      const double ideal = amplitude * std::sin(2 * kPi * hz * n / rate + c);
      worst = std::max(worst, std::abs(out.data<float>()[c * frames + n] - ideal));
    }
  }
  return worst;
}

TEST(ResampleSinc, ReturnsTheIdealToneWithinTheFiltersError) {
  // torchaudio's filter (width 6, rolloff 0.99) passes a 1 kHz tone within 2^-11.6 of the ideal one
  // (measured: 2e-4 at 44.1 -> 16 kHz, 2.8e-4 at 16 -> 48 kHz, 3.3e-4 at 48 -> 44.1 kHz for 3 kHz).
  for (auto [in, out] : {std::pair{44100, 16000}, {16000, 48000}, {48000, 44100}, {8000, 22050}}) {
    for (SincWindow w : {SincWindow::kHann, SincWindow::kKaiser}) {
      SCOPED_TRACE(std::to_string(in) + " -> " + std::to_string(out) + (w == SincWindow::kHann ? " hann" : " kaiser"));
      const Tensor y = resample(tone(2, 2 * in, in, 1000.0, 0.5), in, out, sinc(w));
      ASSERT_EQ(y.size(1), 2 * out);
      EXPECT_LT(tone_error(y, out, 1000.0, 0.5), 4e-4);
    }
  }
}

TEST(ResampleSinc, RemovesWhatIsAboveTheRolloff) {
  // 44.1 -> 16 kHz: rolloff 0.99 keeps a 5 kHz tone (within 3e-3), rolloff 0.5 (a 4 kHz cutoff) removes it.
  const Tensor x = tone(1, 44100, 44100, 5000.0, 0.5);
  EXPECT_LT(tone_error(resample(x, 44100, 16000, sinc()), 16000, 5000.0, 0.5), 3e-3);
  ResampleOptions low = sinc();
  low.rolloff = 0.5;
  const Tensor y = resample(x, 44100, 16000, low);
  EXPECT_LT(tone_error(y, 16000, 0.0, 0.0), 0.02);
}

TEST(ResampleSinc, LengthsLayoutsAndEqualRates) {
  // ceil(frames * out / in), from inputs shorter than the kernel (1 frame) on.
  for (auto [in, out, frames] : {std::tuple{44100, 16000, 1},
                                 {44100, 16000, 7},
                                 {44100, 16000, 441},
                                 {16000, 48000, 5},
                                 {48000, 44100, 1001},
                                 {8000, 22050, 3}}) {
    const Tensor x = tone(3, frames, in, 440.0, 0.9);
    const Tensor y = resample(x, in, out, sinc());
    ASSERT_EQ(y.size(0), 3);
    ASSERT_EQ(y.size(1), (static_cast<int64_t>(frames) * out + in - 1) / in) << in << " -> " << out << ", " << frames;
    // [frames, channels] gives the same bits, transposed.
    ResampleOptions interleaved = sinc();
    interleaved.channels_first = false;
    const Tensor yt = resample(x.permute({1, 0}).contiguous(), in, out, interleaved);
    ASSERT_EQ(std::memcmp(yt.data<float>(), y.permute({1, 0}).contiguous().data<float>(), y.numel() * sizeof(float)),
              0);
  }
  const Tensor x = tone(2, 100, 16000, 440.0, 0.9);
  const Tensor same = resample(x, 16000, 16000, sinc());
  EXPECT_EQ(std::memcmp(same.data<float>(), x.data<float>(), x.numel() * sizeof(float)), 0);
  EXPECT_NE(same.data<float>(), x.data<float>());
}

TEST(ResampleSinc, RefusesBadParameters) {
  const Tensor x = Tensor::zeros({1, 100}, DType::kFloat32);
  auto code = [&](auto change) {
    ResampleOptions o = sinc();
    change(o);
    return loom::test::error_code_of([&] { resample(x, 44100, 16000, o); });
  };
  EXPECT_EQ(code([](ResampleOptions& o) { o.lowpass_filter_width = 0; }), ErrorCode::kInvalidInput);
  EXPECT_EQ(code([](ResampleOptions& o) { o.lowpass_filter_width = -3; }), ErrorCode::kInvalidInput);
  EXPECT_EQ(code([](ResampleOptions& o) { o.rolloff = 0.0; }), ErrorCode::kInvalidInput);
  EXPECT_EQ(code([](ResampleOptions& o) { o.rolloff = 1.01; }), ErrorCode::kInvalidInput);
  EXPECT_EQ(code([](ResampleOptions& o) { o.rolloff = std::nan(""); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(code([](ResampleOptions& o) { o.window = static_cast<SincWindow>(7); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(code([](ResampleOptions& o) {
              o.window = SincWindow::kKaiser;
              o.beta = INFINITY;
            }),
            ErrorCode::kInvalidInput);
  EXPECT_EQ(code([](ResampleOptions& o) {
              o.window = SincWindow::kKaiser;
              o.beta = 1e4;  // I0(beta) overflows
            }),
            ErrorCode::kInvalidInput);
  // A filter of ~2^31 taps (a huge width, a tiny rolloff) is refused before it is built.
  EXPECT_EQ(code([](ResampleOptions& o) {
              o.lowpass_filter_width = 1 << 30;
              o.rolloff = 1e-9;
            }),
            ErrorCode::kLimitExceeded);
}

}  // namespace
}  // namespace loom::audio
