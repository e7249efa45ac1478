#include "loom/codec/error.h"

#include <fmt/format.h>

#include <utility>

namespace loom {

std::string_view to_string(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidInput: return "invalid_input";
    case ErrorCode::kUnsupported: return "unsupported";
    case ErrorCode::kIo: return "io";
    case ErrorCode::kLimitExceeded: return "limit_exceeded";
    case ErrorCode::kInternal: return "internal";
  }
  return "internal";
}

Error::Error(ErrorCode code, std::string input, std::string message)
    : std::runtime_error(input.empty() ? message : fmt::format("{}: {}", input, message)),
      code_(code),
      input_(std::move(input)),
      message_(std::move(message)) {}

}  // namespace loom
