// The resize op: checks the image, builds the plan (per axis a window [start, start + count) of input
// indices with weights that sum to 1, resize_coefficients.h), picks the order of the two separable
// passes and their kernels (fast or pillow_exact) and runs them: the Highway kernels of resize_hwy.cc
// for uint8, the scalar passes of resize_kernels.h for uint16 and float32. A CUDA image runs the
// same plan through the CUDA twins of the scalar passes (resize.cu): the same bits as on the CPU.
#include "loom/transforms/resize.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <memory>
#include <numeric>
#include <type_traits>
#include <vector>

#include "core/cuda_image.h"
#include "core/image_check.h"
#include "loom/accel/interleave.h"
#include "loom/codec/error.h"
#include "resize/resize_coefficients.h"
#include "resize/resize_kernels.h"

#if LOOM_WITH_CUDA
#include "loom/accel/cuda.h"
#include "loom/accel/device_memory.h"
#endif

namespace loom::transforms {
namespace {

// Uninitialized memory for one intermediate image, lent from a per-thread buffer that later calls
// reuse: no zero-filling and, once the thread has resized an image of that size, no fresh pages to
// fault in (those took a quarter of a 1080p resize). Each slot is one buffer per thread; a lease of
// more than kKeptScratchBytes gets a buffer of its own, freed when the lease ends.
constexpr size_t kKeptScratchBytes = size_t{32} << 20;

template <typename T>
class ScratchLease {
 public:
  enum Slot { kPassOutput, kPlanes, kPixels, kPixelsOut, kTiles, kSlots };

  ScratchLease(Slot slot, size_t count) {
    const size_t bytes = count * sizeof(T);
    if (bytes > kKeptScratchBytes) {
      own_ = std::make_unique_for_overwrite<unsigned char[]>(bytes);
      data_ = reinterpret_cast<T*>(own_.get());
      return;
    }
    thread_local std::array<Buffer, kSlots> buffers;
    Buffer& b = buffers[slot];
    if (b.bytes < bytes) {
      b.memory = std::make_unique_for_overwrite<unsigned char[]>(bytes);
      b.bytes = bytes;
    }
    data_ = reinterpret_cast<T*>(b.memory.get());
  }
  T* data() const { return data_; }

 private:
  struct Buffer {
    std::unique_ptr<unsigned char[]> memory;
    size_t bytes = 0;
  };
  std::unique_ptr<unsigned char[]> own_;
  T* data_ = nullptr;
};

// What a multiply of the fast uint8 horizontal kernel costs against one of the fast vertical kernel:
// 1.8 on AVX2 and 2.6 on AVX-512 for the single passes of a 1920x1080 RGB image to 224x1080 and to
// 1920x224 (bench/resize_bench.cc, whose sizes multiply about as often).
constexpr double kHorizontalCostU8 = 2.0;

// The horizontal pass over `rows` rows and the vertical pass (resize_kernels.h) of the exact
// arithmetic: the Highway kernels for uint8 (Pillow's), the scalar ones otherwise.
template <typename T>
void run_horizontal_pass(const T* src, int64_t in_w, T* dst, int64_t out_w, int64_t rows, int channels,
                         const AxisWeights& c) {
  if constexpr (std::is_same_v<T, uint8_t>) {
    resample_rows_u8(src, in_w, dst, out_w, rows, channels, c);
  } else {
    resample_rows(src, in_w, dst, out_w, rows, channels, c);
  }
}

template <typename T>
void run_vertical_pass(const T* src, T* dst, int64_t len, const AxisWeights& c) {
  if constexpr (std::is_same_v<T, uint8_t>) {
    resample_columns_u8(src, dst, len, c);
  } else {
    resample_columns(src, dst, len, c);
  }
}

// The multiply counts of the two orders, counting a multiply of the horizontal pass as
// `horizontal_cost` of the vertical pass's (whose contiguous rows fill whole vectors, where the
// horizontal pass reads a window per output pixel): true when vertical first does less work.
bool vertical_first_is_cheaper(int64_t in_w, int64_t out_h, int64_t out_w, const Coefficients& vertical,
                               const Coefficients& horizontal, double horizontal_cost) {
  const auto taps = [](const Coefficients& c) {
    return static_cast<double>(std::accumulate(c.count.begin(), c.count.end(), int64_t{0}));
  };
  const int64_t rows_read = vertical.start.back() + vertical.count.back() - vertical.start.front();
  const double horizontal_first = rows_read * taps(horizontal) * horizontal_cost + out_w * taps(vertical);
  const double vertical_first = in_w * taps(vertical) + out_h * taps(horizontal) * horizontal_cost;
  return vertical_first < horizontal_first;
}

// The two passes of one resize, their order and their kernels.
struct PassPlan {
  bool horizontal = false, vertical = false;  // a pass whose size does not change is skipped
  bool vertical_first = false;
  bool fast = false;  // uint8: the 16-bit kernels
};

template <typename T>
PassPlan plan_passes(int64_t in_h, int64_t in_w, int64_t out_h, int64_t out_w, const Coefficients& vertical,
                     const Coefficients& horizontal, const ResizeOptions& opt) {
  PassPlan plan{in_w != out_w, in_h != out_h};
  // uint8 bicubic clamps its overshoot between the passes (as Pillow), so its order and arithmetic
  // stay Pillow's; its negative lobes would also leave the 16-bit kernel's range.
  const bool pillow = opt.pillow_exact || (std::is_same_v<T, uint8_t> && opt.interpolation == Interpolation::kBicubic);
  plan.vertical_first = plan.horizontal && plan.vertical && !pillow &&
                        vertical_first_is_cheaper(in_w, out_h, out_w, vertical, horizontal,
                                                  std::is_same_v<T, uint8_t> ? kHorizontalCostU8 : 1.0);
  plan.fast = std::is_same_v<T, uint8_t> && !pillow;
  return plan;
}

// The weights the plan's uint8 kernels read (uint16 and float32 read w): the fast ones, or Pillow's.
template <typename T>
void add_kernel_weights(Coefficients& vertical, Coefficients& horizontal, const PassPlan& plan) {
  if constexpr (std::is_same_v<T, uint8_t>) {
    if (plan.fast) {
      add_fast_column_weights(vertical);
      add_fast_row_weights(horizontal);
    } else {
      add_fixed_weights(vertical);
      add_fixed_weights(horizontal);
    }
  }
}

// Resizes a contiguous H x W x C (channels interleaved) image with the weights of each axis (built
// once per image: a CHW image runs this once per channel with the same weights) in the plan's order.
template <typename T>
void resize_interleaved(const T* src, int64_t in_h, int64_t in_w, T* dst, int64_t out_h, int64_t out_w, int channels,
                        const Coefficients& vertical, const Coefficients& horizontal, const PassPlan& plan) {
  const size_t row = static_cast<size_t>(out_w) * channels;
  if (!plan.horizontal && !plan.vertical) {
    std::copy(src, src + row * out_h, dst);
    return;
  }
  if (plan.vertical_first) {
    const ScratchLease<T> tmp(ScratchLease<T>::kPassOutput, static_cast<size_t>(out_h * in_w * channels));
    run_vertical_pass(src, tmp.data(), in_w * channels, vertical.weights());
    run_horizontal_pass(tmp.data(), in_w, dst, out_w, out_h, channels, horizontal.weights());
    return;
  }
  // Horizontal first, on only the rows the vertical pass will read (as Pillow).
  const int64_t row_lo = plan.vertical ? vertical.start.front() : 0;
  const int64_t row_hi = plan.vertical ? vertical.start.back() + vertical.count.back() : in_h;
  const T* rows = src + row_lo * in_w * channels;
  const ScratchLease<T> tmp(ScratchLease<T>::kPassOutput, plan.vertical ? row * (row_hi - row_lo) : 0);
  if (plan.horizontal) {
    T* out = plan.vertical ? tmp.data() : dst;
    run_horizontal_pass(rows, in_w, out, out_w, row_hi - row_lo, channels, horizontal.weights());
    if (!plan.vertical) return;
    rows = tmp.data();
  }
  // The vertical windows, relative to the first row read.
  std::vector<int> start = vertical.start;
  for (int& s : start) s -= static_cast<int>(row_lo);
  AxisWeights rows_weights = vertical.weights();
  rows_weights.start = start.data();
  run_vertical_pass(rows, dst, static_cast<int64_t>(row), rows_weights);
}

// A uint8 CHW image of 2 to 4 channels with a horizontal pass: resized as interleaved pixels, whose
// horizontal windows fill whole vectors where a plane's one-channel windows would reduce a vector per
// output sample. The planes are interleaved where the image is smallest (after a vertical pass that
// runs first) and the result is split into planes again; every channel's sums are the same integers
// as plane by plane, so the bytes are too.
void resize_planes_interleaved(const uint8_t* src, int64_t in_h, int64_t in_w, uint8_t* dst, int64_t out_h,
                               int64_t out_w, int channels, const Coefficients& vertical,
                               const Coefficients& horizontal, const PassPlan& plan) {
  const auto planes_of = [channels](auto* base, int64_t plane_size) {
    std::array<decltype(base), 4> planes{};
    for (int c = 0; c < channels; ++c) planes[c] = base + c * plane_size;
    return planes;
  };
  // The interleaved input of the horizontal pass: the vertical pass's planes, or the image.
  int64_t rows = in_h;
  using Scratch = ScratchLease<uint8_t>;
  const Scratch vertical_out(Scratch::kPlanes, plan.vertical_first ? static_cast<size_t>(channels * out_h * in_w) : 0);
  const uint8_t* planar = src;
  PassPlan rest = plan;
  if (plan.vertical_first) {
    for (int c = 0; c < channels; ++c) {
      run_vertical_pass(src + c * in_h * in_w, vertical_out.data() + c * out_h * in_w, in_w, vertical.weights());
    }
    planar = vertical_out.data();
    rows = out_h;
    rest = PassPlan{/*horizontal=*/true, /*vertical=*/false, /*vertical_first=*/false, plan.fast};
  }
  const Scratch pixels(Scratch::kPixels, static_cast<size_t>(rows * in_w * channels));
  accel::interleave(planes_of(planar, rows * in_w).data(), static_cast<size_t>(rows * in_w), channels, pixels.data());
  const Scratch out(Scratch::kPixelsOut, static_cast<size_t>(out_h * out_w * channels));
  resize_interleaved(pixels.data(), rows, in_w, out.data(), out_h, out_w, channels, vertical, horizontal, rest);
  accel::deinterleave(out.data(), static_cast<size_t>(out_h * out_w), channels, planes_of(dst, out_h * out_w).data());
}

// The fast uint8 resize (plan.fast) of an image of `channels` channels, interleaved (HWC) or planar
// (CHW): both layouts run the same kernels on the same samples, so they give the same bytes. The
// vertical pass runs along whole rows (a plane at a time when planar); the horizontal pass reads and
// writes either layout (resample_rows_u8_fast).
void resize_u8_fast(const uint8_t* src, int64_t in_h, int64_t in_w, uint8_t* dst, int64_t out_h, int64_t out_w,
                    int channels, bool planar, const Coefficients& vertical, const Coefficients& horizontal,
                    const PassPlan& plan) {
  // The strides of an image of `rows` rows of `width` pixels, in the layout of this resize.
  const auto strides = [&](int64_t rows, int64_t width) {
    return planar ? ImageStrides{width, 1, rows * width} : ImageStrides{width * channels, channels, 1};
  };
  // The vertical pass of `weights` over an image `width` pixels wide whose planes hold `in_rows`
  // rows, into planes of `out_rows` rows.
  const auto vertical_pass = [&](const uint8_t* from, int64_t in_rows, uint8_t* to, int64_t out_rows, int64_t width,
                                 const AxisWeights& weights) {
    if (!planar) return resample_columns_u8_fast(from, to, width * channels, weights);
    for (int c = 0; c < channels; ++c) {
      resample_columns_u8_fast(from + c * in_rows * width, to + c * out_rows * width, width, weights);
    }
  };
  const auto horizontal_pass = [&](const uint8_t* from, ImageStrides from_strides, uint8_t* to, int64_t rows) {
    const ScratchLease<uint8_t> scratch(ScratchLease<uint8_t>::kTiles,
                                        resample_rows_u8_fast_scratch(in_w, out_w, channels));
    resample_rows_u8_fast(from, from_strides, in_w, to, strides(rows, out_w), out_w, rows, channels,
                          horizontal.weights(), scratch.data());
  };
  if (!plan.horizontal && !plan.vertical) {
    std::copy(src, src + out_h * out_w * channels, dst);
    return;
  }
  if (!plan.horizontal || plan.vertical_first) {
    using Scratch = ScratchLease<uint8_t>;
    const Scratch tmp(Scratch::kPassOutput, plan.horizontal ? static_cast<size_t>(out_h * in_w * channels) : 0);
    uint8_t* to = plan.horizontal ? tmp.data() : dst;
    vertical_pass(src, in_h, to, out_h, in_w, vertical.weights());
    if (plan.horizontal) horizontal_pass(to, strides(out_h, in_w), dst, out_h);
    return;
  }
  // Horizontal first, on only the rows the vertical pass will read (as Pillow).
  const int64_t row_lo = plan.vertical ? vertical.start.front() : 0;
  const int64_t row_hi = plan.vertical ? vertical.start.back() + vertical.count.back() : in_h;
  const int64_t rows = row_hi - row_lo;
  const ImageStrides in = strides(in_h, in_w);
  const ScratchLease<uint8_t> tmp(ScratchLease<uint8_t>::kPassOutput,
                                  plan.vertical ? static_cast<size_t>(rows * out_w * channels) : 0);
  horizontal_pass(src + row_lo * in.row, in, plan.vertical ? tmp.data() : dst, rows);
  if (!plan.vertical) return;
  // The vertical windows, relative to the first row read.
  std::vector<int> start = vertical.start;
  for (int& s : start) s -= static_cast<int>(row_lo);
  AxisWeights rows_weights = vertical.weights();
  rows_weights.start = start.data();
  vertical_pass(tmp.data(), rows, dst, out_h, out_w, rows_weights);
}

template <typename T>
Tensor resize_typed(const Tensor& image, Size size, const ResizeOptions& opt) {
  const bool hwc = opt.layout == Layout::kHWC;
  const Tensor src = image.contiguous();
  const int64_t channels = image.size(hwc ? 2 : 0);
  const int64_t in_h = image.size(hwc ? 0 : 1), in_w = image.size(hwc ? 1 : 2);
  Tensor out = hwc ? Tensor::empty({size.height, size.width, channels}, image.dtype())
                   : Tensor::empty({channels, size.height, size.width}, image.dtype());
  const T* in = src.data<T>();
  T* dst = out.data<T>();
  Coefficients vertical = axis_coefficients(in_h, size.height, opt);
  Coefficients horizontal = axis_coefficients(in_w, size.width, opt);
  const PassPlan plan = plan_passes<T>(in_h, in_w, size.height, size.width, vertical, horizontal, opt);
  add_kernel_weights<T>(vertical, horizontal, plan);
  const int c = static_cast<int>(channels);
  if constexpr (std::is_same_v<T, uint8_t>) {
    if (plan.fast) {
      resize_u8_fast(in, in_h, in_w, dst, size.height, size.width, c, !hwc, vertical, horizontal, plan);
      return out;
    }
  }
  if (hwc || channels == 1) {
    resize_interleaved(in, in_h, in_w, dst, size.height, size.width, c, vertical, horizontal, plan);
    return out;
  }
  if constexpr (std::is_same_v<T, uint8_t>) {
    if (plan.horizontal) {
      resize_planes_interleaved(in, in_h, in_w, dst, size.height, size.width, c, vertical, horizontal, plan);
      return out;
    }
  }
  for (int64_t p = 0; p < channels; ++p) {
    resize_interleaved(in + p * in_h * in_w, in_h, in_w, dst + p * size.height * size.width, size.height, size.width, 1,
                       vertical, horizontal, plan);
  }
  return out;
}

#if LOOM_WITH_CUDA
// One axis' weights gathered for upload: start (relative to `first`), count and the weights its pass
// reads (uint16 and float32: w; uint8: fixed, or the fast kernels' w16 for a horizontal pass and u16
// for a vertical one).
struct AxisUpload {
  enum Weights { kDouble, kFixed, kW16, kU16 };
  int64_t size = 0;
  int taps = 0, w16_bits = 0;
  size_t start = 0, count = 0, weights = 0;
  Weights kind = kDouble;

  AxisUpload(DeviceUpload& up, const Coefficients& c, int first, Weights k)
      : size(static_cast<int64_t>(c.start.size())), taps(c.taps), w16_bits(c.w16_bits), kind(k) {
    std::vector<int> relative = c.start;
    for (int& v : relative) v -= first;
    start = up.add(relative);
    count = up.add(c.count);
    switch (kind) {
      case kDouble: weights = up.add(c.w); break;
      case kFixed: weights = up.add(c.fixed); break;
      case kW16: weights = up.add(c.w16); break;
      case kU16: weights = up.add(c.u16); break;
    }
  }
  AxisWeights on_device(const DeviceUpload& up) const {
    AxisWeights a;
    a.size = size;
    a.taps = taps;
    a.start = up.at<int>(start);
    a.count = up.at<int>(count);
    a.w16_bits = w16_bits;
    switch (kind) {
      case kDouble: a.w = up.at<double>(weights); break;
      case kFixed: a.fixed = up.at<int32_t>(weights); break;
      case kW16: a.w16 = up.at<int16_t>(weights); break;
      case kU16: a.u16 = up.at<uint16_t>(weights); break;
    }
    return a;
  }
};

// The CUDA path: the CPU's plan (plan_passes: the pass order, and for uint8 the fast kernels unless
// pillow_exact or bicubic) and the CPU's arithmetic, so the same bits as the CPU. Each pass is one
// kernel over every plane (CHW: the channels as 1-channel planes; HWC: one plane of interleaved
// channels) through a device intermediate, queued on the current stream of the image's device.
template <typename T>
Tensor resize_cuda_typed(const Tensor& image, Size size, const ResizeOptions& opt) {
  const int device = image.device().index;
  const accel::DeviceGuard guard(device);
  const accel::Stream stream = accel::current_stream(device);
  const Tensor src = contiguous_on_device(image, stream);
  const bool hwc = opt.layout == Layout::kHWC;
  const int64_t channels = image.size(hwc ? 2 : 0);
  const int64_t in_h = image.size(hwc ? 0 : 1), in_w = image.size(hwc ? 1 : 2);
  const int64_t out_h = size.height, out_w = size.width;
  const std::vector<int64_t> shape =
      hwc ? std::vector<int64_t>{out_h, out_w, channels} : std::vector<int64_t>{channels, out_h, out_w};
  Tensor out = accel::empty_device(shape, image.dtype(), image.device(), stream);
  Coefficients vc = axis_coefficients(in_h, out_h, opt);
  Coefficients hc = axis_coefficients(in_w, out_w, opt);
  const PassPlan plan = plan_passes<T>(in_h, in_w, out_h, out_w, vc, hc, opt);
  if (!plan.horizontal && !plan.vertical) {
    accel::copy_into(src, out, stream);
    return out;
  }
  add_kernel_weights<T>(vc, hc, plan);
  constexpr bool u8 = std::is_same_v<T, uint8_t>;
  // Horizontal first reads only the rows the vertical pass needs: the vertical windows then start
  // at the first of them.
  const bool rows_first = !plan.vertical_first;
  const int row_lo = plan.vertical && rows_first ? vc.start.front() : 0;
  const int64_t row_hi = plan.vertical && rows_first ? vc.start.back() + vc.count.back() : in_h;
  DeviceUpload up;
  const AxisUpload hu(up, hc, 0, !u8 ? AxisUpload::kDouble : plan.fast ? AxisUpload::kW16 : AxisUpload::kFixed);
  const AxisUpload vu(up, vc, row_lo, !u8 ? AxisUpload::kDouble : plan.fast ? AxisUpload::kU16 : AxisUpload::kFixed);
  const Tensor weights = up.upload(image.device(), stream);
  const AxisWeights hw = hu.on_device(up), vw = vu.on_device(up);
  // Planes and their interleaved channels: CHW images are `channels` planes of 1 channel.
  const int64_t planes = hwc ? 1 : channels;
  const int c = hwc ? static_cast<int>(channels) : 1;
  const T* in = static_cast<const T*>(src.data());
  T* dst = static_cast<T*>(out.data());
  const int64_t in_plane = in_h * in_w * c, out_plane = out_h * out_w * c;
  void* s = stream.handle();
  if (!plan.vertical) {
    resample_rows_cuda(in, in_plane, in_w, dst, out_plane, out_w, in_h, planes, c, hw, plan.fast, s);
    return out;
  }
  if (!plan.horizontal) {
    resample_columns_cuda(in + row_lo * in_w * c, in_plane, dst, out_plane, in_w * c, planes, vw, plan.fast, s);
    return out;
  }
  if (plan.vertical_first) {
    const int64_t tmp_plane = out_h * in_w * c;
    const Tensor tmp = accel::empty_device({planes * tmp_plane}, image.dtype(), image.device(), stream);
    T* mid = static_cast<T*>(tmp.data());
    resample_columns_cuda(in, in_plane, mid, tmp_plane, in_w * c, planes, vw, plan.fast, s);
    resample_rows_cuda<T>(mid, tmp_plane, in_w, dst, out_plane, out_w, out_h, planes, c, hw, plan.fast, s);
    return out;
  }
  const int64_t rows = row_hi - row_lo, tmp_plane = rows * out_w * c;
  const Tensor tmp = accel::empty_device({planes * tmp_plane}, image.dtype(), image.device(), stream);
  T* mid = static_cast<T*>(tmp.data());
  resample_rows_cuda(in + row_lo * in_w * c, in_plane, in_w, mid, tmp_plane, out_w, rows, planes, c, hw, plan.fast, s);
  resample_columns_cuda<T>(mid, tmp_plane, dst, out_plane, out_w * c, planes, vw, plan.fast, s);
  return out;
}
#endif

}  // namespace

Size size_for_shorter_side(Size in, int64_t shorter) {
  if (in.height <= 0 || in.width <= 0 || shorter <= 0) {
    throw Error(ErrorCode::kInvalidInput, "resize",
                fmt::format("cannot fit {}x{} to a shorter side of {}", in.width, in.height, shorter));
  }
  if (in.width <= in.height) {
    return {std::max<int64_t>(1, static_cast<int64_t>(static_cast<double>(shorter) * in.height / in.width)), shorter};
  }
  return {shorter, std::max<int64_t>(1, static_cast<int64_t>(static_cast<double>(shorter) * in.width / in.height))};
}

Tensor resize(const Tensor& image, Size size, const ResizeOptions& opt) {
  const ImageShape in = check_image(image, opt.layout, "resize", {DType::kUInt8, DType::kUInt16, DType::kFloat32},
                                    {1, 2, 3, 4}, Devices::kCpuOrCuda);
  if (in.height == 0 || in.width == 0) {
    throw Error(ErrorCode::kInvalidInput, "resize",
                fmt::format("expected a non-empty image, got {}x{}", in.width, in.height));
  }
  if (size.height <= 0 || size.width <= 0) {
    throw Error(ErrorCode::kInvalidInput, "resize",
                fmt::format("expected a positive output size, got {}x{}", size.width, size.height));
  }
#if LOOM_WITH_CUDA
  if (on_cuda(image)) {
    switch (image.dtype()) {
      case DType::kUInt8: return resize_cuda_typed<uint8_t>(image, size, opt);
      case DType::kUInt16: return resize_cuda_typed<uint16_t>(image, size, opt);
      default: return resize_cuda_typed<float>(image, size, opt);
    }
  }
#endif
  switch (image.dtype()) {
    case DType::kUInt8: return resize_typed<uint8_t>(image, size, opt);
    case DType::kUInt16: return resize_typed<uint16_t>(image, size, opt);
    default: return resize_typed<float>(image, size, opt);
  }
}

}  // namespace loom::transforms
