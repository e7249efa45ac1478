// 8-bit planar YUV 4:2:0 (yuv420p, yuvj420p) to RGB24 at the frame's size, with the arithmetic of
// swscale's x86 unscaled converter (libswscale/x86/yuv_2_rgb.asm, FFmpeg 5.1), so that it gives
// swscale's bytes on x86 without swscale's scratch frame and copy. ColorConverter (color_convert.h)
// uses it only after a probe conversion matched swscale's output (other FFmpeg versions or CPUs may
// convert otherwise). Private to loom::video.
//
// Arithmetic (16-bit lanes; >> 16 is an arithmetic shift, "sat" saturates to int16):
//   luma   = ((int16)((Y << 3) - y_offset) * y_coeff) >> 16
//   u, v   = (U << 3) - 1024, (V << 3) - 1024
//   R = sat(luma + ((v * v2r) >> 16))
//   G = sat(luma + sat(((u * u2g) >> 16) + ((v * v2g) >> 16)))
//   B = sat(luma + ((u * u2b) >> 16))
// each clamped to [0, 255]. The pixel (x, y) takes the chroma sample (x / 2, y / 2).
#pragma once

#include <algorithm>
#include <cstdint>

namespace loom::video::detail {

// swscale's 16-bit coefficients for one colour matrix and range (its yCoeff, yOffset, vrCoeff, ...).
struct Yuv420Coefficients {
  int16_t y_coeff = 0, y_offset = 0;
  int16_t v2r = 0, u2g = 0, v2g = 0, u2b = 0;
};

// The coefficients swscale derives from sws_setColorspaceDetails' arguments: `inv_table` its {crv, cbu,
// cgu, cgv} (16.16), `full_range` the source range, brightness, contrast and saturation as there
// (defaults 0, 1 << 16, 1 << 16). No FFmpeg call: the formulas of swscale's yuv2rgb.c.
Yuv420Coefficients swscale_yuv420_coefficients(const int* inv_table, bool full_range, int brightness, int contrast,
                                               int saturation);

struct Yuv420Plan {
  // Source planes: luma `height` rows of `width` bytes, U and V (height + 1) / 2 rows of
  // (width + 1) / 2 bytes; pitches in bytes.
  const uint8_t* y = nullptr;
  const uint8_t* u = nullptr;
  const uint8_t* v = nullptr;
  int64_t y_pitch = 0, u_pitch = 0, v_pitch = 0;
  int width = 0, height = 0;
  Yuv420Coefficients coefficients;
  // Output: 3 * width * height bytes: rows of interleaved R, G, B, or (planar) planes R, G, B.
  uint8_t* dst = nullptr;
  bool planar = false;
};

// The RGB of one pixel from its Y, U and V bytes.
inline void yuv420_rgb_pixel(const Yuv420Coefficients& c, int y, int u, int v, uint8_t rgb[3]) {
  const auto high = [](int32_t a, int32_t b) { return (a * b) >> 16; };
  const auto sat = [](int32_t a) { return std::clamp(a, -32768, 32767); };
  const int32_t luma = high(static_cast<int16_t>((y << 3) - c.y_offset), c.y_coeff);
  const int32_t us = (u << 3) - 1024, vs = (v << 3) - 1024;
  const int32_t r = sat(luma + high(vs, c.v2r));
  const int32_t g = sat(luma + sat(high(us, c.u2g) + high(vs, c.v2g)));
  const int32_t b = sat(luma + high(us, c.u2b));
  rgb[0] = static_cast<uint8_t>(std::clamp(r, 0, 255));
  rgb[1] = static_cast<uint8_t>(std::clamp(g, 0, 255));
  rgb[2] = static_cast<uint8_t>(std::clamp(b, 0, 255));
}

// Writes pixels [x0, x1) of row `row` of `plan` (x0 even).
inline void yuv420_to_rgb_span(const Yuv420Plan& plan, int row, int x0, int x1) {
  const uint8_t* y = plan.y + row * plan.y_pitch;
  const uint8_t* u = plan.u + (row / 2) * plan.u_pitch;
  const uint8_t* v = plan.v + (row / 2) * plan.v_pitch;
  const int64_t plane = static_cast<int64_t>(plan.width) * plan.height;
  for (int x = x0; x < x1; ++x) {
    uint8_t rgb[3];
    yuv420_rgb_pixel(plan.coefficients, y[x], u[x / 2], v[x / 2], rgb);
    const int64_t at = static_cast<int64_t>(row) * plan.width + x;
    for (int c = 0; c < 3; ++c) plan.dst[plan.planar ? c * plane + at : at * 3 + c] = rgb[c];
  }
}

// The scalar reference: every pixel of `plan`.
inline void yuv420_to_rgb_reference(const Yuv420Plan& plan) {
  for (int row = 0; row < plan.height; ++row) yuv420_to_rgb_span(plan, row, 0, plan.width);
}

// The same bytes, with the widest SIMD target of this CPU (yuv420_rgb_hwy.cc).
void yuv420_to_rgb(const Yuv420Plan& plan);

}  // namespace loom::video::detail
