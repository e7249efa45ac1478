// The parts of the loom._loom extension, one per Python module; module.cc calls them in order.
#pragma once

#include <nanobind/nanobind.h>

namespace loom::python {

void bind_io(nanobind::module_& io);      // loom.io (after torchvision.io)
void bind_data(nanobind::module_& data);  // loom.data (datasets and the Loader)

}  // namespace loom::python
