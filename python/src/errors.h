// Python exceptions for loom::Error: one class per ErrorCode under loom.Error, the message unchanged.
//
//   loom.Error(RuntimeError)                  every loom error (torchvision raises RuntimeError too)
//     InvalidInputError(Error, ValueError)    kInvalidInput: malformed, truncated, inconsistent input
//     UnsupportedError(Error, ValueError)     kUnsupported: well-formed, but not handled by loom
//     IoError(Error, OSError)                 kIo: the operating system failed to read or write
//     LimitExceededError(Error, ValueError)   kLimitExceeded: more than a resource limit allows
//     InternalError(Error, RuntimeError)      kInternal: a loom bug
//
// Each carries .code ('invalid_input', ...), .input (the file or name) and .message (the problem).
#pragma once

#include <nanobind/nanobind.h>

namespace loom::python {

// Creates the classes in `m` and registers the translator for loom::Error.
void bind_errors(nanobind::module_& m);

}  // namespace loom::python
