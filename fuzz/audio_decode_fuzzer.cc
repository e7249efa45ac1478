// libFuzzer target: audio decoding from memory (libsndfile for WAV/AIFF/AU/CAF/FLAC/Vorbis, FFmpeg for
// MP3, AAC, Opus, ADPCM and audio in any whitelisted container), through both decode() and AudioReader.
// The last input byte picks the options (as in image_decode_fuzzer.cc: the first bytes are the magic
// numbers the sniffers need), so that one corpus explores slices, both dtypes, both layouts, and
// chunked reads with forward and backward seeks. Limits are set low inside the harness (64 MiB of input
// and output, a 1 s deadline on every FFmpeg call, a bounded number of reads) so that every report is a
// real bug, not an allocation or a long decode the limits were meant to refuse.
#include <cstddef>
#include <cstdint>
#include <span>

#include "fuzz_util.h"
#include "loom/audio/load.h"
#include "loom/audio/reader.h"
#include "loom/codec/error.h"

namespace {

using loom::fuzz::touch;

loom::Limits fuzz_limits() {
  loom::Limits limits;
  limits.max_bytes = uint64_t{64} << 20;
  limits.max_audio_channels = 256;
  limits.probe_bytes = 1 << 20;
  limits.analyze_seconds = 1.0;
  limits.deadline_seconds = 1.0;
  return limits;
}

}  // namespace

[[maybe_unused]] const bool kFfmpegCapped = loom::fuzz::cap_ffmpeg_allocations();

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace loom;
  const uint8_t knobs = size > 0 ? data[size - 1] : 0;
  const ByteSource src = ByteSource::from_memory(std::span<const uint8_t>(data, size), "fuzz-input");

  // Whole-file decode, sliced by knobs & 3.
  audio::LoadOptions opt;
  opt.limits = fuzz_limits();
  switch (knobs & 3) {
    case 0: break;
    case 1: opt.frame_offset = 100; break;
    case 2: opt.num_frames = 1000; break;
    case 3:
      opt.frame_offset = 4097;
      opt.num_frames = 50;
      break;
  }
  opt.normalize = (knobs & 4) == 0;
  opt.channels_first = (knobs & 8) == 0;
  try {
    touch(audio::decode(src, opt).samples);
  } catch (const Error&) {
  }

  // Streaming: small chunks (1, 7, 160 or 4096 frames), a forward seek, a backward seek, then to the end
  // (bounded: a tiny file can hold millions of compressed frames).
  audio::ReaderOptions ro;
  ro.limits = fuzz_limits();
  ro.normalize = opt.normalize;
  ro.channels_first = (knobs & 16) == 0;
  static constexpr int64_t kChunks[4] = {1, 7, 160, 4096};
  const int64_t chunk = kChunks[(knobs >> 5) & 3];
  try {
    audio::AudioReader reader(src, ro);
    (void)reader.num_frames();
    touch(reader.read(chunk));
    touch(reader.read(chunk));
    reader.seek((knobs & 128) ? 1'000'000 : 3 * chunk + 5);
    touch(reader.read(chunk));
    reader.seek(1);
    for (int i = 0; i < 200; ++i) {
      const Tensor t = reader.read(chunk);
      touch(t);
      if (t.numel() == 0) break;
    }
  } catch (const Error&) {
  }
  return 0;
}
