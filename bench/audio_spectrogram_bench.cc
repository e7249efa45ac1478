// loom_bench_audio_spectrogram: single-thread loom::audio::spectrogram time.
//
// Usage: loom_bench_audio_spectrogram RAW_F32 CHANNELS FRAMES N_FFT [N_FFT ...]
//
// RAW_F32 holds CHANNELS x FRAMES float32 samples, channels first, written by bench/audio_spectrogram.py
// so that loom and torchaudio transform the same signal. For each n_fft: torchaudio.transforms.Spectrogram's
// defaults (win_length = n_fft, hop = n_fft / 2, Hann, power 2, centred with reflect padding); 0.1 s of
// untimed calls, then the median of enough calls to take 0.2 s, printed as one JSON line:
//   {"channels": 1, "frames": 160000, "n_fft": 400, "ms": 1.23}
#include <fmt/format.h>

#include <cstdio>
#include <string>

#include "loom/audio/spectral.h"
#include "median_time.h"
#include "raw_tensor.h"

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s RAW_F32 CHANNELS FRAMES N_FFT [N_FFT ...]\n", argv[0]);
    return 2;
  }
  const int64_t channels = std::stoll(argv[2]), frames = std::stoll(argv[3]);
  loom::Tensor samples = loom::Tensor::empty({channels, frames}, loom::DType::kFloat32);
  if (!loom::bench::read_raw(argv[1], samples)) return 2;
  for (int a = 4; a < argc; ++a) {
    loom::audio::SpectrogramOptions options;
    options.n_fft = std::stoi(argv[a]);
    const double s = loom::bench::median_seconds([&] { (void)loom::audio::spectrogram(samples, options); });
    std::puts(fmt::format(R"({{"channels": {}, "frames": {}, "n_fft": {}, "ms": {:.4f}}})", channels, frames,
                          options.n_fft, s * 1e3)
                  .c_str());
  }
  return 0;
}
