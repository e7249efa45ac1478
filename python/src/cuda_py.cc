// loom._loom.cuda: CUDA devices, copies between devices, and loom's caching allocators (after torch.cuda).
// Every function works without CUDA or a GPU: device_count() is then 0 and a copy to a CUDA device
// raises loom.UnsupportedError.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <string>

#include "bindings.h"
#include "loom/accel/cuda.h"
#include "loom/accel/device_memory.h"
#include "loom/accel/stream.h"
#include "names_py.h"
#include "tensor_py.h"

namespace loom::python {
namespace {

namespace nb = nanobind;
using namespace nb::literals;

nb::dict stats_dict(const accel::MemoryStats& s) {
  nb::dict d;
  d["in_use_bytes"] = s.in_use_bytes;
  d["cached_bytes"] = s.cached_bytes;
  d["allocations"] = s.allocations;
  d["reuses"] = s.reuses;
  return d;
}

}  // namespace

void bind_cuda(nb::module_& m) {
  m.def("is_built", &accel::built_with_cuda, "Whether this loom was built with CUDA.");
  m.def("device_count", &accel::cuda_device_count, "Usable CUDA devices (0 without CUDA, a driver or a GPU).");
  m.def(
      "is_available", [] { return accel::cuda_device_count() > 0; }, "Whether a CUDA device is usable.");
  m.def(
      "to_device",
      [](nb::handle x, const std::string& device) {
        const Tensor in = from_python(x, "loom.cuda.to_device");
        const Device to = device_named(device);
        Tensor out;
        {
          nb::gil_scoped_release unlocked;
          out = accel::to_device(in, to);
        }
        return to_python(std::move(out));
      },
      "x"_a, "device"_a,
      "A contiguous copy of x on `device` ('cpu', 'cuda', 'cuda:N'), finished when the call returns.\n"
      "Device memory comes from loom's caching allocator.");
  m.def(
      "memory_stats", [](int device) { return stats_dict(accel::device_memory_stats(device)); }, "device"_a = 0,
      "loom's device memory on `device`: in_use_bytes, cached_bytes, allocations, reuses.");
  m.def(
      "pinned_memory_stats", [] { return stats_dict(accel::pinned_memory_stats()); },
      "loom's pinned host memory: in_use_bytes, cached_bytes, allocations, reuses.");
  m.def(
      "empty_cache",
      [] {
        nb::gil_scoped_release unlocked;
        return accel::release_cached_device_memory() + accel::release_cached_pinned_memory();
      },
      "Frees the device and pinned blocks loom keeps for reuse (torch.cuda.empty_cache for loom's own\n"
      "allocators); returns the bytes freed.");
}

}  // namespace loom::python
