// The parts of the loom._loom extension, one per Python module; module.cc calls them in order.
#pragma once

#include <nanobind/nanobind.h>

namespace loom::python {

void bind_io(nanobind::module_& io);                  // loom.io (after torchvision.io)
void bind_transforms(nanobind::module_& transforms);  // loom.transforms.v2 (after torchvision.transforms.v2)

}  // namespace loom::python
