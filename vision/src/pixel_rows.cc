#include "pixel_rows.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "loom/accel/interleave.h"
#include "loom/codec/error.h"

namespace loom::vision {

std::vector<int64_t> image_shape(Layout layout, int64_t height, int64_t width, int64_t channels) {
  if (layout == Layout::kHWC) return {height, width, channels};
  return {channels, height, width};
}

namespace {

std::string shape_text(std::span<const int64_t> shape, DType dtype) {
  return fmt::format("{} {}", fmt::join(shape, "x"), to_string(dtype));
}

void check_fits(const Tensor& into, std::span<const int64_t> shape, DType dtype, std::string_view input) {
  if (std::ranges::equal(into.shape(), shape) && into.dtype() == dtype) return;
  throw Error(ErrorCode::kInvalidInput, std::string(input),
              fmt::format("the image decodes to {}, the output tensor is {}", shape_text(shape, dtype),
                          shape_text(into.shape(), into.dtype())));
}

}  // namespace

Tensor output_tensor(const Tensor* into, std::span<const int64_t> shape, DType dtype, std::string_view input) {
  if (into == nullptr) return Tensor::empty(shape, dtype);
  check_fits(*into, shape, dtype, input);
  return into->is_contiguous() ? *into : Tensor::empty(shape, dtype);
}

void store_into(const Tensor& into, const Tensor& image, std::string_view input) {
  check_fits(into, image.shape(), image.dtype(), input);
  if (image.data() == into.data() && std::ranges::equal(image.strides(), into.strides())) return;
  into.copy_from(image);
}

template <typename T>
void RowSink<T>::write(int y, const T* src) const {
  const int64_t offset = static_cast<int64_t>(y) * width_;
  if (interleaved_) {
    std::memcpy(base_ + offset * channels_, src, sizeof(T) * width_ * channels_);
    return;
  }
  T* planes[4];
  for (int c = 0; c < channels_; ++c) planes[c] = base_ + c * plane_ + offset;
  accel::deinterleave(src, static_cast<size_t>(width_), channels_, planes);
}

template <typename T>
RowSource<T>::RowSource(const Tensor& image, Layout layout) : base_(image.data<T>()) {
  if (image.ndim() == 2) {
    height_ = static_cast<int>(image.size(0));
    width_ = static_cast<int>(image.size(1));
    channels_ = 1;
    stride_y_ = image.stride(0);
    stride_x_ = image.stride(1);
    stride_c_ = 0;
  } else if (image.ndim() == 3) {
    const int h = layout == Layout::kHWC ? 0 : 1, w = h + 1, c = layout == Layout::kHWC ? 2 : 0;
    height_ = static_cast<int>(image.size(h));
    width_ = static_cast<int>(image.size(w));
    channels_ = static_cast<int>(image.size(c));
    stride_y_ = image.stride(h);
    stride_x_ = image.stride(w);
    stride_c_ = image.stride(c);
  } else {
    throw Error(ErrorCode::kInvalidInput, "image", "expected a 2-D or 3-D tensor");
  }
  if (!image.device().is_cpu()) throw Error(ErrorCode::kUnsupported, "image", "encoding needs a CPU tensor");
  scratch_.resize(static_cast<size_t>(width_) * channels_);
}

template <typename T>
const T* RowSource<T>::row(int y) {
  const T* src = base_ + y * stride_y_;
  if (stride_x_ == channels_ && (stride_c_ == 1 || channels_ == 1)) return src;  // already interleaved
  T* dst = scratch_.data();
  if (stride_x_ == 1 && channels_ <= 4) {  // CHW with contiguous rows: interleave the planes' rows
    const T* planes[4];
    for (int c = 0; c < channels_; ++c) planes[c] = src + c * stride_c_;
    accel::interleave(planes, static_cast<size_t>(width_), channels_, dst);
    return dst;
  }
  for (int x = 0; x < width_; ++x)
    for (int c = 0; c < channels_; ++c) dst[x * channels_ + c] = src[x * stride_x_ + c * stride_c_];
  return dst;
}

template class RowSink<uint8_t>;
template class RowSink<uint16_t>;
template class RowSource<uint8_t>;
template class RowSource<uint16_t>;

void cmyk_to_rows(const uint8_t* cmyk, int width, int out_channels, uint8_t* out) {
  // Pillow: unpack "CMYK;I" (invert), then cmyk2rgb: v = nk - c * nk / 255 with nk = 255 - k, using
  // MULDIV255(a, b) = ((a*b + 128) >> 8 + a*b + 128) >> 8; then L = (R*19595 + G*38470 + B*7471 +
  // 0x8000) >> 16 for gray.
  auto muldiv255 = [](int a, int b) {
    const int t = a * b + 128;
    return ((t >> 8) + t) >> 8;
  };
  for (int x = 0; x < width; ++x, cmyk += 4) {
    const int nk = cmyk[3];  // 255 - (255 - k)
    uint8_t rgb[3];
    for (int c = 0; c < 3; ++c) rgb[c] = static_cast<uint8_t>(std::clamp(nk - muldiv255(255 - cmyk[c], nk), 0, 255));
    if (out_channels <= 2) {
      *out++ = static_cast<uint8_t>((rgb[0] * 19595 + rgb[1] * 38470 + rgb[2] * 7471 + 0x8000) >> 16);
      if (out_channels == 2) *out++ = 255;
      continue;
    }
    *out++ = rgb[0];
    *out++ = rgb[1];
    *out++ = rgb[2];
    if (out_channels == 4) *out++ = 255;
  }
}

void gray_to_gray_alpha(const uint8_t* gray, int width, uint8_t* out) {
  for (int x = 0; x < width; ++x) {
    out[2 * x] = gray[x];
    out[2 * x + 1] = 255;
  }
}

}  // namespace loom::vision
