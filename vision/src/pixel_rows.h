// Row-at-a-time access to image tensors in CHW or HWC layout (private to loom::vision).
//
// Decoders produce interleaved rows (what libjpeg and libpng emit) and hand them to a RowSink, which
// writes them straight into an HWC tensor or spreads them over the planes of a CHW tensor while the
// row is still in cache, so no layout pass over the whole image is needed. Encoders read interleaved
// rows from a RowSource, which handles any layout and strides.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "loom/codec/tensor.h"
#include "loom/vision/image.h"

namespace loom::vision {

// Shape of an image tensor in `layout` with the given size.
std::vector<int64_t> image_shape(Layout layout, int64_t height, int64_t width, int64_t channels);

// The tensor a decoder writes an image of `shape` and `dtype` into: `*into` (decode_image_into's
// output) when `into` is given and contiguous, else a new contiguous tensor. Throws
// Error(kInvalidInput) naming `input` when `*into` has another shape or dtype.
Tensor output_tensor(const Tensor* into, std::span<const int64_t> shape, DType dtype, std::string_view input);
// Stores a decoded `image` in `into` (same shape and dtype, checked as above): a copy, unless the
// decoder wrote `into` itself.
void store_into(const Tensor& into, const Tensor& image, std::string_view input);

template <typename T>
class RowSink {
 public:
  // `out` is a contiguous tensor of image_shape(layout, height, width, channels).
  RowSink(const Tensor& out, Layout layout, int height, int width, int channels)
      : base_(static_cast<T*>(out.data())),
        width_(width),
        channels_(channels),
        plane_(static_cast<int64_t>(height) * width),
        interleaved_(layout == Layout::kHWC || channels == 1) {}

  // True when decoders may write rows in place through row().
  bool interleaved() const { return interleaved_; }
  // Pointer to interleaved row y; only when interleaved().
  T* row(int y) const { return base_ + static_cast<int64_t>(y) * width_ * channels_; }
  // Stores one interleaved row (width * channels samples) as row y.
  void write(int y, const T* src) const;

 private:
  T* base_;
  int width_, channels_;
  int64_t plane_;
  bool interleaved_;
};

template <typename T>
class RowSource {
 public:
  // `image` is H x W (one channel) or a 3-D tensor in `layout`, any strides.
  RowSource(const Tensor& image, Layout layout);

  int height() const { return height_; }
  int width() const { return width_; }
  int channels() const { return channels_; }
  // Interleaved row y (width * channels samples), valid until the next call.
  const T* row(int y);

 private:
  const T* base_;
  int height_, width_, channels_;
  int64_t stride_y_, stride_x_, stride_c_;
  std::vector<T> scratch_;
};

// CMYK as libjpeg returns it for Adobe files (inverted, as Pillow assumes for every CMYK JPEG) to
// `out_channels` of gray (1), gray + alpha (2), RGB (3) or RGBA (4), with Pillow's integer formulas so that the pixels
// equal Image.convert's.
void cmyk_to_rows(const uint8_t* cmyk, int width, int out_channels, uint8_t* out);
// Gray to gray + opaque alpha.
void gray_to_gray_alpha(const uint8_t* gray, int width, uint8_t* out);

}  // namespace loom::vision
