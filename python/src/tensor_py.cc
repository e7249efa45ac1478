#include "tensor_py.h"

#include <dlpack/dlpack.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "loom/accel/cuda.h"
#include "loom/accel/device_memory.h"
#include "loom/accel/stream.h"
#include "loom/codec/error.h"

namespace loom::python {
namespace {

using namespace nb::literals;

// ---- DLPack 1.x ---------------------------------------------------------------------------------
// Debian's dlpack.h is 0.6, which has no versioned struct; this is DLPack 1.0's, whose DLTensor is
// the same as 0.6's.
struct DLPackVersion1 {
  uint32_t major;
  uint32_t minor;
};
struct DLManagedTensorVersioned1 {
  DLPackVersion1 version;
  void* manager_ctx;
  void (*deleter)(DLManagedTensorVersioned1* self);
  uint64_t flags;
  DLTensor dl_tensor;
};
constexpr uint64_t kDLPackFlagReadOnly = 1u << 0;
constexpr uint64_t kDLPackFlagIsCopied = 1u << 1;

constexpr const char* kLegacyName = "dltensor";
constexpr const char* kVersionedName = "dltensor_versioned";
constexpr const char* kLegacyUsedName = "used_dltensor";
constexpr const char* kVersionedUsedName = "used_dltensor_versioned";

// A versioned struct around loom's legacy export: it owns the legacy one and releases it with itself.
DLManagedTensorVersioned1* make_versioned(DLManagedTensor* legacy, uint64_t flags) {
  auto* versioned = new DLManagedTensorVersioned1{{1, 0}, legacy, nullptr, flags, legacy->dl_tensor};
  versioned->deleter = [](DLManagedTensorVersioned1* self) {
    auto* inner = static_cast<DLManagedTensor*>(self->manager_ctx);
    if (inner->deleter) inner->deleter(inner);
    delete self;
  };
  return versioned;
}

// A capsule nobody consumed still owns its tensor; one renamed "used_..." belongs to its consumer.
void legacy_capsule_destructor(PyObject* capsule) {
  if (!PyCapsule_IsValid(capsule, kLegacyName)) return;
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kLegacyName));
  if (managed->deleter) managed->deleter(managed);
}
void versioned_capsule_destructor(PyObject* capsule) {
  if (!PyCapsule_IsValid(capsule, kVersionedName)) return;
  auto* managed = static_cast<DLManagedTensorVersioned1*>(PyCapsule_GetPointer(capsule, kVersionedName));
  if (managed->deleter) managed->deleter(managed);
}

std::pair<int, int> dlpack_device(const Tensor& tensor) {
  const Device device = tensor.device();
  return device.is_cpu() ? std::pair{static_cast<int>(kDLCPU), 0} : std::pair{static_cast<int>(kDLCUDA), device.index};
}

[[noreturn]] void buffer_error(const std::string& message) {
  PyErr_SetString(PyExc_BufferError, message.c_str());
  throw nb::python_error();
}

// A CUDA tensor's consumer gets it on its own stream (the array API's `stream`: None and 1 are CUDA's
// legacy default stream, 2 the per-thread default stream, -1 asks for no synchronisation, any other
// integer is a cudaStream_t; 0 is refused as ambiguous). loom's work on the tensor was queued on the
// calling thread's current stream (accel::current_stream), so the consumer's stream waits for an event
// recorded there, and the caching allocator keeps the memory until the consumer's stream has passed the
// point where the tensor is freed.
void ready_on_consumer_stream(const Tensor& tensor, nb::handle stream) {
  const long long s = stream.is_none() ? 1 : nb::cast<long long>(stream);
  if (s == -1) return;
  if (s == 0) buffer_error("__dlpack__: stream=0 is ambiguous for CUDA (use 1 for the legacy default stream)");
  void* handle = s == 1 ? nullptr : reinterpret_cast<void*>(static_cast<intptr_t>(s));  // 2: cudaStreamPerThread
  const int device = tensor.device().index;
  const accel::Stream consumer = accel::Stream::wrap(handle, device);
  nb::gil_scoped_release unlocked;
  const accel::Stream producer = accel::current_stream(device);
  if (consumer.handle() != producer.handle()) {
    accel::Event done = accel::Event::create(device);
    done.record(producer);
    consumer.wait(done);
  }
  accel::record_stream(tensor, consumer);
}

// tensor.__dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None), as the array API
// standard (2023.12) says: a legacy "dltensor" capsule unless max_version asks for 1.x, then a
// "dltensor_versioned" one. `stream` must be None (or -1) for a CPU tensor; for a CUDA tensor see
// ready_on_consumer_stream. copy=True exports a copy (on the tensor's device).
nb::object dlpack(const Tensor& tensor, nb::handle stream, nb::handle max_version, nb::handle dl_device,
                  nb::handle copy) {
  const auto own_device = dlpack_device(tensor);
  if (!stream.is_none() && tensor.device().is_cpu() && nb::cast<long long>(stream) != -1)
    buffer_error("__dlpack__: stream must be None for a CPU tensor");
  if (!dl_device.is_none()) {
    const auto wanted = nb::cast<std::pair<int, int>>(dl_device);
    if (wanted != own_device)
      buffer_error("__dlpack__: loom exports a tensor on its own device only (no cross-device copy)");
  }
  const bool copied = !copy.is_none() && nb::cast<bool>(copy);
  Tensor exported = tensor;
  if (copied) {
    nb::gil_scoped_release unlocked;
    exported = tensor.device().is_cpu() ? tensor.clone() : accel::to_device(tensor, tensor.device());
  }
  if (!tensor.device().is_cpu()) ready_on_consumer_stream(exported, stream);
  DLManagedTensor* legacy = exported.to_dlpack();
  const bool versioned = !max_version.is_none() && nb::cast<std::pair<int, int>>(max_version).first >= 1;
  if (!versioned) {
    PyObject* capsule = PyCapsule_New(legacy, kLegacyName, legacy_capsule_destructor);
    if (capsule == nullptr) {
      legacy->deleter(legacy);
      throw nb::python_error();
    }
    return nb::steal(capsule);
  }
  DLManagedTensorVersioned1* managed = make_versioned(legacy, copied ? kDLPackFlagIsCopied : 0);
  PyObject* capsule = PyCapsule_New(managed, kVersionedName, versioned_capsule_destructor);
  if (capsule == nullptr) {
    managed->deleter(managed);
    throw nb::python_error();
  }
  return nb::steal(capsule);
}

// ---- The buffer protocol -------------------------------------------------------------------------
const char* buffer_format(DType dtype) {
  switch (dtype) {
    case DType::kUInt8: return "B";
    case DType::kInt16: return "h";
    case DType::kUInt16: return "H";
    case DType::kInt32: return "i";
    case DType::kInt64: return "q";
    case DType::kFloat16: return "e";
    case DType::kFloat32: return "f";
    case DType::kFloat64: return "d";
    case DType::kBFloat16: return nullptr;  // the struct module has no bfloat16
  }
  return nullptr;
}

struct BufferShape {
  Py_ssize_t shape[kMaxDims];
  Py_ssize_t strides[kMaxDims];
};

int get_buffer(PyObject* self, Py_buffer* view, int flags) noexcept {
  const Tensor& tensor = *nb::inst_ptr<Tensor>(self);
  const char* format = buffer_format(tensor.dtype());
  const char* problem = nullptr;
  if (!tensor.device().is_cpu())
    problem = "a CUDA tensor has no buffer; use DLPack";
  else if (format == nullptr)
    problem = "a bfloat16 tensor has no buffer format; use DLPack";
  else if (!tensor.is_contiguous() && (flags & PyBUF_STRIDES) != PyBUF_STRIDES)
    problem = "the tensor is not contiguous and the consumer did not ask for strides";
  else if (!tensor.is_contiguous() &&
           ((flags & PyBUF_C_CONTIGUOUS) == PyBUF_C_CONTIGUOUS || (flags & PyBUF_F_CONTIGUOUS) == PyBUF_F_CONTIGUOUS ||
            (flags & PyBUF_ANY_CONTIGUOUS) == PyBUF_ANY_CONTIGUOUS))
    problem = "the consumer asked for a contiguous buffer; the tensor is a strided view";
  if (problem != nullptr) {
    PyErr_SetString(PyExc_BufferError, problem);
    view->obj = nullptr;
    return -1;
  }
  auto* dims = new BufferShape;
  const auto itemsize = static_cast<Py_ssize_t>(element_size(tensor.dtype()));
  for (int d = 0; d < tensor.ndim(); ++d) {
    dims->shape[d] = static_cast<Py_ssize_t>(tensor.size(d));
    dims->strides[d] = static_cast<Py_ssize_t>(tensor.stride(d)) * itemsize;
  }
  view->buf = tensor.data();
  view->obj = Py_NewRef(self);
  view->len = static_cast<Py_ssize_t>(tensor.nbytes());
  view->readonly = 0;
  view->itemsize = itemsize;
  view->format = (flags & PyBUF_FORMAT) ? const_cast<char*>(format) : nullptr;
  view->ndim = tensor.ndim();
  view->shape = (flags & PyBUF_ND) == PyBUF_ND ? dims->shape : nullptr;
  view->strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES ? dims->strides : nullptr;
  view->suboffsets = nullptr;
  view->internal = dims;
  return 0;
}

void release_buffer(PyObject*, Py_buffer* view) noexcept {
  delete static_cast<BufferShape*>(view->internal);
}

PyType_Slot tensor_slots[] = {{Py_bf_getbuffer, reinterpret_cast<void*>(get_buffer)},
                              {Py_bf_releasebuffer, reinterpret_cast<void*>(release_buffer)},
                              {0, nullptr}};

// ---- Imports ------------------------------------------------------------------------------------
// Releases what a view of foreign memory held once the last loom view is gone: this may run on a loader
// thread, so it takes the GIL first (unless the interpreter is already gone, when leaking is all that is
// safe).
struct PythonOwner {
  PyObject* object = nullptr;
  Py_buffer buffer{};
  bool has_buffer = false;

  static void release(PythonOwner* owner) {
    if (Py_IsInitialized()) {
      PyGILState_STATE state = PyGILState_Ensure();
      if (owner->has_buffer) PyBuffer_Release(&owner->buffer);
      Py_XDECREF(owner->object);
      PyGILState_Release(state);
    }
    delete owner;
  }
};

DType dtype_from_buffer(const Py_buffer& view, const char* what) {
  std::string_view format = view.format ? view.format : "B";
  if (!format.empty() && (format[0] == '@' || format[0] == '=' || format[0] == '<')) format.remove_prefix(1);
  if (format.size() == 1) {
    const auto size = view.itemsize;
    switch (format[0]) {
      case 'B':
      case 'c': return DType::kUInt8;
      case 'h': return DType::kInt16;
      case 'H': return DType::kUInt16;
      case 'i':
      case 'l':
      case 'q':
        if (size == 4) return DType::kInt32;
        if (size == 8) return DType::kInt64;
        break;
      case 'e': return DType::kFloat16;
      case 'f': return DType::kFloat32;
      case 'd': return DType::kFloat64;
      default: break;
    }
  }
  throw Error(ErrorCode::kUnsupported, what, "buffer format '" + std::string(format) + "' is not a loom dtype");
}

Tensor from_buffer(nb::handle object, const char* what) {
  auto owner = std::make_unique<PythonOwner>();
  if (PyObject_GetBuffer(object.ptr(), &owner->buffer, PyBUF_RECORDS_RO) != 0) throw nb::python_error();
  owner->has_buffer = true;
  const Py_buffer& view = owner->buffer;
  auto release = [](PythonOwner* o) { PythonOwner::release(o); };
  std::unique_ptr<PythonOwner, decltype(release)> held(owner.release(), release);
  const DType dtype = dtype_from_buffer(view, what);
  if (view.ndim > kMaxDims) throw Error(ErrorCode::kUnsupported, what, "more than 5 dimensions");
  int64_t shape[kMaxDims] = {1};
  int64_t strides[kMaxDims] = {1};
  const int ndim = view.ndim == 0 && view.shape == nullptr ? 1 : view.ndim;
  if (view.ndim == 0) shape[0] = view.len / view.itemsize;
  for (int d = 0; d < view.ndim; ++d) {
    shape[d] = view.shape[d];
    if (view.strides[d] % view.itemsize != 0)
      throw Error(ErrorCode::kUnsupported, what, "buffer strides are not whole elements");
    strides[d] = view.strides[d] / view.itemsize;
  }
  PythonOwner* raw = held.release();
  return Tensor::from_blob(view.buf, std::span<const int64_t>(shape, ndim), std::span<const int64_t>(strides, ndim),
                           dtype, Device::cpu(), [raw](void*) { PythonOwner::release(raw); });
}

// Takes the tensor out of a capsule from __dlpack__ (legacy or versioned) and marks the capsule used.
Tensor from_capsule(nb::handle capsule, const char* what) {
  if (PyCapsule_IsValid(capsule.ptr(), kVersionedName)) {
    auto* managed = static_cast<DLManagedTensorVersioned1*>(PyCapsule_GetPointer(capsule.ptr(), kVersionedName));
    if (managed->version.major != 1) {
      throw Error(ErrorCode::kUnsupported, what,
                  "DLPack major version " + std::to_string(managed->version.major) + " (loom reads 1)");
    }
    PyCapsule_SetName(capsule.ptr(), kVersionedUsedName);
    // The legacy struct carries the same DLTensor; its deleter releases the versioned one.
    auto* legacy = new DLManagedTensor{managed->dl_tensor, managed, [](DLManagedTensor* self) {
                                         auto* inner = static_cast<DLManagedTensorVersioned1*>(self->manager_ctx);
                                         if (inner->deleter) inner->deleter(inner);
                                         delete self;
                                       }};
    return Tensor::from_dlpack(legacy);
  }
  if (PyCapsule_IsValid(capsule.ptr(), kLegacyName)) {
    auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), kLegacyName));
    PyCapsule_SetName(capsule.ptr(), kLegacyUsedName);
    return Tensor::from_dlpack(managed);
  }
  throw nb::type_error((std::string(what) + ": __dlpack__ did not return a DLPack capsule").c_str());
}

// The `stream` loom passes to a producer on a CUDA device: loom's current stream there (1 for CUDA's
// legacy default stream, as the array API numbers it), which the producer makes wait for its work.
// None for every other device (a CPU producer takes no stream).
nb::object consumer_stream(nb::handle object) {
  if (!nb::hasattr(object, "__dlpack_device__")) return nb::none();
  const auto [type, index] = nb::cast<std::pair<int, int>>(object.attr("__dlpack_device__")());
  if (type != kDLCUDA) return nb::none();
  void* handle = accel::current_stream(index).handle();
  return nb::int_(handle == nullptr ? intptr_t{1} : reinterpret_cast<intptr_t>(handle));
}

Tensor from_dlpack_producer(nb::handle object, const char* what) {
  nb::object method = nb::getattr(object, "__dlpack__");
  const nb::object stream = consumer_stream(object);
  nb::object capsule;
  try {
    capsule = stream.is_none() ? method("max_version"_a = nb::make_tuple(1, 0))
                               : method("stream"_a = stream, "max_version"_a = nb::make_tuple(1, 0));
  } catch (nb::python_error& e) {
    if (!e.matches(PyExc_TypeError)) throw;
    // A producer from before DLPack 1.0 (torch 1.13, numpy 1.x).
    capsule = stream.is_none() ? method() : method("stream"_a = stream);
  }
  return from_capsule(capsule, what);
}

// ---- Output types -------------------------------------------------------------------------------
enum class OutputType { kAuto, kTorch, kNumpy, kLoom };

OutputType parse_output_type(std::string_view name) {
  if (name == "auto") return OutputType::kAuto;
  if (name == "torch") return OutputType::kTorch;
  if (name == "numpy") return OutputType::kNumpy;
  if (name == "loom") return OutputType::kLoom;
  throw nb::value_error("output type must be 'auto', 'torch', 'numpy' or 'loom'");
}

OutputType initial_output_type() {
  const char* env = std::getenv("LOOM_OUTPUT_TYPE");
  return env && *env ? parse_output_type(env) : OutputType::kAuto;
}

OutputType& requested_output_type() {
  static OutputType type = initial_output_type();
  return type;
}

// The type "auto" stands for, decided once: torch if it can be imported.
OutputType resolved_output_type() {
  const OutputType requested = requested_output_type();
  if (requested != OutputType::kAuto) return requested;
  static const OutputType automatic = [] {
    nb::object spec = nb::module_::import_("importlib.util").attr("find_spec")("torch");
    return spec.is_none() ? OutputType::kNumpy : OutputType::kTorch;
  }();
  return automatic;
}

// Module functions looked up once and kept for the life of the process (never released, so that
// nothing runs after the interpreter has finalised).
nb::handle lookup(const char* module, const char* name) {
  nb::object found = nb::module_::import_(module).attr(name);
  return found.release();
}

// A torch without uint16 (before 2.3) gets 16-bit images as int32, the values unchanged, as
// torchvision's decode_png gave them then: the one case in which a crossing copies.
Tensor widen_to_int32(const Tensor& tensor) {
  const Tensor source = tensor.contiguous();
  Tensor out = Tensor::empty(source.shape(), DType::kInt32);
  const auto* from = source.data<uint16_t>();
  auto* to = out.data<int32_t>();
  for (int64_t i = 0, n = source.numel(); i < n; ++i) to[i] = from[i];
  return out;
}

}  // namespace

nb::object to_python(Tensor tensor) {
  nb::object wrapped = nb::cast(std::move(tensor), nb::rv_policy::move);
  switch (resolved_output_type()) {
    case OutputType::kTorch: {
      static nb::handle from_dlpack = lookup("torch", "from_dlpack");
      static const bool torch_has_uint16 = nb::hasattr(nb::module_::import_("torch"), "uint16");
      if (!torch_has_uint16 && nb::cast<const Tensor&>(wrapped).dtype() == DType::kUInt16) {
        Tensor widened = widen_to_int32(nb::cast<const Tensor&>(wrapped));
        return from_dlpack(nb::cast(std::move(widened), nb::rv_policy::move));
      }
      return from_dlpack(wrapped);
    }
    case OutputType::kNumpy: {
      // numpy holds host memory only: a CUDA tensor stays a loom.Tensor (a DLPack producer).
      if (!nb::cast<const Tensor&>(wrapped).device().is_cpu()) return wrapped;
      static nb::handle asarray = lookup("numpy", "asarray");
      return asarray(wrapped);
    }
    case OutputType::kAuto:
    case OutputType::kLoom: break;
  }
  return wrapped;
}

Tensor from_python(nb::handle object, const char* what) {
  if (nb::isinstance<Tensor>(object)) return nb::cast<Tensor>(object);
  if (nb::hasattr(object, "__dlpack__")) {
    try {
      return from_dlpack_producer(object, what);
    } catch (nb::python_error& e) {
      // numpy 1.x refuses to export read-only arrays over DLPack; their buffer still works.
      if (!e.matches(PyExc_BufferError) || !PyObject_CheckBuffer(object.ptr())) throw;
    }
  }
  if (PyObject_CheckBuffer(object.ptr())) return from_buffer(object, what);
  throw nb::type_error(
      (std::string(what) + ": expected a tensor, an array or a buffer, got " + nb::type_name(object.type()).c_str())
          .c_str());
}

void bind_tensor(nb::module_& m) {
  nb::class_<Tensor>(m, "Tensor", nb::type_slots(tensor_slots),
                     "A loom tensor: a view of CPU (or CUDA) memory that crosses into torch, numpy and any\n"
                     "other DLPack consumer without a copy (torch.from_dlpack, numpy.from_dlpack or\n"
                     "numpy.asarray).")
      .def_prop_ro("shape",
                   [](const Tensor& t) {
                     nb::list dims;
                     for (int64_t d : t.shape()) dims.append(d);
                     return nb::tuple(dims);
                   })
      .def_prop_ro(
          "strides",
          [](const Tensor& t) {
            nb::list steps;
            for (int64_t s : t.strides()) steps.append(s);
            return nb::tuple(steps);
          },
          "Strides in elements, as torch.Tensor.stride().")
      .def_prop_ro(
          "dtype", [](const Tensor& t) { return std::string(to_string(t.dtype())); },
          "'uint8', 'int16', 'uint16', 'int32', 'int64', 'float16', 'bfloat16', 'float32' or 'float64'.")
      .def_prop_ro("device",
                   [](const Tensor& t) {
                     return t.device().is_cpu() ? std::string("cpu") : "cuda:" + std::to_string(t.device().index);
                   })
      .def_prop_ro("ndim", &Tensor::ndim)
      .def_prop_ro("nbytes", &Tensor::nbytes)
      .def_prop_ro(
          "data_ptr", [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.data()); },
          "Address of the first element.")
      .def("is_contiguous", &Tensor::is_contiguous)
      .def("__len__",
           [](const Tensor& t) {
             if (t.ndim() == 0) throw nb::type_error("len() of a 0-d tensor");
             return t.size(0);
           })
      .def("__dlpack__", &dlpack, nb::kw_only(), "stream"_a = nb::none(), "max_version"_a = nb::none(),
           "dl_device"_a = nb::none(), "copy"_a = nb::none(),
           "A DLPack capsule sharing this tensor's memory: the legacy 'dltensor' one unless\n"
           "max_version asks for (1, x), then a versioned one. copy=True exports a copy.")
      .def("__dlpack_device__", &dlpack_device)
      .def("__repr__", [](const Tensor& t) {
        std::string shape;
        for (int64_t d : t.shape()) shape += (shape.empty() ? "" : ", ") + std::to_string(d);
        return "loom.Tensor(shape=(" + shape + (t.ndim() == 1 ? ",)" : ")") +
               ", dtype=" + std::string(to_string(t.dtype())) + ", device=" + (t.device().is_cpu() ? "cpu" : "cuda") +
               ")";
      });

  m.def(
      "from_dlpack", [](nb::handle object) { return from_python(object, "from_dlpack"); }, "x"_a,
      "A loom.Tensor sharing the memory of x (a DLPack producer or a buffer), without a copy.");
  m.def(
      "set_output_type", [](const std::string& name) { requested_output_type() = parse_output_type(name); }, "type"_a,
      "What loom functions return: 'torch', 'numpy', 'loom' (loom.Tensor) or 'auto' (the default:\n"
      "torch when it can be imported, else numpy). The environment variable LOOM_OUTPUT_TYPE sets\n"
      "the initial value.");
  m.def(
      "get_output_type",
      [] {
        switch (resolved_output_type()) {
          case OutputType::kTorch: return "torch";
          case OutputType::kNumpy: return "numpy";
          case OutputType::kAuto:
          case OutputType::kLoom: break;
        }
        return "loom";
      },
      "The output type in effect ('torch', 'numpy' or 'loom'; 'auto' resolved).");
}

}  // namespace loom::python
