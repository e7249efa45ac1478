#include "geometry_image.h"

#include <fmt/format.h>

#include <algorithm>
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
  if (!fill.empty() && fill.size() != 1 && static_cast<int64_t>(fill.size()) != channels) {
    throw Error(ErrorCode::kInvalidInput, "fill", fmt::format("{} values for an image of {} channels", fill.size(), channels));
  }
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

// One plane of `pixel` bytes per pixel: remaps rows and columns.
void remap_plane(const uint8_t* src, int64_t src_w, uint8_t* dst, const std::vector<int64_t>& rows,
                 const std::vector<int64_t>& cols, size_t pixel, const uint8_t* fill) {
  const int64_t out_w = static_cast<int64_t>(cols.size());
  // Runs of source columns with step +1 (crop, the middle of a pad) or -1 (a horizontal flip) copy
  // without per-pixel index lookups.
  auto all_steps = [&](int64_t step) {
    for (int64_t x = 0; x < out_w; ++x) {
      if (cols[x] < 0 || cols[x] != cols[0] + step * x) return false;
    }
    return true;
  };
  const bool identity_cols = all_steps(1), reversed_cols = !identity_cols && all_steps(-1);
  for (int64_t y = 0; y < static_cast<int64_t>(rows.size()); ++y) {
    uint8_t* out = dst + y * out_w * pixel;
    if (rows[y] < 0) {
      for (int64_t x = 0; x < out_w; ++x) std::memcpy(out + x * pixel, fill, pixel);
      continue;
    }
    const uint8_t* in = src + rows[y] * src_w * pixel;
    if (identity_cols) {
      std::memcpy(out, in + cols[0] * pixel, out_w * pixel);
      continue;
    }
    if (reversed_cols && pixel == 1) {
      std::reverse_copy(in + cols[out_w - 1], in + cols[0] + 1, out);
      continue;
    }
    for (int64_t x = 0; x < out_w; ++x) {
      std::memcpy(out + x * pixel, cols[x] < 0 ? fill : in + cols[x] * pixel, pixel);
    }
  }
}

}  // namespace

Tensor remap_axes(const Tensor& image, vision::Layout layout, const std::vector<int64_t>& rows,
                  const std::vector<int64_t>& cols, const Fill& fill) {
  const Tensor src = image.contiguous();
  const bool hwc = layout == vision::Layout::kHWC;
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

Tensor rotate90(const Tensor& image, vision::Layout layout, int k) {
  k = ((k % 4) + 4) % 4;
  const bool hwc = layout == vision::Layout::kHWC;
  const int hdim = hwc ? 0 : 1, wdim = hwc ? 1 : 2;
  const int64_t h = image.size(hdim), w = image.size(wdim);
  if (k == 0) return image.clone();
  if (k == 2) {
    std::vector<int64_t> rows(h), cols(w);
    for (int64_t i = 0; i < h; ++i) rows[i] = h - 1 - i;
    for (int64_t i = 0; i < w; ++i) cols[i] = w - 1 - i;
    return remap_axes(image, layout, rows, cols, {});
  }
  // k = 1 (counter-clockwise): out(y, x) = in(x, w - 1 - y); k = 3: out(y, x) = in(h - 1 - x, y). Both
  // are a transpose view plus one flip, copied once.
  std::array<int, 3> order = hwc ? std::array<int, 3>{1, 0, 2} : std::array<int, 3>{0, 2, 1};
  Tensor transposed = image.permute(order);  // axes now (w, h)
  const int64_t rows = w, cols = h;
  std::vector<int64_t> row_map(rows), col_map(cols);
  std::iota(row_map.begin(), row_map.end(), 0);
  std::iota(col_map.begin(), col_map.end(), 0);
  if (k == 1) {
    std::reverse(row_map.begin(), row_map.end());
  } else {
    std::reverse(col_map.begin(), col_map.end());
  }
  return remap_axes(transposed.contiguous(), layout, row_map, col_map, {});
}

}  // namespace loom::transforms::detail
