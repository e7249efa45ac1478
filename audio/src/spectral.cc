// spectrogram (STFT through av_tx), mel filter banks, mel spectrogram, amplitude_to_db, DCT, MFCC.
#include "loom/audio/spectral.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "audio_tensor_checks.h"
#include "fft.h"

namespace loom::audio {

using detail::cfloat;
using detail::check_finite;
using detail::checked_samples;
using detail::invalid;

namespace {

constexpr int kFrameBlock = 16;  // frames transformed before their columns are written out

struct StftPlan {
  int n_fft, win_length, hop, pad;
  int64_t frames_in;  // samples per channel of the input
  int64_t length;     // after `pad` and centre padding
  int64_t n_frames;
  int n_freq;
  std::vector<float> window;  // n_fft values, the window centred with zeros around it
  float scale;                // normalisation applied to the complex values
};

StftPlan plan_stft(const char* op, const SpectrogramOptions& o, int64_t frames) {
  if (o.n_fft < 2) invalid(op, "n_fft must be at least 2, got " + std::to_string(o.n_fft));
  const int win = o.win_length.value_or(o.n_fft);
  if (win < 1 || win > o.n_fft)
    invalid(op, "win_length " + std::to_string(win) + " must be in [1, n_fft = " + std::to_string(o.n_fft) + "]");
  if (o.hop_length && *o.hop_length < 1)
    invalid(op, "hop_length must be at least 1, got " + std::to_string(*o.hop_length));
  const int hop = o.hop_length.value_or(std::max(1, win / 2));
  if (o.pad < 0) invalid(op, "pad must not be negative");
  if (o.power && !(std::isfinite(*o.power) && *o.power > 0)) invalid(op, "power must be positive and finite");
  switch (o.window) {
    case WindowFunction::kHann:
    case WindowFunction::kHamming:
    case WindowFunction::kRectangular: break;
    default: invalid(op, "unknown window function");
  }
  StftPlan p{};
  p.n_fft = o.n_fft;
  p.win_length = win;
  p.hop = hop;
  p.pad = o.pad;
  p.frames_in = frames;
  const int64_t padded = frames + 2 * int64_t{o.pad};
  const int64_t half = o.center ? o.n_fft / 2 : 0;
  if (o.center) {
    switch (o.pad_mode) {
      case PadMode::kReflect:
        if (half >= padded)
          invalid(op, "reflect padding of " + std::to_string(half) + " samples needs more than that many frames, got " +
                          std::to_string(padded));
        break;
      case PadMode::kReplicate:
        if (padded < 1) invalid(op, "replicate padding needs at least one frame");
        break;
      case PadMode::kCircular:
        if (half > padded)
          invalid(op, "circular padding of " + std::to_string(half) + " samples needs at least that many frames");
        break;
      case PadMode::kConstant: break;
      default: invalid(op, "unknown pad mode");
    }
  }
  p.length = padded + 2 * half;
  if (p.length < o.n_fft)
    invalid(op, "signal of " + std::to_string(p.length) +
                    " samples (after padding) is shorter than n_fft = " + std::to_string(o.n_fft));
  p.n_frames = 1 + (p.length - o.n_fft) / hop;
  p.n_freq = o.onesided ? o.n_fft / 2 + 1 : o.n_fft;

  p.window.assign(static_cast<size_t>(o.n_fft), 0.0f);
  const int offset = (o.n_fft - win) / 2;
  const double denom = o.periodic_window ? win : win - 1;
  double energy = 0;
  for (int i = 0; i < win; ++i) {
    double w = 1.0;
    if (o.window != WindowFunction::kRectangular && denom > 0) {
      const double c = std::cos(2 * std::numbers::pi * i / denom);
      w = o.window == WindowFunction::kHann ? 0.5 - 0.5 * c : 0.54 - 0.46 * c;
    }
    p.window[offset + i] = static_cast<float>(w);
    energy += static_cast<double>(p.window[offset + i]) * p.window[offset + i];
  }
  p.scale = 1.0f;
  if (o.normalized == SpectrogramNorm::kWindow) {
    if (energy <= 0) invalid(op, "window has zero energy");
    p.scale = static_cast<float>(1.0 / std::sqrt(energy));
  } else if (o.normalized == SpectrogramNorm::kFrameLength) {
    p.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(o.n_fft)));
  }
  return p;
}

// Frame `t` of one channel (n_fft samples of the signal after `pad` zeros and centre padding at both
// ends): a pointer into the channel when the frame lies inside it, else the frame built in `scratch`.
const float* frame_at(const float* x, int64_t t, const StftPlan& p, const SpectrogramOptions& o, float* scratch) {
  const int64_t l0 = p.frames_in + 2 * int64_t{p.pad};
  const int64_t half = o.center ? p.n_fft / 2 : 0;
  const int64_t first = t * p.hop - half - p.pad;  // index into x of the frame's first sample
  if (first >= 0 && first + p.n_fft <= p.frames_in) return x + first;
  auto z = [&](int64_t i) -> float {  // the zero-padded signal, 0 <= i < l0
    const int64_t j = i - p.pad;
    return j >= 0 && j < p.frames_in ? x[j] : 0.0f;
  };
  for (int j = 0; j < p.n_fft; ++j) {
    int64_t i = t * p.hop + j - half;  // index into the zero-padded signal, may be outside [0, l0)
    float v = 0;
    if (i >= 0 && i < l0) {
      v = z(i);
    } else {
      switch (o.pad_mode) {
        case PadMode::kReflect: v = z(i < 0 ? -i : 2 * (l0 - 1) - i); break;
        case PadMode::kReplicate: v = z(i < 0 ? 0 : l0 - 1); break;
        case PadMode::kCircular: v = z(i < 0 ? i + l0 : i - l0); break;
        case PadMode::kConstant: break;
      }
    }
    scratch[j] = v;
  }
  return scratch;
}

// The STFT of every channel. emit(c, t0, count, spectra) receives `count` consecutive frames starting at
// frame t0 of channel c as spectra[i * n_freq + k] (already scaled).
template <typename Emit>
void stft(const Tensor& in, const StftPlan& p, const SpectrogramOptions& o, Emit&& emit) {
  const int64_t channels = in.size(0);
  const int n = p.n_fft;
  detail::ComplexFft fft(n);
  std::vector<float> scratch_a(static_cast<size_t>(n)), scratch_b(static_cast<size_t>(n));
  std::vector<cfloat> spectra(static_cast<size_t>(kFrameBlock) * p.n_freq);
  const float half_scale = 0.5f * p.scale;
  for (int64_t c = 0; c < channels; ++c) {
    const float* x = in.data<float>() + c * p.frames_in;
    for (int64_t t0 = 0; t0 < p.n_frames; t0 += kFrameBlock) {
      const int count = static_cast<int>(std::min<int64_t>(kFrameBlock, p.n_frames - t0));
      for (int i = 0; i < count; i += 2) {
        // Two real frames a and b as one complex signal a + ib: A[k] = (Z[k] + conj(Z[n-k])) / 2,
        // B[k] = (Z[k] - conj(Z[n-k])) / 2i.
        const float* a = frame_at(x, t0 + i, p, o, scratch_a.data());
        const bool pair = i + 1 < count;
        const float* b = pair ? frame_at(x, t0 + i + 1, p, o, scratch_b.data()) : nullptr;
        cfloat* z = fft.input();
        if (pair) {
          for (int j = 0; j < n; ++j) z[j] = {a[j] * p.window[j], b[j] * p.window[j]};
        } else {
          for (int j = 0; j < n; ++j) z[j] = {a[j] * p.window[j], 0.0f};
        }
        fft.run();
        const cfloat* zf = fft.output();
        cfloat* sa = spectra.data() + static_cast<size_t>(i) * p.n_freq;
        cfloat* sb = sa + p.n_freq;
        for (int k = 0; k < p.n_freq; ++k) {
          const cfloat P = zf[k], Q = std::conj(zf[k == 0 ? 0 : n - k]);
          sa[k] = {(P.real() + Q.real()) * half_scale, (P.imag() + Q.imag()) * half_scale};
          if (pair) sb[k] = {(P.imag() - Q.imag()) * half_scale, (Q.real() - P.real()) * half_scale};
        }
      }
      emit(c, t0, count, spectra.data());
    }
  }
}

void check_sample_rate(const char* op, int sample_rate) {
  if (sample_rate <= 0) invalid(op, "sample_rate must be positive, got " + std::to_string(sample_rate));
}

double hz_to_mel(double f, MelScale scale) {
  if (scale == MelScale::kHtk) return 2595.0 * std::log10(1.0 + f / 700.0);
  const double f_sp = 200.0 / 3, min_log_hz = 1000.0, min_log_mel = min_log_hz / f_sp;
  const double logstep = std::log(6.4) / 27.0;
  return f >= min_log_hz ? min_log_mel + std::log(f / min_log_hz) / logstep : f / f_sp;
}

double mel_to_hz(double m, MelScale scale) {
  if (scale == MelScale::kHtk) return 700.0 * (std::pow(10.0, m / 2595.0) - 1.0);
  const double f_sp = 200.0 / 3, min_log_hz = 1000.0, min_log_mel = min_log_hz / f_sp;
  const double logstep = std::log(6.4) / 27.0;
  return m >= min_log_mel ? min_log_hz * std::exp(logstep * (m - min_log_mel)) : f_sp * m;
}

}  // namespace

Tensor spectrogram(const Tensor& samples, const SpectrogramOptions& options) {
  const Tensor in = checked_samples(samples, "spectrogram");
  const StftPlan p = plan_stft("spectrogram", options, in.size(1));
  const int64_t channels = in.size(0), nf = p.n_frames;
  if (!options.power) {
    Tensor out = Tensor::empty({channels, p.n_freq, nf, 2}, DType::kFloat32);
    float* dst = out.data<float>();
    stft(in, p, options, [&](int64_t c, int64_t t0, int count, const cfloat* s) {
      for (int k = 0; k < p.n_freq; ++k) {
        float* row = dst + ((c * p.n_freq + k) * nf + t0) * 2;
        for (int i = 0; i < count; ++i) {
          row[2 * i] = s[static_cast<size_t>(i) * p.n_freq + k].real();
          row[2 * i + 1] = s[static_cast<size_t>(i) * p.n_freq + k].imag();
        }
      }
    });
    return out;
  }
  const double power = *options.power;
  Tensor out = Tensor::empty({channels, p.n_freq, nf}, DType::kFloat32);
  float* dst = out.data<float>();
  std::vector<float> mag(static_cast<size_t>(kFrameBlock) * p.n_freq);
  stft(in, p, options, [&](int64_t c, int64_t t0, int count, const cfloat* s) {
    const size_t m = static_cast<size_t>(count) * p.n_freq;
    for (size_t j = 0; j < m; ++j) mag[j] = s[j].real() * s[j].real() + s[j].imag() * s[j].imag();
    if (power == 1.0) {
      for (size_t j = 0; j < m; ++j) mag[j] = std::sqrt(mag[j]);
    } else if (power != 2.0) {
      for (size_t j = 0; j < m; ++j)
        mag[j] = static_cast<float>(std::pow(std::sqrt(static_cast<double>(mag[j])), power));
    }
    for (int k = 0; k < p.n_freq; ++k) {
      float* row = dst + (c * p.n_freq + k) * nf + t0;
      for (int i = 0; i < count; ++i) row[i] = mag[static_cast<size_t>(i) * p.n_freq + k];
    }
  });
  return out;
}

Tensor melscale_fbanks(int n_freqs, double f_min, double f_max, int n_mels, int sample_rate, MelNorm norm,
                       MelScale mel_scale) {
  const char* op = "melscale_fbanks";
  check_sample_rate(op, sample_rate);
  if (n_freqs < 2) invalid(op, "n_freqs must be at least 2, got " + std::to_string(n_freqs));
  if (n_mels < 1) invalid(op, "n_mels must be at least 1, got " + std::to_string(n_mels));
  check_finite(op, "f_min", f_min);
  check_finite(op, "f_max", f_max);
  if (!(f_min >= 0 && f_min < f_max))
    invalid(op, "frequencies must satisfy 0 <= f_min < f_max, got f_min " + std::to_string(f_min) + " Hz, f_max " +
                    std::to_string(f_max) + " Hz");
  if (norm != MelNorm::kNone && norm != MelNorm::kSlaney) invalid(op, "unknown mel norm");
  if (mel_scale != MelScale::kHtk && mel_scale != MelScale::kSlaney) invalid(op, "unknown mel scale");
  const double top = static_cast<double>(sample_rate / 2);  // torchaudio: linspace(0, sample_rate // 2, n_freqs)
  std::vector<double> all_freqs(static_cast<size_t>(n_freqs));
  for (int k = 0; k < n_freqs; ++k) all_freqs[k] = top * k / (n_freqs - 1);
  const double m_min = hz_to_mel(f_min, mel_scale), m_max = hz_to_mel(f_max, mel_scale);
  std::vector<double> f_pts(static_cast<size_t>(n_mels) + 2);
  for (int i = 0; i < n_mels + 2; ++i) f_pts[i] = mel_to_hz(m_min + (m_max - m_min) * i / (n_mels + 1), mel_scale);
  Tensor fb = Tensor::empty({n_freqs, n_mels}, DType::kFloat32);
  float* out = fb.data<float>();
  for (int k = 0; k < n_freqs; ++k) {
    for (int m = 0; m < n_mels; ++m) {
      const double down = (all_freqs[k] - f_pts[m]) / (f_pts[m + 1] - f_pts[m]);
      const double up = (f_pts[m + 2] - all_freqs[k]) / (f_pts[m + 2] - f_pts[m + 1]);
      double v = std::max(0.0, std::min(down, up));
      if (norm == MelNorm::kSlaney) v *= 2.0 / (f_pts[m + 2] - f_pts[m]);
      out[static_cast<size_t>(k) * n_mels + m] = static_cast<float>(v);
    }
  }
  return fb;
}

Tensor melspectrogram(const Tensor& samples, const MelSpectrogramOptions& options) {
  const char* op = "melspectrogram";
  const Tensor in = checked_samples(samples, op);
  check_sample_rate(op, options.sample_rate);
  if (!options.spectrogram.power) invalid(op, "power must be set (a mel spectrogram of complex values is undefined)");
  const double f_max = options.f_max ? *options.f_max : static_cast<double>(options.sample_rate / 2);
  // Checks the mel options before the (longer) spectrogram.
  const Tensor fb =
      melscale_fbanks(options.spectrogram.n_fft / 2 + 1 < 2 ? 2 : options.spectrogram.n_fft / 2 + 1, options.f_min,
                      f_max, options.n_mels, options.sample_rate, options.norm, options.mel_scale);
  if (!options.spectrogram.onesided) invalid(op, "onesided must be true for a mel spectrogram");
  const Tensor spec = spectrogram(in, options.spectrogram);
  const int64_t channels = spec.size(0), n_freq = spec.size(1), nf = spec.size(2);
  const int n_mels = options.n_mels;
  Tensor out = Tensor::zeros({channels, n_mels, nf}, DType::kFloat32);
  const float* w = fb.data<float>();
  // The filter bank is sparse: each band covers a few bins; sum only those (rows are contiguous in time).
  for (int m = 0; m < n_mels; ++m) {
    int64_t lo = n_freq, hi = 0;
    for (int64_t k = 0; k < n_freq; ++k)
      if (w[k * n_mels + m] != 0.0f) lo = std::min(lo, k), hi = k + 1;
    for (int64_t c = 0; c < channels; ++c) {
      float* dst = out.data<float>() + (c * n_mels + m) * nf;
      for (int64_t k = lo; k < hi; ++k) {
        const float weight = w[k * n_mels + m];
        const float* src = spec.data<float>() + (c * n_freq + k) * nf;
        for (int64_t t = 0; t < nf; ++t) dst[t] += weight * src[t];
      }
    }
  }
  return out;
}

Tensor amplitude_to_db(const Tensor& x, double multiplier, double amin, double db_multiplier,
                       std::optional<double> top_db) {
  const char* op = "amplitude_to_db";
  if (!x.defined() || !x.device().is_cpu() || x.dtype() != DType::kFloat32)
    invalid(op, "x must be a float32 CPU tensor");
  check_finite(op, "multiplier", multiplier);
  check_finite(op, "db_multiplier", db_multiplier);
  if (!(amin > 0) || !std::isfinite(amin)) invalid(op, "amin must be positive");
  if (top_db && !(*top_db >= 0)) invalid(op, "top_db must not be negative");
  const Tensor in = x.contiguous();
  Tensor out = Tensor::empty(in.shape(), DType::kFloat32);
  const float* src = in.data<float>();
  float* dst = out.data<float>();
  const int64_t n = in.numel();
  float peak = -INFINITY;
  for (int64_t i = 0; i < n; ++i) {
    const float v = static_cast<float>(multiplier * std::log10(std::max(static_cast<double>(src[i]), amin)) -
                                       multiplier * db_multiplier);
    dst[i] = v;
    peak = std::max(peak, v);
  }
  if (top_db && n > 0) {
    const float floor = static_cast<float>(peak - *top_db);
    for (int64_t i = 0; i < n; ++i) dst[i] = std::max(dst[i], floor);
  }
  return out;
}

Tensor create_dct(int n_mfcc, int n_mels, DctNorm norm) {
  const char* op = "create_dct";
  if (n_mfcc < 1 || n_mels < 1) invalid(op, "n_mfcc and n_mels must be at least 1");
  if (norm != DctNorm::kNone && norm != DctNorm::kOrtho) invalid(op, "unknown DCT norm");
  Tensor dct = Tensor::empty({n_mels, n_mfcc}, DType::kFloat32);
  for (int n = 0; n < n_mels; ++n) {
    for (int k = 0; k < n_mfcc; ++k) {
      double v = std::cos(std::numbers::pi / n_mels * (n + 0.5) * k);
      if (norm == DctNorm::kNone) {
        v *= 2.0;
      } else {
        if (k == 0) v *= 1.0 / std::sqrt(2.0);
        v *= std::sqrt(2.0 / n_mels);
      }
      dct.data<float>()[static_cast<size_t>(n) * n_mfcc + k] = static_cast<float>(v);
    }
  }
  return dct;
}

Tensor mfcc(const Tensor& samples, const MfccOptions& options) {
  const char* op = "mfcc";
  if (options.dct_type != 2) invalid(op, "dct_type must be 2, got " + std::to_string(options.dct_type));
  if (options.n_mfcc < 1 || options.n_mfcc > options.mel.n_mels)
    invalid(op, "n_mfcc " + std::to_string(options.n_mfcc) +
                    " must be in [1, n_mels = " + std::to_string(options.mel.n_mels) + "]");
  const Tensor dct = create_dct(options.n_mfcc, options.mel.n_mels, options.norm);
  Tensor mel = melspectrogram(samples, options.mel);
  if (options.log_mels) {
    float* v = mel.data<float>();
    for (int64_t i = 0; i < mel.numel(); ++i) v[i] = std::log(v[i] + 1e-6f);
  } else {
    mel = amplitude_to_db(mel, 10.0, 1e-10, 0.0, 80.0);
  }
  const int64_t channels = mel.size(0), n_mels = mel.size(1), nf = mel.size(2);
  const int n_mfcc = options.n_mfcc;
  Tensor out = Tensor::zeros({channels, n_mfcc, nf}, DType::kFloat32);
  const float* d = dct.data<float>();
  for (int64_t c = 0; c < channels; ++c) {
    for (int i = 0; i < n_mfcc; ++i) {
      float* dst = out.data<float>() + (c * n_mfcc + i) * nf;
      for (int64_t m = 0; m < n_mels; ++m) {
        const float weight = d[m * n_mfcc + i];
        const float* src = mel.data<float>() + (c * n_mels + m) * nf;
        for (int64_t t = 0; t < nf; ++t) dst[t] += weight * src[t];
      }
    }
  }
  return out;
}

}  // namespace loom::audio
