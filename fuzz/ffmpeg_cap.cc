// loom::fuzz::cap_ffmpeg_allocations (fuzz_util.h), for the harnesses that link FFmpeg.
extern "C" {
#include <libavutil/mem.h>
}

#include "fuzz_util.h"

namespace loom::fuzz {

bool cap_ffmpeg_allocations() {
  av_max_alloc(kMaxFfmpegAllocation);
  return true;
}

}  // namespace loom::fuzz
