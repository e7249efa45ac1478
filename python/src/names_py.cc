#include "names_py.h"

#include <nanobind/stl/string.h>

#include <cctype>

#include "loom/codec/error.h"

namespace loom::python {

namespace nb = nanobind;

Device device_named(const std::string& name, const char* what) {
  try {
    return parse_device(name);
  } catch (const Error&) {
    throw nb::value_error((std::string(what) + " must be 'cpu', 'cuda' or 'cuda:N', not '" + name + "'").c_str());
  }
}

Layout layout_named(const std::string& name, const char* what) {
  if (name == "CHW") return Layout::kCHW;
  if (name == "HWC") return Layout::kHWC;
  throw nb::value_error((std::string(what) + " must be 'CHW' or 'HWC', not '" + name + "'").c_str());
}

vision::ImageReadMode read_mode_named(nb::handle mode) {
  using vision::ImageReadMode;
  if (nb::isinstance<ImageReadMode>(mode)) return nb::cast<ImageReadMode>(mode);
  std::string name = nb::cast<std::string>(nb::isinstance<nb::str>(mode) ? mode : mode.attr("name"));
  for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (name == "UNCHANGED") return ImageReadMode::kUnchanged;
  if (name == "GRAY") return ImageReadMode::kGray;
  if (name == "GRAY_ALPHA") return ImageReadMode::kGrayAlpha;
  if (name == "RGB") return ImageReadMode::kRGB;
  if (name == "RGB_ALPHA" || name == "RGBA") return ImageReadMode::kRGBAlpha;
  throw nb::value_error(("unknown ImageReadMode '" + name + "'").c_str());
}

}  // namespace loom::python
