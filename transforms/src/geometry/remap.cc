// The remap kernel (geometry_kernels.h): out(y, x) = in(rows[y], cols[x]) one output row at a time,
// the column map split once into runs (forward copies, mirrored copies, fills) so that each run is one
// memcpy, one reversed copy (long ones by reverse_hwy.cc) or one fill (a memcpy from a row of fill
// pixels).
#include <algorithm>
#include <cstring>
#include <vector>

#include "geometry/geometry_kernels.h"

namespace loom::transforms::detail {
namespace {

// A column map as runs: `length` output pixels from `start` reading source columns src, src + step,
// ... (step +1: a crop or a pad's middle; -1: a flip; 0: a fill run or one pixel of a reflection).
struct Run {
  int64_t start, length, src, step;  // src < 0: fill
};

std::vector<Run> column_runs(const int64_t* cols, int64_t width) {
  std::vector<Run> runs;
  for (int64_t x = 0; x < width;) {
    const int64_t src = cols[x];
    int64_t step = 0, n = 1;
    if (x + 1 < width) {
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
      while (x + n < width && (src < 0 ? cols[x + n] < 0 : cols[x + n] >= 0 && cols[x + n] == src + step * n)) {
        ++n;
      }
    }
    runs.push_back({x, n, src, step});
    x += n;
  }
  return runs;
}

// Copies n pixels of P bytes (P = 0: `pixel` bytes, a run-time size) from in_first, in_first - P, ... (a
// mirrored run): a flip's long runs by the Highway kernel, a reflection's few pixels here, inlined (a
// dispatched call per short run costs more).
template <size_t P>
void copy_reversed(uint8_t* out, const uint8_t* in_first, int64_t n, size_t pixel) {
  if constexpr (P != 0) pixel = P;
  if (n >= 64) return reverse_pixels(out, in_first, n, pixel);
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
    for (int64_t i = 0; i < n; ++i) std::memcpy(out + i * pixel, in_first - i * pixel, pixel);
  }
}

// A row of n fill pixels of `pixel` bytes, made by doubling: the fill runs below copy from it, one
// memcpy each, instead of storing the fill pixel by pixel (3-byte pixels would take two stores each).
std::vector<uint8_t> fill_row(const uint8_t* fill, size_t pixel, int64_t n) {
  std::vector<uint8_t> row(static_cast<size_t>(n) * pixel);
  if (row.empty()) return row;
  std::memcpy(row.data(), fill, pixel);
  for (size_t done = pixel; done < row.size(); done *= 2) {
    std::memcpy(row.data() + done, row.data(), std::min(done, row.size() - done));
  }
  return row;
}

// One plane of P bytes per pixel (P a compile-time size for the common pixels, so that every copy is
// inlined; P = 0: `pixel` bytes): out(y, x) = in(rows[y], cols[x]) run by run; fill runs copy from
// `fills`, a row of fill pixels.
template <size_t P>
void remap_plane_fixed(const uint8_t* src, int64_t src_w, uint8_t* dst, const int64_t* rows, int64_t out_h,
                       const std::vector<Run>& runs, int64_t out_w, const uint8_t* fills, size_t pixel) {
  if constexpr (P != 0) pixel = P;
  for (int64_t y = 0; y < out_h; ++y) {
    uint8_t* out = dst + y * out_w * pixel;
    if (rows[y] < 0) {
      std::memcpy(out, fills, static_cast<size_t>(out_w) * pixel);
      continue;
    }
    const uint8_t* in = src + rows[y] * src_w * pixel;
    for (const Run& r : runs) {
      uint8_t* o = out + r.start * pixel;
      if (r.src < 0) {
        std::memcpy(o, fills, static_cast<size_t>(r.length) * pixel);
      } else if (r.step == -1) {
        copy_reversed<P>(o, in + r.src * pixel, r.length, pixel);
      } else {
        std::memcpy(o, in + r.src * pixel, static_cast<size_t>(r.length) * pixel);  // step +1, or one pixel
      }
    }
  }
}

}  // namespace

void remap_plane(const uint8_t* src, uint8_t* dst, const RemapPlan& plan) {
  const int64_t* rows = plan.rows;
  const int64_t* cols = plan.cols;
  const int64_t src_w = plan.src_width, h = plan.out_height, w = plan.out_width;
  const size_t pixel = plan.pixel_bytes;
  const std::vector<Run> runs = column_runs(cols, w);
  const bool fills_some = std::any_of(rows, rows + h, [](int64_t r) { return r < 0; }) ||
                          std::any_of(runs.begin(), runs.end(), [](const Run& r) { return r.src < 0; });
  const std::vector<uint8_t> fill_pixels = fills_some ? fill_row(plan.fill, pixel, w) : std::vector<uint8_t>();
  const uint8_t* fills = fill_pixels.data();
  switch (pixel) {
    case 1: return remap_plane_fixed<1>(src, src_w, dst, rows, h, runs, w, fills, pixel);
    case 2: return remap_plane_fixed<2>(src, src_w, dst, rows, h, runs, w, fills, pixel);
    case 3: return remap_plane_fixed<3>(src, src_w, dst, rows, h, runs, w, fills, pixel);
    case 4: return remap_plane_fixed<4>(src, src_w, dst, rows, h, runs, w, fills, pixel);
    case 8: return remap_plane_fixed<8>(src, src_w, dst, rows, h, runs, w, fills, pixel);
    case 12: return remap_plane_fixed<12>(src, src_w, dst, rows, h, runs, w, fills, pixel);
    case 16: return remap_plane_fixed<16>(src, src_w, dst, rows, h, runs, w, fills, pixel);
    default: return remap_plane_fixed<0>(src, src_w, dst, rows, h, runs, w, fills, pixel);  // many channels, wide types
  }
}

}  // namespace loom::transforms::detail
