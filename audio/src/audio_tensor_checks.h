// Private: argument checks shared by the functional, spectral and effect ops (functional.cc, spectral.cc,
// effects.cc, resample.cc).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "loom/codec/error.h"
#include "loom/codec/limits.h"
#include "loom/codec/tensor.h"

namespace loom::audio::detail {

[[noreturn]] inline void invalid(const char* op, const std::string& message) {
  throw Error(ErrorCode::kInvalidInput, op, message);
}

// Throws unless `samples` is a defined CPU float32 [channels, frames] tensor.
inline void check_samples(const Tensor& samples, const char* op) {
  if (!samples.defined()) invalid(op, "samples tensor is undefined");
  if (!samples.device().is_cpu()) throw Error(ErrorCode::kUnsupported, op, "samples must be a CPU tensor");
  if (samples.dtype() != DType::kFloat32)
    invalid(op, "samples must be float32, got " + std::string(to_string(samples.dtype())));
  if (samples.ndim() != 2)
    invalid(op, "samples must be 2-D [channels, frames], got " + std::to_string(samples.ndim()) + "-D");
}

// check_samples, then a contiguous view of `samples` (a copy only when it is strided).
inline Tensor checked_samples(const Tensor& samples, const char* op) {
  check_samples(samples, op);
  return samples.contiguous();
}

inline void check_finite(const char* op, const char* name, double value) {
  if (!std::isfinite(value)) invalid(op, std::string(name) + " must be finite");
}

struct ChannelsFrames {
  int64_t channels = 0;
  int64_t frames = 0;
};

// The input of apply_effects and resample: a defined CPU float32 2-D tensor ([channels, frames] when
// channels_first, else [frames, channels]) with at least one channel and one frame, within
// Limits{}.max_audio_channels, at a positive rate within Limits{}.max_sample_rate. Errors name "samples".
inline ChannelsFrames check_effect_input(const Tensor& samples, int sample_rate, bool channels_first) {
  if (!samples.defined()) throw Error(ErrorCode::kInvalidInput, "samples", "undefined tensor");
  if (!samples.device().is_cpu()) throw Error(ErrorCode::kInvalidInput, "samples", "must be on the CPU");
  if (samples.dtype() != DType::kFloat32) {
    throw Error(ErrorCode::kInvalidInput, "samples", "must be float32, not " + std::string(to_string(samples.dtype())));
  }
  if (samples.ndim() != 2) {
    throw Error(ErrorCode::kInvalidInput, "samples",
                std::string("must be 2-D ") + (channels_first ? "[channels, frames]" : "[frames, channels]") +
                    ", not " + std::to_string(samples.ndim()) + "-D");
  }
  const int64_t channels = samples.size(channels_first ? 0 : 1);
  const int64_t frames = samples.size(channels_first ? 1 : 0);
  const Limits limits;
  if (channels == 0 || frames == 0) {
    throw Error(ErrorCode::kInvalidInput, "samples",
                "is empty (" + std::to_string(channels) + " channels, " + std::to_string(frames) + " frames)");
  }
  if (channels > limits.max_audio_channels) {
    throw Error(
        ErrorCode::kLimitExceeded, "samples",
        std::to_string(channels) + " channels, more than the limit of " + std::to_string(limits.max_audio_channels));
  }
  if (sample_rate <= 0) {
    throw Error(ErrorCode::kInvalidInput, "samples",
                "sample rate must be positive, not " + std::to_string(sample_rate));
  }
  if (sample_rate > limits.max_sample_rate) {
    throw Error(ErrorCode::kLimitExceeded, "samples",
                "sample rate " + std::to_string(sample_rate) + " Hz is above the limit of " +
                    std::to_string(limits.max_sample_rate));
  }
  return {channels, frames};
}

}  // namespace loom::audio::detail
