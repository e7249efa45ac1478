// Helpers shared by the fuzz harnesses.
#pragma once

#include <cstddef>
#include <cstdint>

#include "loom/codec/tensor.h"

namespace loom::fuzz {

// The largest single allocation FFmpeg may make in the harnesses that reach it (audio, video): its
// demuxers allocate what a header declares before loom sees the data (a 1 KB WAV whose chunk claims
// 1.6 GB is zero-filled in avformat_open_input), which would otherwise end every run as an
// out-of-memory report about FFmpeg. Call cap_ffmpeg_allocations() once, from a static initializer.
inline constexpr size_t kMaxFfmpegAllocation = size_t{256} << 20;
bool cap_ffmpeg_allocations();

// Reads every byte of `t` so that a short, overlapping or uninitialised buffer shows up under ASan/UBSan.
inline void touch(const Tensor& t) {
  const auto* p = static_cast<const uint8_t*>(t.data());
  unsigned sum = 0;
  for (size_t i = 0; i < t.nbytes(); ++i) sum += p[i];
  volatile unsigned sink = sum;
  (void)sink;
}

}  // namespace loom::fuzz
