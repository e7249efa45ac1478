// splitmix64 (Steele, Lea and Flood): advances `state` by the golden-ratio increment and returns a
// well-mixed 64-bit value. Seeds loom's generators (core/random.cc, noise/ziggurat.cc and its CUDA
// twin in noise.cu, which runs this very code). Private to transforms.
#pragma once

#include <cstdint>

#include "loom/codec/api.h"

namespace loom::transforms::detail {

LOOM_HOST_DEVICE inline uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace loom::transforms::detail
