// The weights of a resize axis (private to loom::transforms): built by resize.cc from the op's options
// and viewed by the kernels as an AxisWeights (resize_plan.h).
#pragma once

#include <cstdint>
#include <vector>

#include "loom/transforms/resize.h"
#include "resize/resize_plan.h"

namespace loom::transforms {

// The owner of one axis' weights (see AxisWeights for their meaning): w, start and count always,
// the kernels' forms of w when added (add_*_weights below).
struct Coefficients {
  int taps = 0;
  std::vector<int> start, count;
  std::vector<double> w;
  std::vector<int32_t> fixed;
  std::vector<uint16_t> u16;
  std::vector<int16_t> w16;
  int w16_bits = 0;

  // The kernels' view; valid while this object lives and its vectors keep their sizes.
  AxisWeights weights() const {
    return {static_cast<int64_t>(start.size()),
            taps,
            start.data(),
            count.data(),
            w.data(),
            fixed.data(),
            u16.data(),
            w16.data(),
            w16_bits};
  }
};

// Pillow's weights (Resample.c) for resizing an axis of `in_size` samples to `out_size` with `interp`
// (kBilinear, kBicubic with a = -0.5, or kBox), widened by the scale factor when downscaling with
// `antialias`; taps outside the axis are dropped and the rest renormalized.
Coefficients make_coefficients(int64_t in_size, int64_t out_size, Interpolation interp, bool antialias);

// The weights resize() uses for one axis with `options` (interpolation and antialias; the rules are in
// resize.h): make_coefficients, or torch's index rules for nearest, nearest-exact and non-antialiased
// bilinear and bicubic. Throws Error(kInvalidInput) for an unknown interpolation.
Coefficients axis_coefficients(int64_t in_size, int64_t out_size, const ResizeOptions& options);

// The weights a kernel reads, computed from c.w (see AxisWeights) and built only for a resize that
// runs that kernel: c.fixed for Pillow's uint8 kernels, c.u16 for the fast uint8 vertical pass, c.w16
// and c.w16_bits for the fast uint8 horizontal pass.
void add_fixed_weights(Coefficients& c);
void add_fast_column_weights(Coefficients& c);
void add_fast_row_weights(Coefficients& c);

}  // namespace loom::transforms
