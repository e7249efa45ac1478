#include "source_py.h"

#include <nanobind/stl/string.h>

#include <string>

#include "loom/codec/error.h"
#include "tensor_py.h"

namespace loom::python {

std::optional<std::filesystem::path> path_from_python(nb::handle input) {
  if (!nb::isinstance<nb::str>(input) && !nb::hasattr(input, "__fspath__")) return std::nullopt;
  // os.fsencode gives the bytes of the name as the file system has them (non-UTF-8 names included).
  nb::object encoded = nb::module_::import_("os").attr("fsencode")(input);
  return std::filesystem::path(std::string(PyBytes_AsString(encoded.ptr()), PyBytes_Size(encoded.ptr())));
}

EncodedInput encoded_from_python(nb::handle input, const char* name) {
  if (auto path = path_from_python(input)) {
    nb::gil_scoped_release unlocked;
    return {ByteSource::from_file(*path), {}};
  }
  Tensor bytes = from_python(input, name);
  if (bytes.dtype() != DType::kUInt8 || bytes.ndim() != 1 || !bytes.is_contiguous()) {
    throw Error(ErrorCode::kInvalidInput, name,
                "encoded data must be a 1-D contiguous uint8 tensor (or bytes); got a " +
                    std::string(to_string(bytes.dtype())) + " tensor with " + std::to_string(bytes.ndim()) +
                    " dimensions");
  }
  auto span = std::span<const uint8_t>(static_cast<const uint8_t*>(bytes.data()), bytes.nbytes());
  return {ByteSource::from_memory(span, name), std::move(bytes)};
}

}  // namespace loom::python
