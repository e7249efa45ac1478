// Loads an audio file as float32 [channels, frames], streams it in one-second chunks, and saves it as FLAC.
// Usage: sample_load_audio <input audio or video file> <output.flac>
#include <cmath>
#include <cstdio>

#include "loom/audio/load.h"
#include "loom/audio/reader.h"
#include "loom/audio/save.h"
#include "loom/codec/error.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s <input> <output.flac>\n", argv[0]);
    return 2;
  }
  try {
    // Whole file, then a slice: exact sample positions in every format.
    const loom::audio::Audio a = loom::audio::load(argv[1]);
    std::printf("%lld channels x %lld frames at %d Hz\n", static_cast<long long>(a.samples.size(0)),
                static_cast<long long>(a.samples.size(1)), a.sample_rate);
    loom::audio::LoadOptions slice;
    slice.frame_offset = a.sample_rate / 10;  // from 0.1 s
    slice.num_frames = a.sample_rate / 10;    // 0.1 s long
    std::printf("slice: %lld frames\n", static_cast<long long>(loom::audio::load(argv[1], slice).samples.size(1)));

    // Streaming: flat memory however long the file is.
    loom::audio::AudioReader reader{std::filesystem::path(argv[1])};
    double peak = 0;
    for (loom::Tensor chunk = reader.read(reader.sample_rate()); chunk.size(1) > 0;
         chunk = reader.read(reader.sample_rate())) {
      const float* p = chunk.data<float>();
      for (int64_t i = 0; i < chunk.numel(); ++i) peak = std::fmax(peak, std::fabs(p[i]));
    }
    std::printf("streamed %lld frames, peak %.4f\n", static_cast<long long>(reader.position()), peak);

    // float32 -> 24-bit FLAC, written atomically.
    loom::audio::save(argv[2], a.samples, a.sample_rate);
    std::printf("wrote %s\n", argv[2]);
  } catch (const loom::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
