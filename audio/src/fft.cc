#include "fft.h"

extern "C" {
#include <libavutil/mem.h>
#include <libavutil/tx.h>
}

#include <algorithm>
#include <cmath>
#include <new>
#include <numbers>
#include <string>

#include "loom/codec/error.h"

namespace loom::audio::detail {

namespace {

// exp(-2 pi i num / den) with num reduced modulo den first (exact for large num).
cfloat unit_root(int64_t num, int64_t den) {
  const double angle = -2.0 * std::numbers::pi * static_cast<double>(num % den) / static_cast<double>(den);
  return {static_cast<float>(std::cos(angle)), static_cast<float>(std::sin(angle))};
}

// Row stride (in cfloats) that keeps every row 64-byte aligned.
int aligned_stride(int n) {
  return (n + 7) / 8 * 8;
}

}  // namespace

TxPlan::TxPlan(int n, bool inverse) : n_(n) {
  const float scale = 1.0f;
  AVTXContext* ctx = nullptr;
  av_tx_fn fn = nullptr;
  const int rc = av_tx_init(&ctx, &fn, AV_TX_FLOAT_FFT, inverse ? 1 : 0, n, &scale, 0);
  if (rc < 0 || ctx == nullptr || fn == nullptr) {
    if (rc == AVERROR(ENOMEM)) throw std::bad_alloc();
    throw Error(ErrorCode::kInternal, "", "av_tx_init failed for a complex FFT of length " + std::to_string(n));
  }
  ctx_ = ctx;
  fn_ = fn;
}

TxPlan::~TxPlan() {
  av_tx_uninit(&ctx_);
}

void TxPlan::run(cfloat* out, cfloat* in) const {
  fn_(ctx_, out, in, sizeof(AVComplexFloat));
}

void AlignedBuffer::Free::operator()(cfloat* p) const {
  av_free(p);
}

AlignedBuffer::AlignedBuffer(size_t n) {
  if (n == 0) return;
  void* p = av_mallocz(n * sizeof(cfloat));
  if (p == nullptr) throw std::bad_alloc();
  data_.reset(static_cast<cfloat*>(p));
}

bool ComplexFft::is_fast_length(int64_t n) {
  if (n < 1) return false;
  int twos = 0;
  while (n % 2 == 0) n /= 2, ++twos;
  return n == 1 || n == 3 || n == 5 || (n == 15 && twos >= 1);
}

ComplexFft::ComplexFft(int n) : n_(n), in_(static_cast<size_t>(n)), out_(static_cast<size_t>(n)) {
  if (n < 1) throw Error(ErrorCode::kInvalidInput, "", "FFT length must be at least 1, got " + std::to_string(n));
  if (is_fast_length(n)) {
    kind_ = Kind::kDirect;
    plan_ = std::make_unique<TxPlan>(n, false);
    return;
  }
  // Largest fast divisor n2 of n: 2^k times the largest of 15, 5, 3, 1 that divides the odd part.
  int twos = 1, odd = n;
  while (odd % 2 == 0) odd /= 2, twos *= 2;
  int n2 = twos;
  for (int m : {15, 5, 3}) {
    if (odd % m == 0 && is_fast_length(int64_t{twos} * m)) {
      n2 = twos * m;
      break;
    }
  }
  const int n1 = n / n2;
  if (n1 <= 16) {
    kind_ = Kind::kSplit;
    n1_ = n1;
    n2_ = n2;
    plan_ = std::make_unique<TxPlan>(n2, false);
    dft1_.resize(static_cast<size_t>(n1) * n1);
    for (int a = 0; a < n1; ++a)
      for (int b = 0; b < n1; ++b) dft1_[static_cast<size_t>(a) * n1 + b] = unit_root(int64_t{a} * b, n1);
    twiddle_.resize(static_cast<size_t>(n1) * n2);
    for (int k1 = 0; k1 < n1; ++k1)
      for (int i2 = 0; i2 < n2; ++i2) twiddle_[static_cast<size_t>(k1) * n2 + i2] = unit_root(int64_t{i2} * k1, n);
    const size_t rows = static_cast<size_t>(n1) * aligned_stride(n2);
    work_a_ = AlignedBuffer(rows);
    work_b_ = AlignedBuffer(rows);
    return;
  }
  kind_ = Kind::kBluestein;
  int m = 1;
  while (m < 2 * n - 1) m *= 2;
  plan_ = std::make_unique<TxPlan>(m, false);
  inverse_ = std::make_unique<TxPlan>(m, true);
  chirp_.resize(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) chirp_[j] = unit_root(j * j, 2 * int64_t{n});  // exp(-i pi j^2 / n)
  work_a_ = AlignedBuffer(static_cast<size_t>(m));
  work_b_ = AlignedBuffer(static_cast<size_t>(m));
  chirp_fft_ = AlignedBuffer(static_cast<size_t>(m));
  for (int j = 0; j < n; ++j) {
    work_a_[j] = std::conj(chirp_[j]);
    if (j > 0) work_a_[m - j] = std::conj(chirp_[j]);
  }
  plan_->run(chirp_fft_.data(), work_a_.data());
  const float inv_m = 1.0f / static_cast<float>(m);
  for (int k = 0; k < m; ++k) chirp_fft_[k] *= inv_m;
}

void ComplexFft::run() {
  switch (kind_) {
    case Kind::kDirect: plan_->run(out_.data(), in_.data()); return;
    case Kind::kSplit: {
      // Rows k1 of work_a: sum_i1 x[n2 i1 + i2] w_n1^(i1 k1), then times w_n^(i2 k1). Loops run along i2,
      // contiguous in both x and the row, so that the compiler vectorises them.
      const int n1 = n1_, n2 = n2_, stride = aligned_stride(n2);
      const float* x = reinterpret_cast<const float*>(in_.data());
      for (int k1 = 0; k1 < n1; ++k1) {
        float* row = reinterpret_cast<float*>(work_a_.data() + static_cast<size_t>(k1) * stride);
        std::copy_n(x, 2 * n2, row);  // i1 = 0: w = 1
        for (int i1 = 1; i1 < n1; ++i1) {
          const cfloat w = dft1_[static_cast<size_t>(i1) * n1 + k1];
          const float wr = w.real(), wi = w.imag();
          const float* xs = x + 2 * static_cast<size_t>(i1) * n2;
          for (int j = 0; j < n2; ++j) {
            const float xr = xs[2 * j], xi = xs[2 * j + 1];
            row[2 * j] += xr * wr - xi * wi;
            row[2 * j + 1] += xr * wi + xi * wr;
          }
        }
        if (k1 == 0) continue;  // w_n^0 = 1
        const float* tw = reinterpret_cast<const float*>(twiddle_.data() + static_cast<size_t>(k1) * n2);
        for (int j = 0; j < n2; ++j) {
          const float r = row[2 * j], i = row[2 * j + 1], tr = tw[2 * j], ti = tw[2 * j + 1];
          row[2 * j] = r * tr - i * ti;
          row[2 * j + 1] = r * ti + i * tr;
        }
      }
      cfloat* a = work_a_.data();
      cfloat* b = work_b_.data();
      for (int k1 = 0; k1 < n1; ++k1)
        plan_->run(b + static_cast<size_t>(k1) * stride, a + static_cast<size_t>(k1) * stride);
      cfloat* out = out_.data();
      for (int k1 = 0; k1 < n1; ++k1)
        for (int k2 = 0; k2 < n2; ++k2)
          out[k1 + static_cast<size_t>(n1) * k2] = b[static_cast<size_t>(k1) * stride + k2];
      return;
    }
    case Kind::kBluestein: {
      const int m = plan_->size();
      cfloat* a = work_a_.data();
      cfloat* b = work_b_.data();
      for (int j = 0; j < n_; ++j) a[j] = cmul(in_[j], chirp_[j]);
      for (int j = n_; j < m; ++j) a[j] = 0;
      plan_->run(b, a);
      for (int k = 0; k < m; ++k) b[k] = cmul(b[k], chirp_fft_[k]);
      inverse_->run(a, b);
      for (int k = 0; k < n_; ++k) out_[k] = cmul(a[k], chirp_[k]);
      return;
    }
  }
}

}  // namespace loom::audio::detail
