// Reads the raw bytes a benchmark script wrote (bench/*.py) into a tensor, so that every tool times the
// same pixels or samples.
#pragma once

#include <cstdio>
#include <fstream>

#include "loom/codec/tensor.h"

namespace loom::bench {

// Fills `into` (contiguous) with exactly its nbytes() from `path`; prints why and returns false when
// the file is shorter.
inline bool read_raw(const char* path, const Tensor& into) {
  std::ifstream in(path, std::ios::binary);
  in.read(static_cast<char*>(into.data()), static_cast<std::streamsize>(into.nbytes()));
  if (in.gcount() != static_cast<std::streamsize>(into.nbytes())) {
    std::fprintf(stderr, "%s: expected %zu bytes\n", path, into.nbytes());
    return false;
  }
  return true;
}

}  // namespace loom::bench
