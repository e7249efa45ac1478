// gain, channel mixing, fade and overdrive (the IIR filters are in biquad.cc).
#include "loom/audio/functional.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "audio_tensor_checks.h"

namespace loom::audio {

using detail::check_finite;
using detail::checked_samples;
using detail::invalid;

Tensor gain(const Tensor& samples, double gain_db) {
  const Tensor in = checked_samples(samples, "gain");
  check_finite("gain", "gain_db", gain_db);
  const float ratio = static_cast<float>(std::pow(10.0, gain_db / 20.0));
  Tensor out = Tensor::empty(in.shape(), DType::kFloat32);
  const float* src = in.data<float>();
  float* dst = out.data<float>();
  const int64_t n = in.numel();
  for (int64_t i = 0; i < n; ++i) dst[i] = src[i] * ratio;
  return out;
}

Tensor mix_down(const Tensor& samples) {
  const Tensor in = checked_samples(samples, "mix_down");
  const int64_t channels = in.size(0), frames = in.size(1);
  if (channels < 1) invalid("mix_down", "samples have no channel");
  Tensor out = Tensor::empty({1, frames}, DType::kFloat32);
  const float* src = in.data<float>();
  float* dst = out.data<float>();
  std::vector<double> sum(static_cast<size_t>(frames), 0.0);
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t t = 0; t < frames; ++t) sum[t] += src[c * frames + t];
  for (int64_t t = 0; t < frames; ++t) dst[t] = static_cast<float>(sum[t] / static_cast<double>(channels));
  return out;
}

Tensor mix_up(const Tensor& samples, int64_t channels) {
  const Tensor in = checked_samples(samples, "mix_up");
  if (in.size(0) != 1) invalid("mix_up", "samples must be mono, got " + std::to_string(in.size(0)) + " channels");
  if (channels < 1) invalid("mix_up", "channels must be at least 1, got " + std::to_string(channels));
  const int64_t frames = in.size(1);
  Tensor out = Tensor::empty({channels, frames}, DType::kFloat32);
  for (int64_t c = 0; c < channels; ++c) std::copy_n(in.data<float>(), frames, out.data<float>() + c * frames);
  return out;
}

Tensor mix(const Tensor& samples, const Tensor& matrix) {
  const Tensor in = checked_samples(samples, "mix");
  if (!matrix.defined() || !matrix.device().is_cpu() || matrix.ndim() != 2 ||
      (matrix.dtype() != DType::kFloat32 && matrix.dtype() != DType::kFloat64))
    invalid("mix", "matrix must be a 2-D float32 or float64 CPU tensor [out_channels, in_channels]");
  const int64_t channels = in.size(0), frames = in.size(1), outs = matrix.size(0);
  if (matrix.size(1) != channels)
    invalid("mix", "matrix has " + std::to_string(matrix.size(1)) + " input channels, samples have " +
                       std::to_string(channels));
  const Tensor m = matrix.contiguous();
  std::vector<double> w(static_cast<size_t>(m.numel()));
  for (size_t i = 0; i < w.size(); ++i) w[i] = m.dtype() == DType::kFloat32 ? m.data<float>()[i] : m.data<double>()[i];
  for (double v : w) check_finite("mix", "matrix", v);
  Tensor out = Tensor::empty({outs, frames}, DType::kFloat32);
  const float* src = in.data<float>();
  std::vector<double> acc(static_cast<size_t>(frames));
  for (int64_t o = 0; o < outs; ++o) {
    std::fill(acc.begin(), acc.end(), 0.0);
    for (int64_t c = 0; c < channels; ++c) {
      const double k = w[o * channels + c];
      if (k == 0) continue;
      for (int64_t t = 0; t < frames; ++t) acc[t] += k * src[c * frames + t];
    }
    float* dst = out.data<float>() + o * frames;
    for (int64_t t = 0; t < frames; ++t) dst[t] = static_cast<float>(acc[t]);
  }
  return out;
}

namespace {

// The fade-in (or fade-out) curve at x in [0, 1], clamped to [0, 1].
double fade_curve(FadeShape shape, double x, bool fade_in) {
  constexpr double pi = std::numbers::pi;
  double v = 0;
  switch (shape) {
    case FadeShape::kLinear: v = fade_in ? x : 1 - x; break;
    case FadeShape::kExponential: v = fade_in ? std::pow(2.0, x - 1) * x : std::pow(2.0, -x) * (1 - x); break;
    case FadeShape::kLogarithmic: v = fade_in ? std::log10(0.1 + x) + 1 : std::log10(1.1 - x) + 1; break;
    case FadeShape::kQuarterSine: v = fade_in ? std::sin(x * pi / 2) : std::sin(x * pi / 2 + pi / 2); break;
    case FadeShape::kHalfSine:
      v = fade_in ? std::sin(x * pi - pi / 2) / 2 + 0.5 : std::sin(x * pi + pi / 2) / 2 + 0.5;
      break;
  }
  return std::clamp(v, 0.0, 1.0);
}

}  // namespace

Tensor fade(const Tensor& samples, int64_t fade_in_len, int64_t fade_out_len, FadeShape shape) {
  const Tensor in = checked_samples(samples, "fade");
  const int64_t channels = in.size(0), frames = in.size(1);
  if (fade_in_len < 0 || fade_in_len > frames || fade_out_len < 0 || fade_out_len > frames)
    invalid("fade", "fade lengths (" + std::to_string(fade_in_len) + ", " + std::to_string(fade_out_len) +
                        ") must be in [0, " + std::to_string(frames) + "] frames");
  switch (shape) {
    case FadeShape::kLinear:
    case FadeShape::kExponential:
    case FadeShape::kLogarithmic:
    case FadeShape::kQuarterSine:
    case FadeShape::kHalfSine: break;
    default: invalid("fade", "unknown fade shape");
  }
  // torch.linspace(0, 1, len): x_i = i / (len - 1); a single point is 0.
  auto x_at = [](int64_t i, int64_t len) {
    return len > 1 ? static_cast<double>(i) / static_cast<double>(len - 1) : 0.0;
  };
  std::vector<float> envelope(static_cast<size_t>(frames), 1.0f);
  for (int64_t i = 0; i < fade_in_len; ++i)
    envelope[i] = static_cast<float>(fade_curve(shape, x_at(i, fade_in_len), true));
  const int64_t out_start = frames - fade_out_len;
  for (int64_t i = 0; i < fade_out_len; ++i)
    envelope[out_start + i] =
        static_cast<float>(envelope[out_start + i] * fade_curve(shape, x_at(i, fade_out_len), false));
  Tensor out = Tensor::empty({channels, frames}, DType::kFloat32);
  for (int64_t c = 0; c < channels; ++c) {
    const float* src = in.data<float>() + c * frames;
    float* dst = out.data<float>() + c * frames;
    for (int64_t t = 0; t < frames; ++t) dst[t] = envelope[t] * src[t];
  }
  return out;
}

Tensor overdrive(const Tensor& samples, double gain_db, double colour) {
  const Tensor in = checked_samples(samples, "overdrive");
  if (!(gain_db >= 0 && gain_db <= 100)) invalid("overdrive", "gain must be in [0, 100] dB");
  if (!(colour >= 0 && colour <= 100)) invalid("overdrive", "colour must be in [0, 100]");
  const double g = std::exp(gain_db * std::log(10.0) / 20.0);
  const double offset = colour / 200.0;
  const int64_t channels = in.size(0), frames = in.size(1);
  Tensor out = Tensor::empty({channels, frames}, DType::kFloat32);
  for (int64_t c = 0; c < channels; ++c) {
    const float* src = in.data<float>() + c * frames;
    float* dst = out.data<float>() + c * frames;
    double last_in = 0, last_out = 0;
    for (int64_t t = 0; t < frames; ++t) {
      double v = src[t] * g + offset;
      if (v < -1) {
        v = -2.0 / 3.0;
      } else if (v > 1) {
        v = 2.0 / 3.0;
      } else {
        v = v - v * v * v / 3.0;
      }
      last_out = v - last_in + 0.995 * last_out;  // DC blocker
      last_in = v;
      dst[t] = static_cast<float>(std::clamp(src[t] * 0.5 + last_out * 0.75, -1.0, 1.0));
    }
  }
  return out;
}

}  // namespace loom::audio
