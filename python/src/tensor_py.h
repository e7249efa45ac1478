// loom.Tensor, and the crossings between Python objects and loom::Tensor. Nothing here copies: every
// crossing shares the memory, and keeps its owner alive for as long as the other side needs it.
//
// Thread safety: every function here needs the GIL.
#pragma once

#include <nanobind/nanobind.h>

#include "loom/codec/tensor.h"

namespace loom::python {

namespace nb = nanobind;

// loom.Tensor (DLPack export, legacy and versioned, and the buffer protocol), loom.from_dlpack and
// loom.set_output_type / get_output_type.
void bind_tensor(nb::module_& m);

// What a loom function returns to Python for `tensor`: a torch.Tensor (through torch.from_dlpack)
// when the output type is "torch", a numpy array (through the buffer protocol) when it is "numpy", the
// loom.Tensor itself when it is "loom". The default, "auto", is torch when it is importable, else numpy.
nb::object to_python(Tensor tensor);

// A loom::Tensor over the memory of `object`: a loom.Tensor, anything with __dlpack__ (torch, numpy,
// cupy, jax; the versioned protocol when the producer has it), or a buffer (bytes, bytearray,
// memoryview, array.array, a read-only numpy array). The Python owner stays alive until the last view
// of the result is gone, even when that happens on a thread without the GIL. Throws TypeError for
// anything else; `what` names the argument in that message.
Tensor from_python(nb::handle object, const char* what = "tensor");

}  // namespace loom::python
