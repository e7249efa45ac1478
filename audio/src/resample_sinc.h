// Private: the kSinc engine of resample() (resample.cc), torchaudio.functional.resample's windowed-sinc
// resampler computed over the non-zero taps only (resample_sinc.cc).
#pragma once

#include <cstdint>
#include <vector>

#include "loom/audio/effects.h"
#include "loom/codec/tensor.h"

namespace loom::audio::detail {

// torchaudio's filter (_get_sinc_resample_kernel) for in_rate -> out_rate: output k = b * next + j
// (block b, phase j in [0, next)) is sum_i taps_j(i) * x[b * orig + i] over i in [-width, width + orig);
// a phase's taps are zero outside one run of i, and only that run is kept.
struct SincFilter {
  int64_t orig = 0;            // in_rate / gcd(in_rate, out_rate)
  int64_t next = 0;            // out_rate / gcd(in_rate, out_rate)
  int64_t width = 0;           // torchaudio's padding: ceil(lowpass_filter_width * orig / base)
  std::vector<int64_t> first;  // [next]: i of each phase's first kept tap
  std::vector<int64_t> start;  // [next + 1]: where each phase's taps begin in `taps`; start[next] = taps.size()
  std::vector<float> taps;     // the phases' kept taps, one run after another
};

// Throws kInvalidInput (op "resample") unless options' sinc fields are valid (ResampleOptions).
void check_sinc_options(const ResampleOptions& options);

// The filter of in_rate -> out_rate (both positive, different). The taps are computed in double and
// rounded to float32; a tap is kept where |t| < lowpass_filter_width (t: torchaudio's scaled time),
// torchaudio's taps elsewhere being sin(pi w) / (pi w) * window(w) at w = +-width, below 1e-12 in float32.
// Throws kLimitExceeded when the filter would pass Limits{}.max_bytes, kInvalidInput when a window value
// overflows (a huge beta).
SincFilter make_sinc_filter(int in_rate, int out_rate, const ResampleOptions& options);

// torchaudio.functional.resample(in, in_rate, out_rate, ...) for the contiguous float32 `in` of
// `channels` x `frames` (options.channels_first: [channels, frames], else [frames, channels]), rates
// different: ceil(frames * out_rate / in_rate) frames in the same layout, one thread.
Tensor sinc_resample(const Tensor& in, int64_t channels, int64_t frames, int in_rate, int out_rate,
                     const ResampleOptions& options);

}  // namespace loom::audio::detail
