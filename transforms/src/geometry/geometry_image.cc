#include "geometry/geometry_image.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>

#include "loom/codec/error.h"

namespace loom::transforms::detail {
namespace {

template <typename T>
T fill_value(double v) {
  if constexpr (std::is_integral_v<T>) {
    v = std::clamp(v, static_cast<double>(std::numeric_limits<T>::lowest()), static_cast<double>(std::numeric_limits<T>::max()));
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
        if (v != 0.0) throw Error(ErrorCode::kInvalidInput, "fill", fmt::format("non-zero fill for {}", to_string(dtype)));
    }
  }
  return bytes;
}

// A column map as runs: `length` output pixels from `start` reading source columns src, src + step,
// ... (step +1: a crop or a pad's middle; -1: a flip; 0: a fill run or one pixel of a reflection).
struct Run {
  int64_t start, length, src, step;  // src < 0: fill
};

std::vector<Run> column_runs(const std::vector<int64_t>& cols) {
  std::vector<Run> runs;
  for (int64_t x = 0; x < static_cast<int64_t>(cols.size());) {
    const int64_t src = cols[x];
    int64_t step = 0, n = 1;
    if (x + 1 < static_cast<int64_t>(cols.size())) {
      const int64_t d = cols[x + 1] - src;
      if (src < 0 && cols[x + 1] < 0) {
        step = 0;
      } else if (src >= 0 && cols[x + 1] >= 0 && (d == 1 || d == -1)) {
        step = d;
      } else {
        runs.push_back({x, 1, src, 0});
        ++x;
        continue;
      }
      while (x + n < static_cast<int64_t>(cols.size()) &&
             (src < 0 ? cols[x + n] < 0 : cols[x + n] >= 0 && cols[x + n] == src + step * n)) {
        ++n;
      }
    }
    runs.push_back({x, n, src, step});
    x += n;
  }
  return runs;
}

// Copies n pixels of P bytes from in, in - P, in - 2P, ... (a mirrored run).
template <size_t P>
void copy_reversed(uint8_t* out, const uint8_t* in_first, int64_t n) {
  if constexpr (P == 1) {
    // Eight bytes at a time: a byte swap reverses them.
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
      uint64_t v;
      std::memcpy(&v, in_first - i - 7, 8);
      v = __builtin_bswap64(v);
      std::memcpy(out + i, &v, 8);
    }
    for (; i < n; ++i) out[i] = in_first[-i];
  } else {
    for (int64_t i = 0; i < n; ++i) std::memcpy(out + i * P, in_first - i * P, P);
  }
}

template <size_t P>
void fill_pixels(uint8_t* out, const uint8_t* fill, int64_t n) {
  for (int64_t i = 0; i < n; ++i) std::memcpy(out + i * P, fill, P);
}

// One plane of P bytes per pixel (P a compile-time size for the common pixels, so that every copy is
// inlined): out(y, x) = in(rows[y], cols[x]) run by run.
template <size_t P>
void remap_plane_fixed(const uint8_t* src, int64_t src_w, uint8_t* dst, const std::vector<int64_t>& rows,
                       const std::vector<Run>& runs, int64_t out_w, const uint8_t* fill) {
  for (int64_t y = 0; y < static_cast<int64_t>(rows.size()); ++y) {
    uint8_t* out = dst + y * out_w * P;
    if (rows[y] < 0) {
      fill_pixels<P>(out, fill, out_w);
      continue;
    }
    const uint8_t* in = src + rows[y] * src_w * P;
    for (const Run& r : runs) {
      uint8_t* o = out + r.start * P;
      if (r.src < 0) {
        fill_pixels<P>(o, fill, r.length);
      } else if (r.step == -1) {
        copy_reversed<P>(o, in + r.src * P, r.length);
      } else {
        std::memcpy(o, in + r.src * P, static_cast<size_t>(r.length) * P);  // step +1, or one pixel
      }
    }
  }
}

void remap_plane(const uint8_t* src, int64_t src_w, uint8_t* dst, const std::vector<int64_t>& rows,
                 const std::vector<int64_t>& cols, size_t pixel, const uint8_t* fill) {
  const std::vector<Run> runs = column_runs(cols);
  const int64_t w = static_cast<int64_t>(cols.size());
  switch (pixel) {
    case 1: return remap_plane_fixed<1>(src, src_w, dst, rows, runs, w, fill);
    case 2: return remap_plane_fixed<2>(src, src_w, dst, rows, runs, w, fill);
    case 3: return remap_plane_fixed<3>(src, src_w, dst, rows, runs, w, fill);
    case 4: return remap_plane_fixed<4>(src, src_w, dst, rows, runs, w, fill);
    case 8: return remap_plane_fixed<8>(src, src_w, dst, rows, runs, w, fill);
    case 12: return remap_plane_fixed<12>(src, src_w, dst, rows, runs, w, fill);
    case 16: return remap_plane_fixed<16>(src, src_w, dst, rows, runs, w, fill);
    default: break;
  }
  // Other pixel sizes (many channels or wide types): the same runs, a run-time size.
  for (int64_t y = 0; y < static_cast<int64_t>(rows.size()); ++y) {
    uint8_t* out = dst + y * w * pixel;
    const uint8_t* in = rows[y] < 0 ? nullptr : src + rows[y] * src_w * pixel;
    for (int64_t x = 0; x < w; ++x) {
      std::memcpy(out + x * pixel, in && cols[x] >= 0 ? in + cols[x] * pixel : fill, pixel);
    }
  }
}

}  // namespace

void check_fill(const Fill& fill, int64_t channels) {
  if (!fill.empty() && fill.size() != 1 && static_cast<int64_t>(fill.size()) != channels) {
    throw Error(ErrorCode::kInvalidInput, "fill", fmt::format("{} values for an image of {} channels", fill.size(), channels));
  }
}

Tensor remap_axes(const Tensor& image, Layout layout, const std::vector<int64_t>& rows,
                  const std::vector<int64_t>& cols, const Fill& fill) {
  const Tensor src = image.contiguous();
  const bool hwc = layout == Layout::kHWC;
  const int64_t channels = image_channels(src, layout);
  const Size in = image_size(src, layout);
  const int64_t out_h = static_cast<int64_t>(rows.size()), out_w = static_cast<int64_t>(cols.size());
  Tensor out = hwc ? Tensor::empty({out_h, out_w, channels}, src.dtype()) : Tensor::empty({channels, out_h, out_w}, src.dtype());
  const std::vector<uint8_t> fills = fill_bytes(fill, src.dtype(), channels);
  const size_t esize = element_size(src.dtype());
  const auto* s = static_cast<const uint8_t*>(src.data());
  auto* d = static_cast<uint8_t*>(out.data());
  if (hwc) {
    remap_plane(s, in.width, d, rows, cols, esize * channels, fills.data());
  } else {
    for (int64_t c = 0; c < channels; ++c) {
      remap_plane(s + c * in.height * in.width * esize, in.width, d + c * out_h * out_w * esize, rows, cols, esize,
                  &fills[c * esize]);
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

}  // namespace loom::transforms::detail
