// NV12 / P010 (semi-planar 4:2:0 YUV) to RGB24: the plan and the per-pixel arithmetic that the scalar
// reference (nv12_kernels.h) and the CUDA kernel (nv12_to_rgb.cu) share, so that they agree bit for
// bit. Plain C++ (no FFmpeg, no Tensor): included by nvcc. Private to loom::video.
//
// Arithmetic (integers only, so that host and device cannot differ):
// - A luma or chroma sample is taken as a 16-bit word: an NV12 byte b as b << 8, a P010/P016 word as
//   it is (P010 keeps its 10 bits in the high bits, so the word is v10 << 6). In units of 8-bit
//   levels a word w is w / 256.
// - Chroma (one U,V pair per 2x2 luma block) is read as swscale reads it for RGB24 output: horizontally
//   the pair of column x / 2 (no interpolation); vertically, with `chroma_linear` false, the row
//   y / 2 (swscale's unscaled 8-bit 4:2:0 path), and with it true swscale's scaler position
//   (y - 1) / 2: row j for odd y = 2j + 1, the mean of rows j - 1 and j (clamped) for even y = 2j.
//   Chroma is carried doubled (2c or c_a + c_b), so the mean is exact.
// - R = Y' + crv V', G = Y' - cgu U' - cgv V', B = Y' + cbu U' with Y' = cy (Y - y_offset),
//   U' = U - 128, V' = V - 128 in 8-bit levels; the coefficients are 16.16 fixed point. The result
//   is floored (as swscale's tables round down) and clamped to [0, 255].
#pragma once

#include <cstdint>

#include "loom/codec/api.h"

namespace loom::video::detail {

// The colour matrix and range as 16.16 fixed-point numbers (see nv12_convert.h for how a frame's
// colorspace and color_range give them).
struct YuvCoefficients {
  int64_t cy = 0;                              // luma gain: 255/219 (limited range) or 1 (full range)
  int64_t y_offset = 0;                        // luma black level in 8-bit levels: 16 (limited) or 0 (full)
  int64_t crv = 0, cbu = 0, cgu = 0, cgv = 0;  // chroma gains (cgu, cgv subtracted)
};

struct Nv12Plan {
  // Source: the luma plane (height rows of width samples) and the interleaved U,V plane
  // ((height + 1) / 2 rows of (width + 1) / 2 pairs); pitches in bytes. Host or device pointers,
  // whichever side runs the plan.
  const uint8_t* luma = nullptr;
  const uint8_t* chroma = nullptr;
  int64_t luma_pitch = 0, chroma_pitch = 0;
  int width = 0, height = 0;  // of the source and of the output
  bool sixteen_bit = false;   // P010/P016 (little-endian 16-bit words) rather than NV12 (bytes)
  bool chroma_linear = false;
  YuvCoefficients coefficients;
  // Output: 3 * width * height bytes, planes R, G, B (planar) or rows of interleaved R, G, B.
  uint8_t* dst = nullptr;
  bool planar = true;
};

// The 16-bit word of the sample at byte offset `at` of a plane.
LOOM_HOST_DEVICE inline int32_t nv12_word(const uint8_t* plane, int64_t at, bool sixteen_bit) {
  if (!sixteen_bit) return static_cast<int32_t>(plane[at]) << 8;
  return static_cast<int32_t>(plane[at]) | (static_cast<int32_t>(plane[at + 1]) << 8);
}

// Writes the RGB of pixel (x, y) of `plan` into its place in plan.dst.
LOOM_HOST_DEVICE inline void nv12_to_rgb_pixel(const Nv12Plan& plan, int x, int y) {
  const int bytes = plan.sixteen_bit ? 2 : 1;
  const int32_t luma = nv12_word(plan.luma, y * plan.luma_pitch + static_cast<int64_t>(x) * bytes, plan.sixteen_bit);
  const int64_t column = static_cast<int64_t>(x / 2) * 2 * bytes;  // the U of the pair; V follows
  const int rows = (plan.height + 1) / 2;
  int row_a = y / 2, row_b = y / 2;
  if (plan.chroma_linear && y % 2 == 0) row_a = y / 2 > 0 ? y / 2 - 1 : 0;
  if (row_b >= rows) row_b = rows - 1;
  if (row_a >= rows) row_a = rows - 1;
  const uint8_t* a = plan.chroma + row_a * plan.chroma_pitch + column;
  const uint8_t* b = plan.chroma + row_b * plan.chroma_pitch + column;
  // Doubled chroma, in 8-bit levels * 512; 128 levels doubled is 65536.
  const int64_t u = nv12_word(a, 0, plan.sixteen_bit) + nv12_word(b, 0, plan.sixteen_bit) - 65536;
  const int64_t v = nv12_word(a, bytes, plan.sixteen_bit) + nv12_word(b, bytes, plan.sixteen_bit) - 65536;
  const YuvCoefficients& c = plan.coefficients;
  // Luma in 8-bit levels * 256, doubled to the chroma's scale: everything below is levels * 2^25.
  const int64_t yp = 2 * c.cy * (static_cast<int64_t>(luma) - (c.y_offset << 8));
  const int64_t rgb[3] = {yp + c.crv * v, yp - c.cgu * u - c.cgv * v, yp + c.cbu * u};
  const int64_t plane = static_cast<int64_t>(plan.width) * plan.height;
  const int64_t at = static_cast<int64_t>(y) * plan.width + x;
  for (int k = 0; k < 3; ++k) {
    int64_t level = rgb[k] >> 25;  // arithmetic shift: the floor
    level = level < 0 ? 0 : (level > 255 ? 255 : level);
    const int64_t to = plan.planar ? k * plane + at : at * 3 + k;
    plan.dst[to] = static_cast<uint8_t>(level);
  }
}

}  // namespace loom::video::detail
