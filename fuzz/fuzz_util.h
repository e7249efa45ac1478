// Helpers shared by the fuzz harnesses.
#pragma once

#include <cstddef>
#include <cstdint>

#include "loom/codec/tensor.h"

namespace loom::fuzz {

// Reads every byte of `t` so that a short, overlapping or uninitialised buffer shows up under ASan/UBSan.
inline void touch(const Tensor& t) {
  const auto* p = static_cast<const uint8_t*>(t.data());
  unsigned sum = 0;
  for (size_t i = 0; i < t.nbytes(); ++i) sum += p[i];
  volatile unsigned sink = sum;
  (void)sink;
}

}  // namespace loom::fuzz
