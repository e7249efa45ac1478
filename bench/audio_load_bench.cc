// loom_bench_audio_load: single-thread loom::audio::load time per file.
//
// Usage: loom_bench_audio_load [--channels-last] FILE [FILE ...]
//
// For each file: load(path) with normalize = true (float32) and channels_first = true ([channels, frames],
// loom's default) or, with --channels-last, false ([frames, channels], soundfile's layout). 0.1 s of untimed
// calls, then the median of enough calls to take 0.2 s (at least 5), printed as one JSON line:
//   {"file": "a.wav", "channels_first": true, "channels": 2, "frames": 2646000, "sample_rate": 44100, "ms": 1.23}
// Driven by bench/audio_load.py, which times soundfile, PyAV and torchaudio on the same files.
#include <fmt/format.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "json_escape.h"
#include "loom/audio/load.h"
#include "median_time.h"

using loom::bench::json_escape;

int main(int argc, char** argv) {
  loom::audio::LoadOptions options;  // normalize = true, float32
  int first = 1;
  if (argc > 1 && std::strcmp(argv[1], "--channels-last") == 0) {
    options.channels_first = false;
    first = 2;
  }
  if (first >= argc) {
    std::fprintf(stderr, "usage: %s [--channels-last] FILE [FILE ...]\n", argv[0]);
    return 2;
  }
  for (int a = first; a < argc; ++a) {
    try {
      const loom::audio::Audio probe = loom::audio::load(argv[a], options);
      const auto& shape = probe.samples.shape();
      const int64_t channels = options.channels_first ? shape[0] : shape[1];
      const int64_t frames = options.channels_first ? shape[1] : shape[0];
      const double s = loom::bench::median_seconds([&] { (void)loom::audio::load(argv[a], options); });
      std::puts(
          fmt::format(
              R"({{"file": "{}", "channels_first": {}, "channels": {}, "frames": {}, "sample_rate": {}, "ms": {:.4f}}})",
              json_escape(argv[a]), options.channels_first, channels, frames, probe.sample_rate, s * 1e3)
              .c_str());
    } catch (const std::exception& e) {
      std::puts(fmt::format(R"({{"file": "{}", "error": "{}"}})", json_escape(argv[a]), json_escape(e.what())).c_str());
    }
    std::fflush(stdout);
  }
  return 0;
}
