// Image sizes for the transforms: height first, as torchvision's (H, W).
#pragma once

#include <cstdint>

namespace loom::transforms {

struct Size {
  int64_t height = 0;
  int64_t width = 0;
  bool operator==(const Size&) const = default;
};

}  // namespace loom::transforms
