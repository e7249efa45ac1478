// Helpers for the vision tests: synthetic images and tensor comparison.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "loom/codec/tensor.h"
#include "loom/vision/image.h"

namespace loom::test {

// H x W x C uint8 image with smooth gradients plus a per-pixel pattern, so that flips, rotations and
// channel mix-ups all change it.
inline Tensor make_image(int height, int width, int channels) {
  Tensor t = Tensor::empty({height, width, channels}, DType::kUInt8);
  uint8_t* p = t.data<uint8_t>();
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (int c = 0; c < channels; ++c)
        p[(y * width + x) * channels + c] = static_cast<uint8_t>((x * 7 + y * 13 + c * 71 + (x * y) % 11) & 0xFF);
  return t;
}

// Element-wise equality of two CPU tensors of the same dtype (any strides).
inline bool same_pixels(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.ndim() != b.ndim()) return false;
  for (int d = 0; d < a.ndim(); ++d)
    if (a.size(d) != b.size(d)) return false;
  const Tensor ca = a.contiguous(), cb = b.contiguous();
  return std::memcmp(ca.data(), cb.data(), ca.nbytes()) == 0;
}

// Largest absolute difference of two uint8 tensors of the same shape.
inline int max_diff(const Tensor& a, const Tensor& b) {
  const Tensor ca = a.contiguous(), cb = b.contiguous();
  int diff = 0;
  for (int64_t i = 0; i < ca.numel(); ++i)
    diff = std::max(diff, std::abs(int(ca.data<uint8_t>()[i]) - int(cb.data<uint8_t>()[i])));
  return diff;
}

// CHW view of an HWC tensor.
inline Tensor hwc_to_chw(const Tensor& hwc) {
  return hwc.permute({2, 0, 1});
}

// A JPEG with an APP1 EXIF block holding `orientation`, inserted right after SOI.
inline std::vector<uint8_t> with_exif_orientation(const std::vector<uint8_t>& jpeg, int orientation) {
  const uint8_t tiff[] = {'I',  'I',  42, 0, 8, 0, 0, 0,  // little-endian header, IFD0 at 8
                          1,    0,                        // one entry
                          0x12, 0x01, 3,  0, 1, 0, 0, 0, static_cast<uint8_t>(orientation),
                          0,    0,    0,  0, 0, 0, 0};  // no next IFD
  std::vector<uint8_t> app1 = {'E', 'x', 'i', 'f', 0, 0};
  app1.insert(app1.end(), std::begin(tiff), std::end(tiff));
  const size_t length = app1.size() + 2;
  std::vector<uint8_t> out(jpeg.begin(), jpeg.begin() + 2);
  out.insert(out.end(), {0xFF, 0xE1, static_cast<uint8_t>(length >> 8), static_cast<uint8_t>(length & 0xFF)});
  out.insert(out.end(), app1.begin(), app1.end());
  out.insert(out.end(), jpeg.begin() + 2, jpeg.end());
  return out;
}

}  // namespace loom::test
