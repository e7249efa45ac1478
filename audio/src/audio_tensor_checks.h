// Private: argument checks shared by the functional and spectral ops (functional.cc, spectral.cc).
#pragma once

#include <cmath>
#include <string>

#include "loom/codec/error.h"
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

}  // namespace loom::audio::detail
