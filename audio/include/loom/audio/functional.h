// Audio functional ops with torchaudio 0.13's semantics (torchaudio.functional / transforms.Fade).
//
// Samples: every op takes a CPU float32 tensor [channels, frames] (channels first, any strides; values
// nominally in [-1, 1]) and returns a new contiguous float32 tensor; the input is never modified.
// Intermediate arithmetic is in double, so results agree with torchaudio's float32 ones to about 1e-6
// relative (filters with poles close to the unit circle amplify the difference; see docs/audio.md).
// NaN or infinite samples are not rejected: they propagate as they do in torchaudio.
// Errors: a tensor that is not 2-D float32 throws Error(kInvalidInput), a CUDA tensor Error(kUnsupported);
// bad parameters (NaN, out of range, see each function) throw Error(kInvalidInput).
// Thread safety: every function is reentrant (no shared state).
#pragma once

#include <cstdint>

#include "loom/codec/api.h"
#include "loom/codec/tensor.h"

LOOM_API_BEGIN

namespace loom::audio {

// samples * 10^(gain_db / 20): gain in dB (+6.02 dB doubles the amplitude). No clamping.
Tensor gain(const Tensor& samples, double gain_db);

// Mean over channels: [channels, frames] -> [1, frames].
Tensor mix_down(const Tensor& samples);
// Repeats a mono signal: [1, frames] -> [channels, frames]. channels >= 1; the input must be mono.
Tensor mix_up(const Tensor& samples, int64_t channels);
// Channel matrix: out[o, t] = sum_i matrix[o, i] * samples[i, t]. `matrix` is float32 or float64
// [out_channels, in_channels] with in_channels == samples.size(0). No clamping.
Tensor mix(const Tensor& samples, const Tensor& matrix);

// torchaudio.transforms.Fade's shapes. With x = linspace(0, 1, len) (x_i = i / (len - 1)):
//   fade in:  linear x; exponential 2^(x-1) * x; logarithmic log10(0.1 + x) + 1; quarter_sine sin(x pi/2);
//             half_sine sin(x pi - pi/2) / 2 + 0.5
//   fade out: linear 1 - x; exponential 2^-x * (1 - x); logarithmic log10(1.1 - x) + 1;
//             quarter_sine sin(x pi/2 + pi/2); half_sine sin(x pi + pi/2) / 2 + 0.5
// each clamped to [0, 1].
enum class FadeShape { kLinear, kExponential, kLogarithmic, kQuarterSine, kHalfSine };

// Multiplies the first fade_in_len frames by the fade-in curve and the last fade_out_len frames by the
// fade-out curve (they may overlap; both apply). Lengths in samples (frames), each in [0, frames], else
// Error(kInvalidInput). A length of 1 multiplies that one frame by the curve at x = 0.
Tensor fade(const Tensor& samples, int64_t fade_in_len, int64_t fade_out_len, FadeShape shape = FadeShape::kLinear);

// IIR filter by its difference equation (torchaudio.functional.lfilter), zero initial state:
//   a0 y[n] = b0 x[n] + b1 x[n-1] + ... + bN x[n-N] - a1 y[n-1] - ... - aN y[n-N]
// a_coeffs and b_coeffs are float32 or float64, same shape, lowest delay first:
//   - 1-D [N+1]: one filter for every channel; the result is [channels, frames];
//   - 2-D [filters, N+1] with batching = true: filter i on channel i (filters == channels), result
//     [channels, frames];
//   - 2-D with batching = false: every filter on every channel, result [channels, filters, frames].
// a0 must be non-zero (every row). clamp = true clamps the output to [-1, 1] (after filtering, as
// torchaudio does: the clamped values are not fed back).
Tensor lfilter(const Tensor& samples, const Tensor& a_coeffs, const Tensor& b_coeffs, bool clamp = true,
               bool batching = true);

// Second-order section: lfilter with a = [a0, a1, a2], b = [b0, b1, b2], clamp = true.
Tensor biquad(const Tensor& samples, double b0, double b1, double b2, double a0, double a1, double a2);

// RBJ cookbook biquads as torchaudio builds them (w0 = 2 pi f / sample_rate, alpha = sin(w0) / (2 Q)),
// all with clamp = true. sample_rate in Hz (> 0); frequencies in Hz, in (0, sample_rate / 2); Q > 0.
Tensor lowpass_biquad(const Tensor& samples, int sample_rate, double cutoff_freq, double Q = 0.707);
Tensor highpass_biquad(const Tensor& samples, int sample_rate, double cutoff_freq, double Q = 0.707);
// const_skirt_gain = true: constant skirt gain (peak gain Q); false: constant 0 dB peak gain.
Tensor bandpass_biquad(const Tensor& samples, int sample_rate, double central_freq, double Q = 0.707,
                       bool const_skirt_gain = false);
// Peaking equalizer: gain_db (dB, finite) at center_freq.
Tensor equalizer_biquad(const Tensor& samples, int sample_rate, double center_freq, double gain_db, double Q = 0.707);

// torchaudio.functional.overdrive (SoX's overdrive): gain in dB and colour (amount of even harmonics),
// each in [0, 100]. Soft clipping of samples * 10^(gain/20) + colour/200, a DC-blocking filter, then
// 0.5 x + 0.75 y clamped to [-1, 1].
Tensor overdrive(const Tensor& samples, double gain = 20, double colour = 20);

}  // namespace loom::audio

LOOM_API_END
