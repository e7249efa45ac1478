// The geometry ops' image side: tensors and options turned into the plans of geometry_plan.h, run by
// the kernels of geometry_kernels.h (remap.cc, warp.cc); remap_axes on a CUDA image runs the gather
// of geometry.cu.
#include "geometry/geometry_image.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>
#include <numeric>

#include "core/cuda_image.h"
#include "core/image_check.h"
#include "geometry/geometry_kernels.h"
#include "loom/codec/error.h"

#if LOOM_WITH_CUDA
#include "loom/accel/device_memory.h"
#endif

namespace loom::transforms::detail {
namespace {

template <typename T>
T fill_value(double v) {
  if constexpr (std::is_integral_v<T>) {
    v = std::clamp(v, static_cast<double>(std::numeric_limits<T>::lowest()),
                   static_cast<double>(std::numeric_limits<T>::max()));
  }
  return static_cast<T>(v);
}

// The fill as `channels` elements of the image dtype, as raw bytes.
std::vector<uint8_t> fill_bytes(const Fill& fill, DType dtype, int64_t channels) {
  check_fill(fill, channels);
  const size_t esize = element_size(dtype);
  std::vector<uint8_t> bytes(esize * static_cast<size_t>(channels));
  for (int64_t c = 0; c < channels; ++c) {
    const double v = fill.empty() ? 0.0 : fill[fill.size() == 1 ? 0 : c];
    void* dst = &bytes[c * esize];
    switch (dtype) {
      case DType::kUInt8: *static_cast<uint8_t*>(dst) = fill_value<uint8_t>(v); break;
      case DType::kInt16: *static_cast<int16_t*>(dst) = fill_value<int16_t>(v); break;
      case DType::kUInt16: *static_cast<uint16_t*>(dst) = fill_value<uint16_t>(v); break;
      case DType::kInt32: *static_cast<int32_t*>(dst) = fill_value<int32_t>(v); break;
      case DType::kInt64: *static_cast<int64_t*>(dst) = fill_value<int64_t>(v); break;
      case DType::kFloat32: *static_cast<float*>(dst) = static_cast<float>(v); break;
      case DType::kFloat64: *static_cast<double*>(dst) = v; break;
      default:
        if (v != 0.0)
          throw Error(ErrorCode::kInvalidInput, "fill", fmt::format("non-zero fill for {}", to_string(dtype)));
    }
  }
  return bytes;
}

// The warps' op side: checks, then a WarpPlan over the contiguous image; `plan` comes with its map and
// output size.
Tensor warp(const Tensor& image, Layout layout, const WarpOptions& opt, const char* op, WarpPlan plan) {
  if (opt.interpolation != Interpolation::kNearest && opt.interpolation != Interpolation::kBilinear) {
    throw Error(ErrorCode::kInvalidInput, op, "expected nearest or bilinear interpolation");
  }
  const ImageShape shape = check_image(image, layout, op, {DType::kUInt8, DType::kFloat32});
  const Tensor src = image.contiguous();
  const bool hwc = layout == Layout::kHWC;
  const int64_t channels = shape.channels;
  const Size in{shape.height, shape.width}, out = plan.out;
  check_fill(opt.fill, channels);
  std::vector<double> fill(static_cast<size_t>(channels), 0.0);
  for (int64_t k = 0; k < channels && !opt.fill.empty(); ++k) fill[k] = opt.fill[opt.fill.size() == 1 ? 0 : k];
  Tensor result = hwc ? Tensor::empty({out.height, out.width, channels}, src.dtype())
                      : Tensor::empty({channels, out.height, out.width}, src.dtype());
  plan.in = in;
  plan.channels = channels;
  plan.in_strides = hwc ? PixelStrides{channels, 1} : PixelStrides{1, in.height * in.width};
  plan.out_strides = hwc ? PixelStrides{channels, 1} : PixelStrides{1, out.height * out.width};
  plan.bilinear = opt.interpolation == Interpolation::kBilinear;
  plan.fill = opt.fill.empty() ? nullptr : fill.data();
  if (src.dtype() == DType::kUInt8) {
    warp_u8(src.data<uint8_t>(), result.data<uint8_t>(), plan);
  } else {
    warp_f32(src.data<float>(), result.data<float>(), plan);
  }
  return result;
}

#if LOOM_WITH_CUDA
// remap_axes on a CUDA image of any strides: one gather kernel on the current stream of its device.
Tensor remap_axes_cuda(const Tensor& image, Layout layout, const std::vector<int64_t>& rows,
                       const std::vector<int64_t>& cols, const Fill& fill) {
  const int device = image.device().index;
  const accel::DeviceGuard guard(device);
  const accel::Stream stream = accel::current_stream(device);
  const bool hwc = layout == Layout::kHWC;
  const int64_t channels = image_channels(image, layout);
  const int64_t out_h = static_cast<int64_t>(rows.size()), out_w = static_cast<int64_t>(cols.size());
  const std::vector<int64_t> shape =
      hwc ? std::vector<int64_t>{out_h, out_w, channels} : std::vector<int64_t>{channels, out_h, out_w};
  Tensor out = accel::empty_device(shape, image.dtype(), image.device(), stream);
  if (out.numel() == 0) return out;
  DeviceUpload up;
  const size_t row_map = up.add(rows), col_map = up.add(cols),
               fills = up.add(fill_bytes(fill, image.dtype(), channels));
  const Tensor maps = up.upload(image.device(), stream);
  GatherPlan plan;
  plan.planes = hwc ? 1 : channels;
  plan.out_height = out_h;
  plan.out_width = out_w;
  plan.pixel_elements = hwc ? channels : 1;
  plan.stride_plane = hwc ? 0 : image.stride(0);
  plan.stride_row = image.stride(hwc ? 0 : 1);
  plan.stride_col = image.stride(hwc ? 1 : 2);
  plan.stride_elem = hwc ? image.stride(2) : 0;
  plan.rows = up.at<int64_t>(row_map);
  plan.cols = up.at<int64_t>(col_map);
  plan.elem_bytes = element_size(image.dtype());
  plan.fill = up.at<uint8_t>(fills);
  gather_cuda(image.data(), out.data(), plan, stream.handle());
  return out;
}
#endif

}  // namespace

void check_fill(const Fill& fill, int64_t channels) {
  if (!fill.empty() && fill.size() != 1 && static_cast<int64_t>(fill.size()) != channels) {
    throw Error(ErrorCode::kInvalidInput, "fill",
                fmt::format("{} values for an image of {} channels", fill.size(), channels));
  }
}

Tensor remap_axes(const Tensor& image, Layout layout, const std::vector<int64_t>& rows,
                  const std::vector<int64_t>& cols, const Fill& fill) {
#if LOOM_WITH_CUDA
  if (on_cuda(image)) return remap_axes_cuda(image, layout, rows, cols, fill);
#endif
  const Tensor src = image.contiguous();
  const bool hwc = layout == Layout::kHWC;
  const int64_t channels = image_channels(src, layout);
  const Size in = image_size(src, layout);
  const int64_t out_h = static_cast<int64_t>(rows.size()), out_w = static_cast<int64_t>(cols.size());
  Tensor out =
      hwc ? Tensor::empty({out_h, out_w, channels}, src.dtype()) : Tensor::empty({channels, out_h, out_w}, src.dtype());
  const std::vector<uint8_t> fills = fill_bytes(fill, src.dtype(), channels);
  const size_t esize = element_size(src.dtype());
  const auto* s = static_cast<const uint8_t*>(src.data());
  auto* d = static_cast<uint8_t*>(out.data());
  RemapPlan plan;
  plan.src_width = in.width;
  plan.rows = rows.data();
  plan.out_height = out_h;
  plan.cols = cols.data();
  plan.out_width = out_w;
  if (hwc) {
    plan.pixel_bytes = esize * channels;
    plan.fill = fills.data();
    remap_plane(s, d, plan);
  } else {
    plan.pixel_bytes = esize;
    for (int64_t c = 0; c < channels; ++c) {
      plan.fill = &fills[c * esize];
      remap_plane(s + c * in.height * in.width * esize, d + c * out_h * out_w * esize, plan);
    }
  }
  return out;
}

std::vector<int64_t> padded_axis(int64_t n, int64_t before, int64_t after, PadMode mode) {
  if (before < 0 || after < 0) throw Error(ErrorCode::kInvalidInput, "pad", "padding must not be negative");
  if (mode == PadMode::kReflect && (before >= n || after >= n)) {
    throw Error(ErrorCode::kInvalidInput, "pad",
                fmt::format("reflect padding of {} and {} needs a side longer than both, got {}", before, after, n));
  }
  if (mode == PadMode::kSymmetric && (before > n || after > n)) {
    throw Error(ErrorCode::kInvalidInput, "pad",
                fmt::format("symmetric padding of {} and {} needs a side at least as long, got {}", before, after, n));
  }
  std::vector<int64_t> index(static_cast<size_t>(before + n + after));
  for (int64_t i = 0; i < static_cast<int64_t>(index.size()); ++i) {
    const int64_t p = i - before;  // position relative to the image
    if (p >= 0 && p < n) {
      index[i] = p;
      continue;
    }
    switch (mode) {
      case PadMode::kConstant: index[i] = -1; break;
      case PadMode::kEdge: index[i] = std::clamp<int64_t>(p, 0, n - 1); break;
      case PadMode::kReflect: index[i] = p < 0 ? -p : 2 * (n - 1) - p; break;
      case PadMode::kSymmetric: index[i] = p < 0 ? -p - 1 : 2 * n - 1 - p; break;
    }
  }
  return index;
}

std::vector<int64_t> identity_axis(int64_t n) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  return v;
}

std::vector<int64_t> reversed_axis(int64_t n) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = n - 1 - i;
  return v;
}

Tensor rotate90(const Tensor& image, Layout layout, int k) {
  k = ((k % 4) + 4) % 4;
  const bool hwc = layout == Layout::kHWC;
  const int hdim = hwc ? 0 : 1, wdim = hwc ? 1 : 2;
  if (k == 0) return image.clone();
  if (k == 2) return remap_axes(image, layout, reversed_axis(image.size(hdim)), reversed_axis(image.size(wdim)), {});
  // k = 1 (counter-clockwise): out(y, x) = in(x, w - 1 - y); k = 3: out(y, x) = in(h - 1 - x, y). Both
  // are a transpose view with one axis reversed (rows for k = 1, columns for k = 3), copied once.
  const std::array<int, 3> order = hwc ? std::array<int, 3>{1, 0, 2} : std::array<int, 3>{0, 2, 1};
  const Tensor transposed = image.permute(order);  // axes now (w, h)
  const int flip = k == 1 ? hdim : wdim;
  return transposed.slice(flip, -1, -transposed.size(flip) - 1, -1).clone();
}

Tensor warp_affine(const Tensor& image, Layout layout, const AffineMatrix& inverse, Size out, const WarpOptions& opt,
                   const char* op) {
  WarpPlan plan;
  plan.map = WarpMap::kAffine;
  std::copy(inverse.begin(), inverse.end(), plan.coeffs);
  plan.out = out;
  return warp(image, layout, opt, op, plan);
}

Tensor warp_perspective(const Tensor& image, Layout layout, const std::array<double, 8>& coeffs, const WarpOptions& opt,
                        const char* op) {
  WarpPlan plan;
  plan.map = WarpMap::kPerspective;
  std::copy(coeffs.begin(), coeffs.end(), plan.coeffs);
  const ImageShape shape = image_shape(image, layout, op);
  plan.out = {shape.height, shape.width};
  return warp(image, layout, opt, op, plan);
}

}  // namespace loom::transforms::detail
