// Python argument names for loom's enums, shared by every binding. Throw ValueError for other names.
#pragma once

#include <nanobind/nanobind.h>

#include <string>

#include "loom/codec/layout.h"
#include "loom/codec/tensor.h"
#include "loom/vision/image.h"

namespace loom::python {

// "cpu", "cuda" (device 0) or "cuda:N", as torch names devices; `what` names the argument in the message.
Device device_named(const std::string& name, const char* what = "device");

// "CHW" or "HWC"; `what` names the argument in the message.
Layout layout_named(const std::string& name, const char* what = "layout");

// An ImageReadMode, its name ("RGB", "GRAY", "UNCHANGED", "GRAY_ALPHA", "RGB_ALPHA" or "RGBA";
// case-insensitive, as torchvision 0.20 takes), or another enum with those names
// (torchvision.io.ImageReadMode), so that calls move over unchanged.
vision::ImageReadMode read_mode_named(nanobind::handle mode);

}  // namespace loom::python
