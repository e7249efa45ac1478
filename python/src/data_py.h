// loom._loom.data: the loader's datasets, field specs and Loader (python/loom/data.py wraps them).
#pragma once

#include <nanobind/nanobind.h>

namespace loom::python {

namespace nb = nanobind;

// FieldSpec and the _image_field / _video_field / _audio_field / _plain_field builders.
void bind_data_fields(nb::module_& m);

}  // namespace loom::python
