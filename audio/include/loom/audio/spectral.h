// Spectral ops with torchaudio 0.13's semantics: spectrogram (torch.stft), mel filter banks,
// mel spectrogram, amplitude_to_db and MFCC (torchaudio.transforms.Spectrogram / MelScale /
// MelSpectrogram / AmplitudeToDB / MFCC).
//
// Samples: a CPU float32 tensor [channels, frames] (channels first, any strides). Results are new
// contiguous float32 tensors. FFTs are libavutil's av_tx in float32; results agree with torchaudio's to
// about 1e-6 of the largest value (see docs/audio.md).
// Errors: a tensor that is not 2-D float32 throws Error(kInvalidInput), a CUDA tensor Error(kUnsupported);
// bad options (n_fft < 2, hop 0, win_length > n_fft, a signal too short to frame or to reflect-pad, sample
// rate 0, f_min > f_max, n_mfcc > n_mels, NaN, ...) throw Error(kInvalidInput).
// Thread safety: every function is reentrant: each call makes and owns its FFT plan (one per n_fft,
// reused for all frames and channels of that call).
#pragma once

#include <optional>

#include "loom/codec/api.h"
#include "loom/codec/tensor.h"

LOOM_API_BEGIN

namespace loom::audio {

enum class WindowFunction {
  kHann,         // torch.hann_window: 0.5 - 0.5 cos(2 pi n / N)
  kHamming,      // torch.hamming_window: 0.54 - 0.46 cos(2 pi n / N)
  kRectangular,  // torch.ones
};

enum class SpectrogramNorm {
  kNone,         // normalized=False
  kWindow,       // normalized=True or "window": divide by sqrt(sum(window^2))
  kFrameLength,  // normalized="frame_length": multiply by 1 / sqrt(n_fft)
};

// torch.nn.functional.pad modes for center padding.
enum class PadMode { kReflect, kConstant, kReplicate, kCircular };

struct SpectrogramOptions {
  int n_fft = 400;  // FFT size in samples (>= 2); n_fft / 2 + 1 frequency bins when onesided
  // Window size in samples, 1..n_fft; nullopt: n_fft. A shorter window is centred in the n_fft frame with
  // zeros around it (as torch.stft does).
  std::optional<int> win_length;
  std::optional<int> hop_length;  // samples between frame starts, >= 1; nullopt: max(1, win_length / 2)
  int pad = 0;                    // zeros added at both ends before anything else, samples
  WindowFunction window = WindowFunction::kHann;
  bool periodic_window = true;  // N = win_length (periodic, torch's default) or win_length - 1 (symmetric)
  // Exponent of the magnitude (> 0): 2 = power, 1 = magnitude. std::nullopt: the complex spectrum.
  std::optional<double> power = 2.0;
  SpectrogramNorm normalized = SpectrogramNorm::kNone;
  bool center = true;  // pad n_fft / 2 samples at both ends (pad_mode) so that frame t is centred at t * hop
  PadMode pad_mode = PadMode::kReflect;  // reflect needs n_fft / 2 < frames (after `pad`)
  bool onesided = true;                  // n_fft / 2 + 1 bins; false: all n_fft bins
};

// Short-time Fourier transform of each channel: [channels, frames] -> [channels, n_freq, n_frames]
// float32 holding |X|^power, or [channels, n_freq, n_frames, 2] (real, imaginary) when power is nullopt.
// n_frames = 1 + (L - n_fft) / hop_length where L = frames + 2 pad (+ 2 (n_fft / 2) when center);
// L < n_fft throws Error(kInvalidInput).
Tensor spectrogram(const Tensor& samples, const SpectrogramOptions& options = {});

enum class MelNorm { kNone, kSlaney };  // kSlaney: divide each triangle by its width in Hz / 2 (area norm)
enum class MelScale { kHtk, kSlaney };  // htk: 2595 log10(1 + f / 700); slaney: linear below 1 kHz, log above

// Triangular mel filter bank (torchaudio.functional.melscale_fbanks): [n_freqs, n_mels] float32, column m
// the weights of mel band m over the n_freqs STFT bins (bin k at k * (sample_rate / 2) / (n_freqs - 1) Hz,
// with torchaudio's integer sample_rate / 2). Frequencies in Hz, 0 <= f_min <= f_max; sample_rate > 0 Hz;
// n_freqs >= 2; n_mels >= 1. Bands that fall between bins are all zero (torchaudio warns; loom does not).
Tensor melscale_fbanks(int n_freqs, double f_min, double f_max, int n_mels, int sample_rate,
                       MelNorm norm = MelNorm::kNone, MelScale mel_scale = MelScale::kHtk);

struct MelSpectrogramOptions {
  int sample_rate = 16000;         // Hz
  SpectrogramOptions spectrogram;  // power must be set (2 by default)
  double f_min = 0;                // Hz
  std::optional<double> f_max;     // Hz; nullopt: sample_rate / 2 (integer division, as torchaudio)
  int n_mels = 128;
  MelNorm norm = MelNorm::kNone;
  MelScale mel_scale = MelScale::kHtk;
};

// spectrogram then the mel filter bank: [channels, frames] -> [channels, n_mels, n_frames] float32.
Tensor melspectrogram(const Tensor& samples, const MelSpectrogramOptions& options = {});

// torchaudio.functional.amplitude_to_DB: multiplier * log10(max(x, amin)) - multiplier * db_multiplier,
// in dB; with top_db, floored at (max over the whole tensor) - top_db. torchaudio takes that max per
// item of a 4-D batch [batch, channels, freq, time]; for the 2-D and 3-D tensors loom passes (one clip),
// that is over the whole tensor, all channels together. x: float32, any shape; returns a new tensor.
// multiplier: 10 for power, 20 for amplitude; amin > 0; top_db >= 0.
Tensor amplitude_to_db(const Tensor& x, double multiplier, double amin, double db_multiplier,
                       std::optional<double> top_db = std::nullopt);

enum class DctNorm { kNone, kOrtho };

// DCT-II matrix (torchaudio.functional.create_dct): [n_mels, n_mfcc] float32.
Tensor create_dct(int n_mfcc, int n_mels, DctNorm norm);

struct MfccOptions {
  int n_mfcc = 40;   // 1..n_mels
  int dct_type = 2;  // only 2 exists (as in torchaudio)
  DctNorm norm = DctNorm::kOrtho;
  // false: the mel spectrogram in dB (amplitude_to_db(x, 10, 1e-10, 0, top_db = 80), as
  // torchaudio.transforms.MFCC does); true: log(mel + 1e-6).
  bool log_mels = false;
  MelSpectrogramOptions mel;  // sample_rate lives here
};

// MFCC: [channels, frames] -> [channels, n_mfcc, n_frames] float32. The 80 dB floor is relative to the
// loudest value of all channels together (torchaudio's behaviour for a [channels, frames] input).
Tensor mfcc(const Tensor& samples, const MfccOptions& options = {});

}  // namespace loom::audio

LOOM_API_END
