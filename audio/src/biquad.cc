// lfilter (IIR by its difference equation) and the RBJ biquads built on it, as torchaudio 0.13 does.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "audio_tensor_checks.h"
#include "loom/audio/functional.h"

namespace loom::audio {

using detail::check_finite;
using detail::check_samples;
using detail::checked_samples;
using detail::invalid;

namespace {

std::vector<double> coefficients(const Tensor& t, const char* name) {
  if (!t.defined() || !t.device().is_cpu() || (t.ndim() != 1 && t.ndim() != 2) ||
      (t.dtype() != DType::kFloat32 && t.dtype() != DType::kFloat64))
    invalid("lfilter", std::string(name) + " must be a 1-D or 2-D float32 or float64 CPU tensor");
  const Tensor c = t.contiguous();
  std::vector<double> v(static_cast<size_t>(c.numel()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = c.dtype() == DType::kFloat32 ? c.data<float>()[i] : c.data<double>()[i];
  for (double x : v) check_finite("lfilter", name, x);
  return v;
}

// y = filter(x) for one channel and one normalised filter (a[0] == 1), in double.
void filter_one(const float* x, float* y, int64_t frames, const double* a, const double* b, int order, bool clamp,
                std::vector<double>& state) {
  // Direct form I with the output history in `state` (a ring would save a copy; orders are small).
  const int taps = order + 1;
  if (taps == 3) {  // biquads: the common case, unrolled
    double x1 = 0, x2 = 0, y1 = 0, y2 = 0;
    for (int64_t n = 0; n < frames; ++n) {
      const double x0 = x[n];
      const double y0 = b[0] * x0 + b[1] * x1 + b[2] * x2 - a[1] * y1 - a[2] * y2;
      x2 = x1, x1 = x0, y2 = y1, y1 = y0;
      y[n] = static_cast<float>(clamp ? std::clamp(y0, -1.0, 1.0) : y0);
    }
    return;
  }
  // state: [x history (order) | y history (order)], most recent first.
  state.assign(static_cast<size_t>(2 * order), 0.0);
  double* xh = state.data();
  double* yh = state.data() + order;
  for (int64_t n = 0; n < frames; ++n) {
    const double x0 = x[n];
    double acc = b[0] * x0;
    for (int k = 1; k <= order; ++k) acc += b[k] * xh[k - 1] - a[k] * yh[k - 1];
    for (int k = order - 1; k > 0; --k) xh[k] = xh[k - 1], yh[k] = yh[k - 1];
    if (order > 0) xh[0] = x0, yh[0] = acc;
    y[n] = static_cast<float>(clamp ? std::clamp(acc, -1.0, 1.0) : acc);
  }
}

}  // namespace

Tensor lfilter(const Tensor& samples, const Tensor& a_coeffs, const Tensor& b_coeffs, bool clamp, bool batching) {
  const Tensor in = checked_samples(samples, "lfilter");
  std::vector<double> a = coefficients(a_coeffs, "a_coeffs");
  std::vector<double> b = coefficients(b_coeffs, "b_coeffs");
  if (a_coeffs.ndim() != b_coeffs.ndim() || a_coeffs.size(0) != b_coeffs.size(0) ||
      a_coeffs.size(-1) != b_coeffs.size(-1))
    invalid("lfilter", "a_coeffs and b_coeffs must have the same shape");
  const int64_t taps = a_coeffs.size(-1);
  if (taps < 1) invalid("lfilter", "coefficients must hold at least one value (a0)");
  const int64_t filters = a_coeffs.ndim() == 2 ? a_coeffs.size(0) : 1;
  if (filters < 1) invalid("lfilter", "coefficients hold no filter");
  const int64_t channels = in.size(0), frames = in.size(1);
  const bool per_channel = a_coeffs.ndim() == 2 && batching;
  if (per_channel && filters != channels)
    invalid("lfilter",
            "batching: " + std::to_string(filters) + " filters for " + std::to_string(channels) + " channels");
  for (int64_t f = 0; f < filters; ++f) {
    const double a0 = a[f * taps];
    if (a0 == 0) invalid("lfilter", "a0 must not be 0");
    for (int64_t k = 0; k < taps; ++k) a[f * taps + k] /= a0, b[f * taps + k] /= a0;
  }
  const bool expand = a_coeffs.ndim() == 2 && !batching;
  Tensor out = expand ? Tensor::empty({channels, filters, frames}, DType::kFloat32)
                      : Tensor::empty({channels, frames}, DType::kFloat32);
  std::vector<double> state;
  const int order = static_cast<int>(taps - 1);
  for (int64_t c = 0; c < channels; ++c) {
    const float* x = in.data<float>() + c * frames;
    if (expand) {
      for (int64_t f = 0; f < filters; ++f)
        filter_one(x, out.data<float>() + (c * filters + f) * frames, frames, &a[f * taps], &b[f * taps], order, clamp,
                   state);
    } else {
      const int64_t f = per_channel ? c : 0;
      filter_one(x, out.data<float>() + c * frames, frames, &a[f * taps], &b[f * taps], order, clamp, state);
    }
  }
  return out;
}

Tensor biquad(const Tensor& samples, double b0, double b1, double b2, double a0, double a1, double a2) {
  for (double v : {b0, b1, b2, a0, a1, a2}) check_finite("biquad", "coefficients", v);
  Tensor a = Tensor::empty({3}, DType::kFloat64), b = Tensor::empty({3}, DType::kFloat64);
  const double av[3] = {a0, a1, a2}, bv[3] = {b0, b1, b2};
  std::copy_n(av, 3, a.data<double>());
  std::copy_n(bv, 3, b.data<double>());
  return lfilter(samples, a, b, /*clamp=*/true);
}

namespace {

struct Rbj {
  double w0, alpha, cos_w0, sin_w0;
};

// Checks sample_rate, the frequency and Q; returns w0 and alpha = sin(w0) / (2 Q).
Rbj design(const char* op, int sample_rate, double freq, double Q) {
  if (sample_rate <= 0) invalid(op, "sample_rate must be positive, got " + std::to_string(sample_rate));
  check_finite(op, "frequency", freq);
  check_finite(op, "Q", Q);
  const double nyquist = sample_rate / 2.0;
  if (!(freq > 0 && freq < nyquist))
    invalid(op, "frequency " + std::to_string(freq) + " Hz must be in (0, " + std::to_string(nyquist) +
                    ") Hz (below the Nyquist frequency)");
  if (!(Q > 0)) invalid(op, "Q must be positive");
  const double w0 = 2 * std::numbers::pi * freq / sample_rate;
  return {w0, std::sin(w0) / 2 / Q, std::cos(w0), std::sin(w0)};
}

}  // namespace

Tensor lowpass_biquad(const Tensor& samples, int sample_rate, double cutoff_freq, double Q) {
  check_samples(samples, "lowpass_biquad");  // lfilter makes the contiguous copy
  const Rbj r = design("lowpass_biquad", sample_rate, cutoff_freq, Q);
  const double b0 = (1 - r.cos_w0) / 2;
  return biquad(samples, b0, 1 - r.cos_w0, b0, 1 + r.alpha, -2 * r.cos_w0, 1 - r.alpha);
}

Tensor highpass_biquad(const Tensor& samples, int sample_rate, double cutoff_freq, double Q) {
  check_samples(samples, "highpass_biquad");  // lfilter makes the contiguous copy
  const Rbj r = design("highpass_biquad", sample_rate, cutoff_freq, Q);
  const double b0 = (1 + r.cos_w0) / 2;
  return biquad(samples, b0, -1 - r.cos_w0, b0, 1 + r.alpha, -2 * r.cos_w0, 1 - r.alpha);
}

Tensor bandpass_biquad(const Tensor& samples, int sample_rate, double central_freq, double Q, bool const_skirt_gain) {
  check_samples(samples, "bandpass_biquad");  // lfilter makes the contiguous copy
  const Rbj r = design("bandpass_biquad", sample_rate, central_freq, Q);
  const double temp = const_skirt_gain ? r.sin_w0 / 2 : r.alpha;
  return biquad(samples, temp, 0, -temp, 1 + r.alpha, -2 * r.cos_w0, 1 - r.alpha);
}

Tensor equalizer_biquad(const Tensor& samples, int sample_rate, double center_freq, double gain_db, double Q) {
  check_samples(samples, "equalizer_biquad");  // lfilter makes the contiguous copy
  const Rbj r = design("equalizer_biquad", sample_rate, center_freq, Q);
  check_finite("equalizer_biquad", "gain", gain_db);
  const double A = std::exp(gain_db / 40.0 * std::log(10.0));
  return biquad(samples, 1 + r.alpha * A, -2 * r.cos_w0, 1 - r.alpha * A, 1 + r.alpha / A, -2 * r.cos_w0,
                1 - r.alpha / A);
}

}  // namespace loom::audio
