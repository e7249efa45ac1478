// Private helpers shared by annotations.cc, box_clamp.cc and sanitize.cc: one box at a time in double,
// and the tensor <-> double plumbing around it.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "loom/codec/tensor.h"
#include "loom/transforms/annotations.h"

namespace loom::transforms::detail {

inline constexpr int kMaxBoxValues = 8;

// Throws Error(kInvalidInput) naming `what` unless `boxes` is a defined CPU float32/float64 tensor of
// shape [N, values_per_box(format)].
void check_box_tensor(const Tensor& boxes, BoxFormat format, std::string_view what);
// Throws Error(kInvalidInput) naming `what` unless both sides of `canvas` are positive.
void check_canvas(Size canvas, std::string_view what);

// Converts one box of values_per_box(from) values into values_per_box(to) values of `to` (torchvision's
// formulas; both formats of the same family, checked by the caller; from == to copies). `in` and `out`
// may not overlap.
void convert_box(const double* in, BoxFormat from, double* out, BoxFormat to);

// The elements of a float32/float64 CPU tensor as doubles, in row-major order.
std::vector<double> to_doubles(const Tensor& tensor);
// A new contiguous tensor of `shape` and `dtype` (float32/float64) holding `values` (row-major).
Tensor from_doubles(std::span<const double> values, std::span<const int64_t> shape, DType dtype);

}  // namespace loom::transforms::detail
