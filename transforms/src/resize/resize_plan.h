// What the resize kernels consume (private to loom::transforms): plain structs and raw pointers, no
// Tensor, so that the scalar reference and the Highway kernels (resize_kernels.h, resize_hwy.cc) and a
// CUDA twin read the same plan. resize.cc builds it (resize_coefficients.h) from the op's arguments.
#pragma once

#include <cstdint>

namespace loom::transforms {

constexpr int kPrecisionBits = 32 - 8 - 2;  // fixed-point fraction bits of the uint8 path (Pillow's)

// The weights of one axis, not owned: output i (0 <= i < size) reads inputs [start[i], start[i] +
// count[i]) with weights w[i * taps + k] (double: uint16 and float32), fixed[i * taps + k] (w in
// kPrecisionBits fixed point, rounded half away from zero: uint8) or u16[i * taps + k] (w in 16-bit
// unsigned fixed point, rounded and clamped to 0..65535: the fast uint8 vertical pass) or w16[i * taps + k] (w with
// w16_bits fraction bits, the most that keep every weight within int16, at most kPrecisionBits: the
// fast uint8 horizontal pass); the weights of one output sum to 1.
struct AxisWeights {
  int64_t size = 0;
  int taps = 0;
  const int* start = nullptr;
  const int* count = nullptr;
  const double* w = nullptr;
  const int32_t* fixed = nullptr;
  const uint16_t* u16 = nullptr;
  const int16_t* w16 = nullptr;
  int w16_bits = 0;
};

}  // namespace loom::transforms
