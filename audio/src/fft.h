// Private: complex FFTs of any length on top of libavutil's av_tx (FFmpeg 5.1).
//
// av_tx in FFmpeg 5.1 is fast for lengths 2^k * {1, 3, 5} and 2^(k+1) * 15; for every other length it
// falls back to an O(n^2) DFT (1.5 ms for n = 400), and its real-input transform (AV_TX_FLOAT_RDFT)
// returns wrong values for some non-power-of-two lengths (e.g. 30, 402; measured against a double DFT).
// So loom uses only the complex transform, and for other lengths:
//   - n = n1 * n2 with n2 a fast length and n1 <= 16: one Cooley-Tukey step (n2 DFTs of length n1 done
//     directly with a precomputed matrix, twiddles, then n1 av_tx FFTs of length n2); 400 = 5 * 80;
//   - otherwise Bluestein's chirp-z algorithm through two av_tx FFTs of a power of two >= 2n - 1.
// Real signals go through the complex transform two at a time (see spectral.cc).
//
// A ComplexFft owns its av_tx contexts and aligned work buffers: one object per thread (the spectral
// functions make one per call, so they are reentrant).
#pragma once

#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

struct AVTXContext;

namespace loom::audio::detail {

using cfloat = std::complex<float>;

// a * b without std::complex's NaN/inf recovery (which compiles to a slow library call).
inline cfloat cmul(cfloat a, cfloat b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}

// One av_tx complex float FFT context of length n (forward or inverse, unscaled).
class TxPlan {
 public:
  TxPlan(int n, bool inverse);
  ~TxPlan();
  TxPlan(const TxPlan&) = delete;
  TxPlan& operator=(const TxPlan&) = delete;
  // out = DFT(in); both hold n values, 64-byte aligned (use AlignedBuffer), and must not overlap.
  void run(cfloat* out, cfloat* in) const;
  int size() const { return n_; }

 private:
  int n_;
  AVTXContext* ctx_ = nullptr;
  void (*fn_)(AVTXContext*, void*, void*, ptrdiff_t) = nullptr;
};

// av_malloc'ed (aligned for av_tx's SIMD code) array of cfloat.
class AlignedBuffer {
 public:
  explicit AlignedBuffer(size_t n = 0);
  cfloat* data() const { return data_.get(); }
  cfloat& operator[](size_t i) const { return data_.get()[i]; }

 private:
  struct Free {
    void operator()(cfloat* p) const;
  };
  std::unique_ptr<cfloat, Free> data_;
};

// Forward complex DFT of any length n >= 1: X[k] = sum_j x[j] exp(-2 pi i j k / n), unscaled.
class ComplexFft {
 public:
  explicit ComplexFft(int n);
  int size() const { return n_; }
  // The n input values: fill them, then call run(); the result is in output().
  cfloat* input() const { return in_.data(); }
  const cfloat* output() const { return out_.data(); }
  void run();

  // True when av_tx transforms length n quickly by itself.
  static bool is_fast_length(int64_t n);

 private:
  enum class Kind { kDirect, kSplit, kBluestein };
  int n_;
  Kind kind_ = Kind::kDirect;
  AlignedBuffer in_, out_;
  std::unique_ptr<TxPlan> plan_;     // kDirect: n; kSplit: n2; kBluestein: forward m
  std::unique_ptr<TxPlan> inverse_;  // kBluestein: inverse m
  int n1_ = 1, n2_ = 1;              // kSplit
  std::vector<cfloat> dft1_;         // kSplit: n1 x n1 matrix exp(-2 pi i a b / n1)
  std::vector<cfloat> twiddle_;      // kSplit: [k1][i2] exp(-2 pi i i2 k1 / n)
  AlignedBuffer work_a_, work_b_;    // kSplit: n each; kBluestein: m each
  std::vector<cfloat> chirp_;        // kBluestein: exp(-i pi j^2 / n), j < n
  AlignedBuffer chirp_fft_;          // kBluestein: FFT_m of the conjugate chirp, scaled by 1/m
};

}  // namespace loom::audio::detail
