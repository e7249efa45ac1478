// The kSinc engine: torchaudio's windowed-sinc polyphase filter, its zero taps skipped.
//
// torchaudio pads the signal with `width` zeros on the left and width + orig on the right and runs a
// strided conv1d of next kernels of 2 * width + orig taps each (475 at 44.1 -> 16 kHz, ~34 non-zero).
// Here each phase keeps its non-zero run (SincFilter), and the signal goes through in chunks of blocks
// laid out "block-transposed": row r of a chunk holds x[(b0 + m) * orig + r - width] for m = 0, 1, ...
// (zero outside the signal, which is torchaudio's padding), so the input of tap i for consecutive blocks
// is consecutive floats, and accel::polyphase_fir runs the blocks of one phase across SIMD lanes.
#include "resample_sinc.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "loom/accel/polyphase_fir.h"
#include "loom/codec/error.h"
#include "loom/codec/limits.h"

namespace loom::audio::detail {
namespace {

constexpr double kPi = 3.14159265358979323846;

// Blocks per chunk: about this many floats of signal, a multiple of 16 (whole AVX-512 vectors).
constexpr int64_t kChunkFloats = 1 << 15;

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

void check_bytes(double bytes, const char* what) {
  const uint64_t max_bytes = Limits{}.max_bytes;
  const double limit = max_bytes != 0 ? static_cast<double>(max_bytes) : 0x1p62;
  if (!(bytes <= limit)) {
    throw Error(ErrorCode::kLimitExceeded, "resample",
                fmt::format("the sinc filter's {} would take {:.0f} bytes, more than the limit of {:.0f} bytes", what,
                            bytes, limit));
  }
}

}  // namespace

void check_sinc_options(const ResampleOptions& options) {
  if (options.lowpass_filter_width <= 0) {
    throw Error(ErrorCode::kInvalidInput, "resample",
                fmt::format("lowpass_filter_width must be positive, not {}", options.lowpass_filter_width));
  }
  if (!(options.rolloff > 0.0 && options.rolloff <= 1.0)) {
    throw Error(ErrorCode::kInvalidInput, "resample",
                fmt::format("rolloff must be in (0, 1], not {}", options.rolloff));
  }
  if (options.window != SincWindow::kHann && options.window != SincWindow::kKaiser) {
    throw Error(ErrorCode::kInvalidInput, "resample", "unknown sinc window");
  }
  if (options.window == SincWindow::kKaiser && !std::isfinite(options.beta)) {
    throw Error(ErrorCode::kInvalidInput, "resample", fmt::format("beta must be finite, not {}", options.beta));
  }
}

SincFilter make_sinc_filter(int in_rate, int out_rate, const ResampleOptions& options) {
  const int64_t gcd = std::gcd(in_rate, out_rate);
  SincFilter f;
  f.orig = in_rate / gcd;
  f.next = out_rate / gcd;
  const double lpw = options.lowpass_filter_width;
  // torchaudio: base_freq = min(orig, new) * rolloff; width = ceil(lowpass_filter_width * orig / base_freq).
  const double base = static_cast<double>(std::min(f.orig, f.next)) * options.rolloff;
  const double half = lpw * static_cast<double>(f.orig) / base;  // the kept run is i/orig within half/orig of j/next
  check_bytes(static_cast<double>(f.next) * (2.0 * half + 3.0) * (sizeof(float) + sizeof(int64_t)), "taps");
  f.width = static_cast<int64_t>(std::ceil(half));
  const double scale = base / static_cast<double>(f.orig);
  const double i0_beta = std::cyl_bessel_i(0.0, options.beta);
  const auto time = [&](int64_t i, int64_t j) {  // torchaudio's t (before its clamp to +-lpw)
    return static_cast<double>(i * f.next - j * f.orig) / static_cast<double>(f.orig * f.next) * base;
  };
  f.first.resize(static_cast<size_t>(f.next));
  f.start.resize(static_cast<size_t>(f.next) + 1);
  const int64_t lowest = -f.width, highest = f.width + f.orig - 1;
  for (int64_t j = 0; j < f.next; ++j) {
    const double center = static_cast<double>(j * f.orig) / static_cast<double>(f.next);
    int64_t lo = std::max(lowest, static_cast<int64_t>(std::floor(center - half)) - 1);
    int64_t hi = std::min(highest, static_cast<int64_t>(std::ceil(center + half)) + 1);
    while (lo <= hi && !(std::abs(time(lo, j)) < lpw)) ++lo;
    while (hi >= lo && !(std::abs(time(hi, j)) < lpw)) --hi;
    f.first[static_cast<size_t>(j)] = lo;
    f.start[static_cast<size_t>(j)] = static_cast<int64_t>(f.taps.size());
    for (int64_t i = lo; i <= hi; ++i) {
      const double t = time(i, j);
      const double window =
          options.window == SincWindow::kHann
              ? std::pow(std::cos(t * kPi / lpw / 2.0), 2)
              : std::cyl_bessel_i(0.0, options.beta * std::sqrt(1.0 - (t / lpw) * (t / lpw))) / i0_beta;
      const double sinc = t == 0.0 ? 1.0 : std::sin(t * kPi) / (t * kPi);
      const double tap = sinc * window * scale;
      if (!std::isfinite(tap)) {
        throw Error(ErrorCode::kInvalidInput, "resample",
                    fmt::format("the Kaiser window overflows at beta {} (I0(beta) is not finite)", options.beta));
      }
      f.taps.push_back(static_cast<float>(tap));
    }
  }
  f.start[static_cast<size_t>(f.next)] = static_cast<int64_t>(f.taps.size());
  return f;
}

Tensor sinc_resample(const Tensor& in, int64_t channels, int64_t frames, int in_rate, int out_rate,
                     const ResampleOptions& options) {
  const SincFilter f = make_sinc_filter(in_rate, out_rate, options);
  const int64_t orig = f.orig, next = f.next, width = f.width;
  // torchaudio: ceil(new * length / orig), split so that no product passes 2^63.
  const int64_t out_frames = frames / orig * next + ceil_div(frames % orig * next, orig);
  const uint64_t out_bytes = static_cast<uint64_t>(out_frames) * static_cast<uint64_t>(channels) * sizeof(float);
  const uint64_t max_bytes = Limits{}.max_bytes;
  if (max_bytes != 0 && out_bytes > max_bytes) {
    throw Error(ErrorCode::kLimitExceeded, "samples",
                fmt::format("resampled to {} Hz it would take {} bytes, more than the limit of {} bytes", out_rate,
                            out_bytes, max_bytes));
  }
  const bool planar = options.channels_first;
  Tensor out = planar ? Tensor::empty({channels, out_frames}, DType::kFloat32)
                      : Tensor::empty({out_frames, channels}, DType::kFloat32);

  // Chunks of `chunk` blocks; a row holds chunk + reach floats, reach covering the largest i + width.
  const int64_t blocks = ceil_div(out_frames, next);
  const int64_t reach = (2 * width + orig - 1) / orig + 1;
  const int64_t chunk = std::min(blocks, ceil_div(ceil_div(kChunkFloats, orig), 16) * 16);
  const int64_t row = chunk + reach;
  check_bytes(static_cast<double>(orig) * static_cast<double>(row) * sizeof(float), "signal chunk");
  // Tap k of phase j reads row (i + width) % orig at (i + width) / orig, i = first[j] + k - start[j].
  std::vector<int64_t> offsets(f.taps.size());
  for (int64_t j = 0; j < next; ++j) {
    for (int64_t k = f.start[j]; k < f.start[j + 1]; ++k) {
      const int64_t u = f.first[j] + (k - f.start[j]) + width;
      offsets[k] = (u % orig) * row + u / orig;
    }
  }
  std::vector<float> rows(static_cast<size_t>(orig * row));
  std::vector<float> phases(static_cast<size_t>(next * chunk));  // phase j's outputs at j * chunk
  const int64_t in_step = planar ? 1 : channels;                 // floats between frames
  const float* const x = in.data<float>();
  float* const y = out.data<float>();

  for (int64_t c = 0; c < channels; ++c) {
    const float* xc = planar ? x + c * frames : x + c;
    float* yc = planar ? y + c * out_frames : y + c;
    for (int64_t b0 = 0; b0 < blocks; b0 += chunk) {
      const int64_t n = std::min(chunk, blocks - b0), filled = n + reach;
      // Entry m of row r is frame (b0 + m) * orig + r - width. Frame order (m outer) reads the signal
      // once, in order; the orig rows written at a time stay in L1 (orig cache lines).
      for (int64_t m = 0; m < filled; ++m) {
        const int64_t f0 = (b0 + m) * orig - width;  // the frame of row 0
        float* dst = rows.data() + m;
        if (f0 >= 0 && f0 + orig <= frames) {
          const float* src = xc + f0 * in_step;
          for (int64_t r = 0; r < orig; ++r) dst[r * row] = src[r * in_step];
        } else {
          for (int64_t r = 0; r < orig; ++r) {
            const int64_t frame = f0 + r;
            dst[r * row] = frame >= 0 && frame < frames ? xc[frame * in_step] : 0.0f;
          }
        }
      }
      for (int64_t j = 0; j < next; ++j) {
        const int64_t count = std::clamp<int64_t>(out_frames > j ? ceil_div(out_frames - j, next) - b0 : 0, 0, n);
        accel::polyphase_fir(rows.data(), f.taps.data() + f.start[j], offsets.data() + f.start[j],
                             static_cast<size_t>(f.start[j + 1] - f.start[j]), static_cast<size_t>(count),
                             phases.data() + j * chunk);
      }
      const int64_t end = std::min(out_frames, (b0 + n) * next);
      const int64_t out_step = planar ? 1 : channels;
      for (int64_t k = b0 * next, m = 0; k < end; ++m) {
        for (int64_t j = 0; j < next && k < end; ++j, ++k) yc[k * out_step] = phases[j * chunk + m];
      }
    }
  }
  return out;
}

}  // namespace loom::audio::detail
