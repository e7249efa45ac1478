// The geometry pixel kernels (private to loom::transforms), fed the plans of geometry_plan.h: the
// run-based remap (remap.cc, its mirrored runs in reverse_hwy.cc) and the inverse-mapped warps (warp.cc scalar,
// warp_hwy.cc Highway). geometry_image.cc turns tensors into plans and runs them.
#pragma once

#include <cstdint>

#include "geometry/geometry_plan.h"

namespace loom::transforms::detail {

// One plane: `src` holds the source plane, `dst` receives out_height x out_width pixels.
void remap_plane(const uint8_t* src, uint8_t* dst, const RemapPlan& plan);

// n pixels of `pixel_bytes` bytes each, read from in_first, in_first - pixel_bytes, ... (a mirrored run
// of the remap) into out, out + pixel_bytes, ...: Highway for pixels of 1 to 4 bytes (reverse_hwy.cc).
void reverse_pixels(uint8_t* out, const uint8_t* in_first, int64_t n, int64_t pixel_bytes);

// The CUDA twin of remap_plane (geometry.cu, built with LOOM_WITH_CUDA): `src` and `dst` are device
// addresses, the gather is queued on `stream` (a cudaStream_t) and bit-exact (a copy).
void gather_cuda(const void* src, void* dst, const GatherPlan& plan, void* stream);

// Every channel of one image: `src` and `dst` laid out as plan.in_strides / plan.out_strides say.
// warp_f32 samples in double precision. warp_u8 samples in float32, as torch does (warp.cc has the
// arithmetic); it runs the Highway kernel of the best target this CPU supports (warp_hwy.cc), which
// gives the same bits as the scalar reference warp_u8_reference on every target.
void warp_u8(const uint8_t* src, uint8_t* dst, const WarpPlan& plan);
void warp_f32(const float* src, float* dst, const WarpPlan& plan);
void warp_u8_reference(const uint8_t* src, uint8_t* dst, const WarpPlan& plan);

// Output row y's source positions as functions of the output column x, for the float32 uint8 warps:
// each row's start is computed in double and rounded to float once, then every pixel takes
//   affine:      sx = x0 + x * dx,  sy = y0 + x * dy
//   perspective: sx = (x0 + x * dx) / (w0 + x * dw) - 0.5,  sy = (y0 + x * dy) / (w0 + x * dw) - 0.5
// in float32, each multiply, add and divide rounded on its own (no fused multiply-add: warp.cc and
// warp_hwy.cc are built with -ffp-contract=off), in input pixel-index units (pixel k's centre at k).
struct WarpRow {
  float x0, dx, y0, dy;
  float w0, dw;  // perspective only
};
WarpRow warp_row(const WarpPlan& plan, int64_t y);

// The scalar reference for output pixels [x_begin, x_end) of row y (row = warp_row(plan, y)); the
// Highway kernel uses it for row tails and for vectors whose 4-byte gathers would read past `src`.
void warp_u8_run(const uint8_t* src, uint8_t* dst, const WarpPlan& plan, const WarpRow& row, int64_t y, int64_t x_begin,
                 int64_t x_end);

// The uint8 bilinear blend's fixed point (warp.cc): weights in units of 2^-kWeightBits, each tap's
// sample * weight truncated to units of 2^-kAccBits grey level, so that a tap is a 16-bit high
// multiply of (sample << 8) by its weight and the sum of four fits 16 bits.
constexpr int kWeightBits = 15, kAccBits = 7;
constexpr float kWeightOne = 1 << kWeightBits, kAccStep = 1.0f / (1 << kAccBits);
static_assert(kWeightBits - kAccBits == 8, "a tap is the high half of (sample << 8) * weight");

// A blended sum in units of 2^-kAccBits as a grey level, rounded half to even.
inline int32_t round_acc(int32_t acc) {
  return (acc + (1 << (kAccBits - 1)) - 1 + ((acc >> kAccBits) & 1)) >> kAccBits;
}

// A float sample as uint8: clamped to [0, 255], rounded half to even (as torch.round).
inline uint8_t round_u8(float v) {
  const float clamped = v > 0.0f ? (v < 255.0f ? v : 255.0f) : 0.0f;
  return static_cast<uint8_t>((clamped + 0x1.8p23f) - 0x1.8p23f);
}

}  // namespace loom::transforms::detail
