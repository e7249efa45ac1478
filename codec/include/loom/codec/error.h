// loom::Error — the one error type of the library.
//
// Bad input is an expected event: every function that reads or writes media throws loom::Error with a
// code and a message that names the input (a path, or a caller-given name for memory buffers) and what
// was wrong. Nothing else is thrown for bad input; std::bad_alloc may still escape on real exhaustion.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include "loom/codec/api.h"

LOOM_API_BEGIN

namespace loom {

enum class ErrorCode {
  kInvalidInput,   // the input is malformed, truncated or inconsistent
  kUnsupported,    // well-formed, but a format or feature loom does not handle
  kIo,             // the operating system failed to read or write
  kLimitExceeded,  // the input asks for more than a resource limit allows (see Limits)
  kInternal,       // a broken invariant inside loom: a bug, please report it
};

// "invalid_input", "unsupported", "io", "limit_exceeded" or "internal".
std::string_view to_string(ErrorCode code);

class Error : public std::runtime_error {
 public:
  // what() reads "<input>: <message>" (or just "<message>" when input is empty).
  Error(ErrorCode code, std::string input, std::string message);

  ErrorCode code() const noexcept { return code_; }
  // The path or name of the input the error is about; may be empty.
  const std::string& input() const noexcept { return input_; }
  // The problem, without the input name.
  const std::string& message() const noexcept { return message_; }

 private:
  ErrorCode code_;
  std::string input_;
  std::string message_;
};

}  // namespace loom

LOOM_API_END
