// The CUDA twin of the resize passes (resize_kernels.h), fed the same AxisWeights as the scalar
// references (built on the host by resize_coefficients.cc and uploaded by resize.cc): the exact
// passes and the fast uint8 ones (16-bit weights). One thread per
// output sample, in output order (the writes coalesce; neighbouring threads read neighbouring
// windows). Every sum is the scalar reference's, term for term: uint8 in int32 from 1 << (kPrecisionBits
// - 1), shifted and clamped; uint16 and float32 in double with explicitly rounded products and sums
// (__dmul_rn, __dadd_rn; the file also builds with --fmad=false), the horizontal pass's even and odd
// taps in two sums as resample_rows does. clip8, from_double, fast_row_sample and fast_column_sample are the scalar
// references' own (resize_kernels.h).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "loom/accel/cuda.h"
#include "resize/resize_kernels.h"

namespace loom::transforms {
namespace {

constexpr int kThreads = 256;

unsigned blocks_for(int64_t total) {
  return static_cast<unsigned>(std::min<int64_t>((total + kThreads - 1) / kThreads, int64_t{1} << 20));
}

__device__ inline double madd(double acc, double a, double b) {
  return __dadd_rn(acc, __dmul_rn(a, b));
}

// Output sample (p, y, i, ch) of resample_rows<C, T>, e enumerating them in output order.
template <typename T, int C>
__global__ void rows_kernel(const T* __restrict__ src, int64_t src_plane, int64_t in_w, T* __restrict__ dst,
                            int64_t dst_plane, int64_t out_w, int64_t rows, int64_t total, AxisWeights c, bool fast) {
  for (int64_t e = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; e < total;
       e += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t r = e / C;
    const int ch = static_cast<int>(e - r * C);
    const int64_t i = r % out_w;
    r /= out_w;
    const int64_t y = r % rows;
    const int64_t p = r / rows;
    const T* window = src + p * src_plane + y * in_w * C + static_cast<int64_t>(c.start[i]) * C + ch;
    const int n = c.count[i];
    T* out = dst + p * dst_plane + (y * out_w + i) * C + ch;
    if constexpr (std::is_same_v<T, uint8_t>) {
      if (fast) {
        *out = fast_row_sample(window, C, c.w16 + i * c.taps, n, c.w16_bits);
      } else {
        const int32_t* k = c.fixed + i * c.taps;
        int32_t acc = 1 << (kPrecisionBits - 1);
        for (int t = 0; t < n; ++t) acc += static_cast<int32_t>(window[t * C]) * k[t];
        *out = clip8(acc);
      }
    } else {
      const double* k = c.w + i * c.taps;
      double even = 0.0, odd = 0.0;
      int t = 0;
      for (; t + 1 < n; t += 2) {
        even = madd(even, static_cast<double>(window[t * C]), k[t]);
        odd = madd(odd, static_cast<double>(window[(t + 1) * C]), k[t + 1]);
      }
      if (t < n) even = madd(even, static_cast<double>(window[t * C]), k[t]);
      *out = from_double<T>(__dadd_rn(even, odd));
    }
  }
}

// Output sample (p, i, x) of resample_columns<T>: rows start[i] .. start[i] + count[i] - 1 of plane p.
template <typename T>
__global__ void columns_kernel(const T* __restrict__ src, int64_t src_plane, T* __restrict__ dst, int64_t dst_plane,
                               int64_t len, int64_t total, AxisWeights c, bool fast) {
  for (int64_t e = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; e < total;
       e += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t x = e % len;
    const int64_t r = e / len;
    const int64_t i = r % c.size;
    const int64_t p = r / c.size;
    const T* column = src + p * src_plane + static_cast<int64_t>(c.start[i]) * len + x;
    const int n = c.count[i];
    T* out = dst + p * dst_plane + i * len + x;
    if constexpr (std::is_same_v<T, uint8_t>) {
      if (fast) {
        *out = fast_column_sample(column, len, c.u16 + i * c.taps, n, 0);
      } else {
        const int32_t* k = c.fixed + i * c.taps;
        int32_t acc = 1 << (kPrecisionBits - 1);
        for (int t = 0; t < n; ++t) acc += static_cast<int32_t>(column[t * len]) * k[t];
        *out = clip8(acc);
      }
    } else {
      const double* k = c.w + i * c.taps;
      double acc = 0.0;
      for (int t = 0; t < n; ++t) acc = madd(acc, static_cast<double>(column[t * len]), k[t]);
      *out = from_double<T>(acc);
    }
  }
}

}  // namespace

template <typename T>
void resample_rows_cuda(const T* src, int64_t src_plane, int64_t in_w, T* dst, int64_t dst_plane, int64_t out_w,
                        int64_t rows, int64_t planes, int channels, const AxisWeights& c, bool fast, void* stream) {
  const int64_t total = planes * rows * out_w * channels;
  if (total == 0) return;
  const auto s = static_cast<cudaStream_t>(stream);
  const unsigned blocks = blocks_for(total);
  switch (channels) {
    case 1:
      rows_kernel<T, 1><<<blocks, kThreads, 0, s>>>(src, src_plane, in_w, dst, dst_plane, out_w, rows, total, c, fast);
      break;
    case 2:
      rows_kernel<T, 2><<<blocks, kThreads, 0, s>>>(src, src_plane, in_w, dst, dst_plane, out_w, rows, total, c, fast);
      break;
    case 3:
      rows_kernel<T, 3><<<blocks, kThreads, 0, s>>>(src, src_plane, in_w, dst, dst_plane, out_w, rows, total, c, fast);
      break;
    default:
      rows_kernel<T, 4><<<blocks, kThreads, 0, s>>>(src, src_plane, in_w, dst, dst_plane, out_w, rows, total, c, fast);
      break;
  }
  accel::check_cuda(cudaGetLastError(), "resize kernel (horizontal pass)");
}

template <typename T>
void resample_columns_cuda(const T* src, int64_t src_plane, T* dst, int64_t dst_plane, int64_t len, int64_t planes,
                           const AxisWeights& c, bool fast, void* stream) {
  const int64_t total = planes * c.size * len;
  if (total == 0) return;
  columns_kernel<T><<<blocks_for(total), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
      src, src_plane, dst, dst_plane, len, total, c, fast);
  accel::check_cuda(cudaGetLastError(), "resize kernel (vertical pass)");
}

#define LOOM_RESIZE_CUDA(T)                                                                                          \
  template void resample_rows_cuda<T>(const T*, int64_t, int64_t, T*, int64_t, int64_t, int64_t, int64_t, int,       \
                                      const AxisWeights&, bool, void*);                                              \
  template void resample_columns_cuda<T>(const T*, int64_t, T*, int64_t, int64_t, int64_t, const AxisWeights&, bool, \
                                         void*);
LOOM_RESIZE_CUDA(uint8_t)
LOOM_RESIZE_CUDA(uint16_t)
LOOM_RESIZE_CUDA(float)
#undef LOOM_RESIZE_CUDA

}  // namespace loom::transforms
