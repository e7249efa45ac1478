// loom._loom: the native half of the loom package. Its Python modules (python/loom/) import from here.
#include <nanobind/nanobind.h>

#include "bindings.h"
#include "errors.h"
#include "tensor_py.h"

NB_MODULE(_loom, m) {
  namespace python = loom::python;
  m.doc() = "loom's native extension (use the loom package, not this module)";
  python::bind_errors(m);
  python::bind_tensor(m);
  auto io = m.def_submodule("io", "Image and file I/O after torchvision.io");
  python::bind_io(io);
  auto data = m.def_submodule("data", "Datasets and the prefetching Loader");
  python::bind_data(data);
}
