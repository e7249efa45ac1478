// Pixel-wise color operations (torchvision.transforms.v2.functional._color on tensors): grayscale,
// brightness, contrast, saturation, hue and gamma. Each runs on planar (CHW) float32 values per pixel,
// in torchvision's float32 operation order; uint8 converts back as torchvision does (clamp, truncate).
#include "loom/transforms/color.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "color/color_plan.h"
#include "color/planar.h"
#include "core/image_check.h"
#include "loom/codec/error.h"

namespace loom::transforms {

namespace {

// The check every color op starts with: a 3-D CPU uint8 or float32 image of 1 or 3 channels; returns
// the channel count.
int64_t checked_color_image(const Tensor& image, Layout layout, const char* op) {
  return check_image(image, layout, op, {DType::kUInt8, DType::kFloat32}, {1, 3}).channels;
}

void check_non_negative(double v, const char* op, const char* what) {
  if (!(v >= 0.0) || !std::isfinite(v)) {
    throw Error(ErrorCode::kInvalidInput, op, fmt::format("{} must be a finite number >= 0, got {}", what, v));
  }
}

// float -> uint8 after a float op: clamp to [0, 255] (NaN to 0), truncate.
inline uint8_t to_u8(float v) {
  return static_cast<uint8_t>(std::min(v > 0.0f ? v : 0.0f, 255.0f));
}
inline float clamp01(float v) {
  return std::min(v > 0.0f ? v : 0.0f, 1.0f);
}

template <typename T>
inline float luma(T r, T g, T b) {
  const float rf = static_cast<float>(r), gf = static_cast<float>(g), bf = static_cast<float>(b);
  return 0.2989f * rf + 0.587f * gf + 0.114f * bf;
}

// The grayscale plane as float: floored for uint8 (torchvision's uint8 grayscale), as is for float.
template <typename T>
std::vector<float> gray_plane(const T* planar, int64_t hw) {
  std::vector<float> gray(static_cast<size_t>(hw));
  for (int64_t i = 0; i < hw; ++i) {
    const float l = luma(planar[i], planar[hw + i], planar[2 * hw + i]);
    gray[i] = std::is_same_v<T, uint8_t> ? std::floor(l) : l;
  }
  return gray;
}

// out = clamp(ratio * x + (1 - ratio) * other) in float32, as torchvision's _blend; `other` is a plane
// (one value per pixel) or a single value (other_stride 0).
template <typename T>
Tensor blend(const Tensor& planar, const float* other, int64_t other_stride, double ratio) {
  Tensor out = Tensor::empty(planar.shape(), planar.dtype());
  const int64_t c = planar.size(0), hw = planar.size(1) * planar.size(2);
  const float r = static_cast<float>(ratio), q = static_cast<float>(1.0 - ratio);
  const T* src = planar.data<T>();
  T* dst = out.data<T>();
  for (int64_t ch = 0; ch < c; ++ch) {
    for (int64_t i = 0; i < hw; ++i) {
      const float v = r * static_cast<float>(src[ch * hw + i]) + q * other[i * other_stride];
      if constexpr (std::is_same_v<T, uint8_t>) {
        dst[ch * hw + i] = to_u8(v);
      } else {
        dst[ch * hw + i] = clamp01(v);
      }
    }
  }
  return out;
}

template <typename Fn>
auto by_dtype(const Tensor& t, Fn&& fn) {
  return t.dtype() == DType::kUInt8 ? fn(uint8_t{}) : fn(float{});
}

// torchvision v2 _rgb_to_hsv / _hsv_to_rgb for one pixel, float32.
struct Hsv {
  float h, s, v;
};

inline Hsv rgb_to_hsv(float r, float g, float b) {
  const float maxc = std::max({r, g, b}), minc = std::min({r, g, b});
  const bool eqc = maxc == minc;
  const float range = maxc - minc;
  const float s = range / (eqc ? 1.0f : maxc);
  const float divisor = eqc ? 1.0f : range;
  const float rc = (maxc - r) / divisor, gc = (maxc - g) / divisor, bc = (maxc - b) / divisor;
  float h;
  if (maxc == r) {
    h = bc - gc;
  } else if (maxc == g) {
    h = (rc + 2.0f) - bc;
  } else {
    h = (gc + 4.0f) - rc;
  }
  h = std::fmod(h * static_cast<float>(1.0 / 6.0) + 1.0f, 1.0f);
  return {h, s, maxc};
}

// torch.remainder for floats: the result has the divisor's sign.
inline float remainder1(float a) {
  float m = std::fmod(a, 1.0f);
  if (m != 0.0f && m < 0.0f) m += 1.0f;
  return m;
}

inline void hsv_to_rgb(Hsv hsv, float& r, float& g, float& b) {
  const float h6 = hsv.h * 6.0f;
  const float fi = std::floor(h6);
  const float f = h6 - fi;
  int i = static_cast<int>(fi) % 6;
  if (i < 0) i += 6;
  const float sxf = hsv.s * f;
  const float one_minus_s = 1.0f - hsv.s;
  const float v = hsv.v;
  const float q = clamp01((1.0f - sxf) * v);
  const float t = clamp01((sxf + one_minus_s) * v);
  const float p = clamp01(one_minus_s * v);
  switch (i) {
    case 0: r = v, g = t, b = p; break;
    case 1: r = q, g = v, b = p; break;
    case 2: r = p, g = v, b = t; break;
    case 3: r = p, g = q, b = v; break;
    case 4: r = t, g = p, b = v; break;
    default: r = v, g = p, b = q; break;
  }
}

}  // namespace

Tensor rgb_to_grayscale(const Tensor& image, int num_output_channels, Layout layout) {
  const char* op = "rgb_to_grayscale";
  const int64_t c = checked_color_image(image, layout, op);
  if (num_output_channels != 1 && num_output_channels != 3) {
    throw Error(ErrorCode::kInvalidInput, op,
                fmt::format("num_output_channels must be 1 or 3, got {}", num_output_channels));
  }
  const Tensor planar = to_planar(image, layout);
  const int64_t h = planar.size(1), w = planar.size(2), hw = h * w;
  Tensor out = Tensor::empty({num_output_channels, h, w}, image.dtype());
  by_dtype(image, [&](auto tag) {
    using T = decltype(tag);
    const T* src = planar.data<T>();
    T* dst = out.data<T>();
    for (int64_t i = 0; i < hw; ++i) {
      dst[i] = c == 1 ? src[i] : static_cast<T>(luma(src[i], src[hw + i], src[2 * hw + i]));  // truncates uint8
    }
    for (int k = 1; k < num_output_channels; ++k) std::copy(dst, dst + hw, dst + k * hw);
    return 0;
  });
  return from_planar(out, layout);
}

Tensor adjust_brightness(const Tensor& image, double factor, Layout layout) {
  const char* op = "adjust_brightness";
  checked_color_image(image, layout, op);
  check_non_negative(factor, op, "brightness factor");
  const Tensor src = image.contiguous();  // pixel-wise: any layout as is
  Tensor out = Tensor::empty(src.shape(), src.dtype());
  const float f = static_cast<float>(factor);
  const int64_t n = src.numel();
  if (src.dtype() == DType::kUInt8) {
    uint8_t table[256];  // the float computation for each of the 256 inputs
    for (int v = 0; v < 256; ++v) table[v] = to_u8(static_cast<float>(v) * f);
    const uint8_t* s = src.data<uint8_t>();
    uint8_t* d = out.data<uint8_t>();
    for (int64_t i = 0; i < n; ++i) d[i] = table[s[i]];
  } else {
    const float* s = src.data<float>();
    float* d = out.data<float>();
    for (int64_t i = 0; i < n; ++i) d[i] = clamp01(s[i] * f);
  }
  return out;
}

Tensor adjust_contrast(const Tensor& image, double factor, Layout layout) {
  const char* op = "adjust_contrast";
  const int64_t c = checked_color_image(image, layout, op);
  check_non_negative(factor, op, "contrast factor");
  const Tensor planar = to_planar(image, layout);
  const int64_t hw = planar.size(1) * planar.size(2);
  return from_planar(by_dtype(image,
                              [&](auto tag) {
                                using T = decltype(tag);
                                const T* src = planar.data<T>();
                                double sum = 0.0;
                                if (c == 3) {
                                  for (float g : gray_plane(src, hw)) sum += g;
                                } else {
                                  for (int64_t i = 0; i < hw; ++i) sum += static_cast<double>(src[i]);
                                }
                                const float mean = hw > 0 ? static_cast<float>(sum / static_cast<double>(hw)) : 0.0f;
                                return blend<T>(planar, &mean, 0, factor);
                              }),
                     layout);
}

Tensor adjust_saturation(const Tensor& image, double factor, Layout layout) {
  const char* op = "adjust_saturation";
  const int64_t c = checked_color_image(image, layout, op);
  check_non_negative(factor, op, "saturation factor");
  if (c == 1) return image.clone();
  const Tensor planar = to_planar(image, layout);
  const int64_t hw = planar.size(1) * planar.size(2);
  return from_planar(by_dtype(image,
                              [&](auto tag) {
                                using T = decltype(tag);
                                const std::vector<float> gray = gray_plane(planar.data<T>(), hw);
                                return blend<T>(planar, gray.data(), 1, factor);
                              }),
                     layout);
}

Tensor adjust_hue(const Tensor& image, double hue_factor, Layout layout) {
  const char* op = "adjust_hue";
  const int64_t c = checked_color_image(image, layout, op);
  if (!(hue_factor >= -0.5 && hue_factor <= 0.5)) {
    throw Error(ErrorCode::kInvalidInput, op, fmt::format("hue_factor must be in [-0.5, 0.5], got {}", hue_factor));
  }
  if (c == 1) return image.clone();
  const Tensor planar = to_planar(image, layout);
  const int64_t hw = planar.size(1) * planar.size(2);
  const float shift = static_cast<float>(hue_factor);
  Tensor out = Tensor::empty(planar.shape(), planar.dtype());
  by_dtype(image, [&](auto tag) {
    using T = decltype(tag);
    const T* src = planar.data<T>();
    T* dst = out.data<T>();
    for (int64_t i = 0; i < hw; ++i) {
      float rgb[3];
      for (int k = 0; k < 3; ++k) {
        rgb[k] = static_cast<float>(src[k * hw + i]);
        if constexpr (std::is_same_v<T, uint8_t>) rgb[k] *= kInv255;
      }
      Hsv hsv = rgb_to_hsv(rgb[0], rgb[1], rgb[2]);
      hsv.h = remainder1(hsv.h + shift);
      hsv_to_rgb(hsv, rgb[0], rgb[1], rgb[2]);
      for (int k = 0; k < 3; ++k) {
        if constexpr (std::is_same_v<T, uint8_t>) {
          dst[k * hw + i] = to_u8(rgb[k] * 255.999f);  // to_dtype(uint8, scale=True)
        } else {
          dst[k * hw + i] = rgb[k];
        }
      }
    }
    return 0;
  });
  return from_planar(out, layout);
}

Tensor adjust_gamma(const Tensor& image, double gamma, double gain, Layout layout) {
  const char* op = "adjust_gamma";
  checked_color_image(image, layout, op);
  check_non_negative(gamma, op, "gamma");
  if (!std::isfinite(gain)) throw Error(ErrorCode::kInvalidInput, op, "gain must be finite");
  const Tensor src = image.contiguous();
  Tensor out = Tensor::empty(src.shape(), src.dtype());
  const float g = static_cast<float>(gamma), k = static_cast<float>(gain);
  const int64_t n = src.numel();
  auto apply = [&](float x) {
    float y = std::pow(x, g);
    if (gain != 1.0) y = clamp01(y * k);
    return y;
  };
  if (src.dtype() == DType::kUInt8) {
    // 256 possible inputs: a table of the float computation.
    uint8_t table[256];
    for (int v = 0; v < 256; ++v) table[v] = to_u8(apply(static_cast<float>(v) * kInv255) * 255.999f);
    const uint8_t* s = src.data<uint8_t>();
    uint8_t* d = out.data<uint8_t>();
    for (int64_t i = 0; i < n; ++i) d[i] = table[s[i]];
  } else {
    const float* s = src.data<float>();
    float* d = out.data<float>();
    for (int64_t i = 0; i < n; ++i) d[i] = apply(s[i]);
  }
  return out;
}

}  // namespace loom::transforms
