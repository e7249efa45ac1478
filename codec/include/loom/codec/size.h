// A two-dimensional size in pixels (or frames x bins), height first as torchvision's (H, W).
#pragma once

#include <cstdint>

#include "loom/codec/api.h"

LOOM_API_BEGIN

namespace loom {

struct Size {
  int64_t height = 0;
  int64_t width = 0;
  bool operator==(const Size&) const = default;
};

}  // namespace loom

LOOM_API_END
