// to_dtype (torchvision v2 ToDtype) and normalize (ToDtype(float32, scale=True) + Normalize fused;
// on a CUDA image its CUDA twin, color.cu).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "color/color_kernels.h"
#include "core/cuda_image.h"
#include "core/image_check.h"
#include "loom/codec/error.h"
#include "loom/codec/size.h"
#include "loom/transforms/color.h"

#if LOOM_WITH_CUDA
#include "loom/accel/device_memory.h"
#endif

namespace loom::transforms {
namespace {

template <typename Fn>
void visit(DType d, Fn&& fn) {
  switch (d) {
    case DType::kUInt8: return fn(uint8_t{});
    case DType::kUInt16: return fn(uint16_t{});
    case DType::kFloat32: return fn(float{});
    default: return fn(double{});
  }
}

// Float -> integer: clamp to [0, hi] (NaN to 0), truncate toward zero.
template <typename I, typename F>
inline I to_integer(F v, F hi) {
  return static_cast<I>(std::min(v > F(0) ? v : F(0), hi));
}

template <typename S, typename D>
void convert(const S* src, D* dst, int64_t n, bool scale) {
  constexpr bool sf = std::is_floating_point_v<S>, df = std::is_floating_point_v<D>;
  if constexpr (sf && df) {
    for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<D>(src[i]);
  } else if constexpr (sf) {  // float -> integer
    constexpr S hi = static_cast<S>(std::numeric_limits<D>::max());
    if (scale) {
      const S k = static_cast<S>(static_cast<double>(std::numeric_limits<D>::max()) + 1.0 - 1e-3);
      for (int64_t i = 0; i < n; ++i) dst[i] = to_integer<D>(src[i] * k, hi);
    } else {
      for (int64_t i = 0; i < n; ++i) dst[i] = to_integer<D>(src[i], hi);
    }
  } else if constexpr (df) {  // integer -> float: x * (1 / max) in D's precision
    const D k = scale ? static_cast<D>(1.0 / static_cast<double>(std::numeric_limits<S>::max())) : D(1);
    for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<D>(src[i]) * k;
  } else {  // integer -> integer
    for (int64_t i = 0; i < n; ++i) {
      if (!scale) {
        dst[i] = static_cast<D>(std::min<uint32_t>(src[i], std::numeric_limits<D>::max()));
      } else if constexpr (sizeof(S) > sizeof(D)) {
        dst[i] = static_cast<D>(src[i] >> 8);
      } else {
        dst[i] = static_cast<D>(static_cast<uint32_t>(src[i]) << 8);
      }
    }
  }
}

}  // namespace

Tensor to_dtype(const Tensor& image, DType dtype, bool scale, Layout layout) {
  const char* op = "to_dtype";
  check_image(image, layout, op, {DType::kUInt8, DType::kUInt16, DType::kFloat32, DType::kFloat64});
  if (dtype != DType::kUInt8 && dtype != DType::kUInt16 && dtype != DType::kFloat32 && dtype != DType::kFloat64) {
    throw Error(ErrorCode::kUnsupported, op,
                fmt::format("expected a target dtype of uint8, uint16, float32 or float64, got {}", to_string(dtype)));
  }
  if (dtype == image.dtype()) return image.clone();
  const Tensor src = image.contiguous();  // element-wise: the layout stays as it is
  Tensor out = Tensor::empty(src.shape(), dtype);
  const int64_t n = src.numel();
  if (scale && src.dtype() == DType::kUInt8 && dtype == DType::kFloat32) {
    // The SIMD normalize kernel with mean 0 and std 1 computes exactly x * float(1/255).
    const float zero = 0.0f, one = 1.0f;
    NormalizeJob job;
    job.pixels = n;
    job.channels = 1;
    job.mean = &zero;
    job.std = &one;
    normalize_u8(src.data<uint8_t>(), out.data<float>(), job);
    return out;
  }
  visit(src.dtype(), [&](auto s) {
    using S = decltype(s);
    visit(dtype, [&](auto d) {
      using D = decltype(d);
      convert(static_cast<const S*>(src.data()), static_cast<D*>(out.data()), n, scale);
    });
  });
  return out;
}

namespace {

// Checks `image` and the per-channel values; returns the image's height and width and fills m and s.
Size check_normalize(const Tensor& image, const std::vector<float>& mean, const std::vector<float>& std,
                     const NormalizeOptions& options, std::vector<float>& m, std::vector<float>& s) {
  const char* op = "normalize";
  const int64_t c = check_image(image, options.input_layout, op, {DType::kUInt8, DType::kFloat32},
                                Channels::at_least(1), Devices::kCpuOrCuda)
                        .channels;
  for (const auto* v : {&mean, &std}) {
    if (v->size() != 1 && static_cast<int64_t>(v->size()) != c) {
      throw Error(ErrorCode::kInvalidInput, op,
                  fmt::format("mean and std need 1 or {} values (one per channel), got {}", c, v->size()));
    }
  }
  m.resize(static_cast<size_t>(c));
  s.resize(static_cast<size_t>(c));
  for (int64_t i = 0; i < c; ++i) {
    m[i] = mean.size() == 1 ? mean[0] : mean[i];
    s[i] = std.size() == 1 ? std[0] : std[i];
    if (s[i] == 0.0f) throw Error(ErrorCode::kInvalidInput, op, fmt::format("std[{}] is 0", i));
  }
  const bool hwc_in = options.input_layout == Layout::kHWC;
  return {image.size(hwc_in ? 0 : 1), image.size(hwc_in ? 1 : 2)};
}

std::vector<int64_t> normalized_shape(Size size, int64_t channels, Layout layout) {
  if (layout == Layout::kHWC) return {size.height, size.width, channels};
  return {channels, size.height, size.width};
}

NormalizeJob normalize_job(const std::vector<float>& m, const std::vector<float>& s, Size size,
                           const NormalizeOptions& options) {
  const int64_t c = static_cast<int64_t>(m.size());
  NormalizeJob job;
  job.pixels = size.height * size.width;
  job.channels = static_cast<int>(c);
  job.src_interleaved = options.input_layout == Layout::kHWC && c > 1;
  job.dst_interleaved = options.output_layout == Layout::kHWC && c > 1;
  job.mean = m.data();
  job.std = s.data();
  return job;
}

#if LOOM_WITH_CUDA
// The CUDA path: `out` is on the image's device; queued on that device's current stream.
void normalize_cuda_checked(const Tensor& image, const Tensor& out, const std::vector<float>& m,
                            const std::vector<float>& s, Size size, const NormalizeOptions& options) {
  const int device = image.device().index;
  const accel::DeviceGuard guard(device);
  const accel::Stream stream = accel::current_stream(device);
  const Tensor src = contiguous_on_device(image, stream);
  DeviceUpload up;
  const size_t mean = up.add(m), std = up.add(s);
  const Tensor values = up.upload(image.device(), stream);
  NormalizeJob job = normalize_job(m, s, size, options);
  job.mean = up.at<float>(mean);
  job.std = up.at<float>(std);
  if (src.dtype() == DType::kUInt8) {
    normalize_u8_cuda(static_cast<const uint8_t*>(src.data()), static_cast<float*>(out.data()), job, stream.handle());
  } else {
    normalize_f32_cuda(static_cast<const float*>(src.data()), static_cast<float*>(out.data()), job, stream.handle());
  }
}
#endif

void normalize_checked(const Tensor& image, const Tensor& out, const std::vector<float>& m, const std::vector<float>& s,
                       Size size, const NormalizeOptions& options) {
#if LOOM_WITH_CUDA
  if (on_cuda(image)) return normalize_cuda_checked(image, out, m, s, size, options);
#endif
  const Tensor src = image.contiguous();
  const NormalizeJob job = normalize_job(m, s, size, options);
  if (src.dtype() == DType::kUInt8) {
    normalize_u8(src.data<uint8_t>(), out.data<float>(), job);
  } else {
    normalize_f32(src.data<float>(), out.data<float>(), job);
  }
}

}  // namespace

Tensor normalize(const Tensor& image, const std::vector<float>& mean, const std::vector<float>& std,
                 const NormalizeOptions& options) {
  std::vector<float> m, s;
  const Size size = check_normalize(image, mean, std, options, m, s);
  const std::vector<int64_t> shape = normalized_shape(size, static_cast<int64_t>(m.size()), options.output_layout);
#if LOOM_WITH_CUDA
  if (on_cuda(image)) {
    const accel::DeviceGuard guard(image.device().index);
    Tensor out =
        accel::empty_device(shape, DType::kFloat32, image.device(), accel::current_stream(image.device().index));
    normalize_cuda_checked(image, out, m, s, size, options);
    return out;
  }
#endif
  Tensor out = Tensor::empty(shape, DType::kFloat32);
  normalize_checked(image, out, m, s, size, options);
  return out;
}

void normalize_into(const Tensor& image, const Tensor& out, const std::vector<float>& mean,
                    const std::vector<float>& std, const NormalizeOptions& options) {
  std::vector<float> m, s;
  const Size size = check_normalize(image, mean, std, options, m, s);
  const std::vector<int64_t> shape = normalized_shape(size, static_cast<int64_t>(m.size()), options.output_layout);
  if (!out.defined() || out.device() != image.device() || out.dtype() != DType::kFloat32 || !out.is_contiguous() ||
      !std::ranges::equal(out.shape(), shape)) {
    throw Error(ErrorCode::kInvalidInput, "normalize",
                fmt::format("the output must be a contiguous float32 tensor of shape [{}] on the image's device ({})",
                            fmt::join(shape, ", "), image.device().is_cpu() ? "the CPU" : "CUDA"));
  }
  normalize_checked(image, out, m, s, size, options);
}

}  // namespace loom::transforms
