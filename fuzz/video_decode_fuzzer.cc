// libFuzzer target: video decoding from memory (loom::video::VideoDecoder over FFmpeg: any whitelisted
// container and codec). Each input is opened from a memory ByteSource and a few frames are decoded: the
// first, the last, a middle one, two out of order (get_frames_at), a strided range and the frame played
// at a time inside the stream. The last input byte picks the options (as in audio_decode_fuzzer.cc:
// the first bytes are the magic numbers the demuxers probe for): seek mode (exact scan or approximate
// header trust), layout, and an output_size that resizes in the swscale pass.
// Limits are set low inside the harness (1 Mpixel frames, 64 MiB of input and output, a 1 s deadline on
// every FFmpeg call, 1 MiB of probing) so that every report is a real bug, not an allocation or a long
// decode the limits were meant to refuse. The decoder itself is single-threaded here (num_threads = 1)
// so that a run is reproducible.
#include <cstddef>
#include <cstdint>
#include <span>

#include "fuzz_util.h"
#include "loom/codec/error.h"
#include "loom/video/decoder.h"

namespace {

using loom::fuzz::touch;

loom::Limits fuzz_limits() {
  loom::Limits limits;
  limits.max_pixels = uint64_t{1} << 20;
  limits.max_bytes = uint64_t{64} << 20;
  limits.probe_bytes = 1 << 20;
  limits.analyze_seconds = 1.0;
  limits.max_streams = 16;
  limits.deadline_seconds = 1.0;
  return limits;
}

template <typename Fn>
void attempt(Fn&& fn) {
  try {
    fn();
  } catch (const loom::Error&) {
  }
}

}  // namespace

[[maybe_unused]] const bool kFfmpegCapped = loom::fuzz::cap_ffmpeg_allocations();

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace loom;
  const uint8_t knobs = size > 0 ? data[size - 1] : 0;
  const ByteSource src = ByteSource::from_memory(std::span<const uint8_t>(data, size), "fuzz-input");

  video::DecoderOptions opt;
  opt.limits = fuzz_limits();
  opt.num_threads = 1;
  opt.seek_mode = (knobs & 1) ? video::SeekMode::kApproximate : video::SeekMode::kExact;
  opt.dimension_order = (knobs & 2) ? Layout::kHWC : Layout::kCHW;
  switch ((knobs >> 2) & 3) {
    case 0: break;
    case 1: opt.output_size = Size{7, 5}; break;
    case 2: opt.output_size = Size{32, 48}; break;
    case 3: opt.output_size = Size{1, 1}; break;
  }
  try {
    video::VideoDecoder decoder = video::VideoDecoder::open(src, opt);
    const video::StreamMetadata& meta = decoder.metadata();
    const int64_t n = decoder.num_frames();
    attempt([&] { touch(decoder.get_frame_at(0).data); });
    attempt([&] { touch(decoder.get_frame_at(-1).data); });
    attempt([&] { touch(decoder.get_frame_at(n / 2).data); });
    const int64_t some[3] = {n / 3, 0, n - 1};
    attempt([&] { touch(decoder.get_frames_at(some).data); });
    attempt([&] { touch(decoder.get_frames_in_range(1, 40, 1 + (knobs >> 4)).data); });
    const double begin = meta.begin_stream_seconds;
    const double end = meta.end_stream_seconds;
    attempt([&] { touch(decoder.get_frame_played_at(begin + 0.4 * (end - begin)).data); });
    attempt([&] { touch(decoder.get_frames_played_in_range(begin, begin + 0.1).data); });
  } catch (const Error&) {
  }
  return 0;
}
