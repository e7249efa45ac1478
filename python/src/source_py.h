// Encoded inputs from Python: what a decoder accepts as its `source`.
//
// Thread safety: needs the GIL.
#pragma once

#include <nanobind/nanobind.h>

#include <filesystem>
#include <optional>

#include "loom/codec/byte_source.h"
#include "loom/codec/tensor.h"

namespace loom::python {

namespace nb = nanobind;

// The path in `input` when it is a str or an os.PathLike (bytes paths included), else nothing.
std::optional<std::filesystem::path> path_from_python(nb::handle input);

// The bytes of `input`: a file (str or os.PathLike; read when used), or memory (bytes, bytearray,
// memoryview, or a 1-D uint8 tensor as torchvision.io.read_file returns). Memory is borrowed: `keep`
// holds the Python owner alive, and the source is valid while `keep` lives. `name` names memory in
// messages. Throws TypeError for anything else.
struct EncodedInput {
  ByteSource source;
  Tensor keep;
};
EncodedInput encoded_from_python(nb::handle input, const char* name);

}  // namespace loom::python
