#include "errors.h"

#include <array>

#include "loom/codec/error.h"

namespace loom::python {
namespace {

namespace nb = nanobind;

// Indexed by ErrorCode; created once at import and alive for the life of the process.
std::array<PyObject*, 5> error_classes{};

PyObject* new_class(nb::module_& m, const char* name, const char* doc, PyObject* bases) {
  const std::string qualified = std::string("loom.") + name;
  PyObject* cls = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases, nullptr);
  if (cls == nullptr) throw nb::python_error();
  m.attr(name) = nb::handle(cls);
  return cls;
}

void raise(const Error& error) {
  PyObject* cls = error_classes[static_cast<size_t>(error.code())];
  nb::object exception = nb::steal(PyObject_CallOneArg(cls, nb::str(error.what()).ptr()));
  if (!exception.is_valid()) return;  // the call set its own Python error
  exception.attr("code") = nb::str(to_string(error.code()).data(), to_string(error.code()).size());
  exception.attr("input") = nb::str(error.input().c_str());
  exception.attr("message") = nb::str(error.message().c_str());
  PyErr_SetObject(cls, exception.ptr());
}

}  // namespace

void bind_errors(nb::module_& m) {
  PyObject* base =
      new_class(m, "Error", "Every loom error: a RuntimeError with .code, .input and .message.", PyExc_RuntimeError);
  auto with = [base](PyObject* other) { return nb::make_tuple(nb::handle(base), nb::handle(other)); };
  error_classes[static_cast<size_t>(ErrorCode::kInvalidInput)] = new_class(
      m, "InvalidInputError", "The input is malformed, truncated or inconsistent.", with(PyExc_ValueError).ptr());
  error_classes[static_cast<size_t>(ErrorCode::kUnsupported)] =
      new_class(m, "UnsupportedError", "Well-formed input, but a format or feature loom does not handle.",
                with(PyExc_ValueError).ptr());
  error_classes[static_cast<size_t>(ErrorCode::kIo)] =
      new_class(m, "IoError", "The operating system failed to read or write.", with(PyExc_OSError).ptr());
  error_classes[static_cast<size_t>(ErrorCode::kLimitExceeded)] = new_class(
      m, "LimitExceededError", "The input asks for more than a resource limit allows.", with(PyExc_ValueError).ptr());
  error_classes[static_cast<size_t>(ErrorCode::kInternal)] = new_class(
      m, "InternalError", "A broken invariant inside loom: a bug, please report it.", with(PyExc_RuntimeError).ptr());

  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const Error& error) {
      raise(error);
    }
  });
}

}  // namespace loom::python
