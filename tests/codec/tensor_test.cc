// loom::Tensor: creation, shape and strides, views (slice/select/permute/view), copies and ownership.
#include "loom/codec/tensor.h"

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <limits>
#include <new>
#include <numeric>
#include <thread>
#include <vector>

#include "loom/codec/error.h"
#include "test_media.h"

namespace loom {
namespace {
using loom::test::error_code_of;

// Address of element `idx` of `t`, computed from its strides (elements) and dtype.
template <typename T>
T& at(const Tensor& t, std::initializer_list<int64_t> idx) {
  EXPECT_EQ(static_cast<int>(idx.size()), t.ndim());
  int64_t offset = 0;
  int d = 0;
  for (int64_t i : idx) offset += i * t.stride(d++);
  return t.data<T>()[offset];
}

// A contiguous int32 tensor holding 0, 1, 2, ... in row-major order.
Tensor iota(std::initializer_list<int64_t> shape) {
  Tensor t = Tensor::empty(shape, DType::kInt32);
  std::iota(t.data<int32_t>(), t.data<int32_t>() + t.numel(), 0);
  return t;
}

// Elements of a 1-d tensor, read through its stride.
std::vector<int32_t> elements_1d(const Tensor& t) {
  std::vector<int32_t> out;
  for (int64_t i = 0; i < t.size(0); ++i) out.push_back(at<int32_t>(t, {i}));
  return out;
}

// Python's slice semantics, by the letter of CPython's PySlice_AdjustIndices, enumerated with a loop.
std::vector<int32_t> python_slice(int64_t n, int64_t start, int64_t stop, int64_t step) {
  auto adjust = [&](int64_t i) {
    if (i < 0) {
      i += n;
      if (i < 0) i = step < 0 ? -1 : 0;
    } else if (i >= n) {
      i = step < 0 ? n - 1 : n;
    }
    return i;
  };
  start = adjust(start);
  stop = adjust(stop);
  std::vector<int32_t> out;
  if (step > 0) {
    for (int64_t i = start; i < stop; i += step) out.push_back(static_cast<int32_t>(i));
  } else {
    for (int64_t i = start; i > stop; i += step) out.push_back(static_cast<int32_t>(i));
  }
  return out;
}

TEST(TensorTest, DefaultConstructedIsUndefined) {
  Tensor t;
  EXPECT_FALSE(t.defined());
  EXPECT_EQ(t.ndim(), 0);
  EXPECT_EQ(t.numel(), 0);
  EXPECT_EQ(t.nbytes(), 0u);
  EXPECT_EQ(t.data(), nullptr);
  EXPECT_EQ(t.use_count(), 0);
  EXPECT_FALSE(t.clone().defined());
}

TEST(TensorTest, ElementSizesMatchTheCxxTypes) {
  EXPECT_EQ(element_size(DType::kUInt8), sizeof(uint8_t));
  EXPECT_EQ(element_size(DType::kInt16), sizeof(int16_t));
  EXPECT_EQ(element_size(DType::kUInt16), sizeof(uint16_t));
  EXPECT_EQ(element_size(DType::kInt32), sizeof(int32_t));
  EXPECT_EQ(element_size(DType::kInt64), sizeof(int64_t));
  EXPECT_EQ(element_size(DType::kFloat16), 2u);
  EXPECT_EQ(element_size(DType::kBFloat16), 2u);
  EXPECT_EQ(element_size(DType::kFloat32), sizeof(float));
  EXPECT_EQ(element_size(DType::kFloat64), sizeof(double));
  static_assert(dtype_of<uint8_t>() == DType::kUInt8);
  static_assert(dtype_of<int16_t>() == DType::kInt16);
  static_assert(dtype_of<uint16_t>() == DType::kUInt16);
  static_assert(dtype_of<int32_t>() == DType::kInt32);
  static_assert(dtype_of<int64_t>() == DType::kInt64);
  static_assert(dtype_of<float>() == DType::kFloat32);
  static_assert(dtype_of<double>() == DType::kFloat64);
}

TEST(TensorTest, DTypeNames) {
  EXPECT_EQ(to_string(DType::kUInt8), "uint8");
  EXPECT_EQ(to_string(DType::kInt16), "int16");
  EXPECT_EQ(to_string(DType::kUInt16), "uint16");
  EXPECT_EQ(to_string(DType::kInt32), "int32");
  EXPECT_EQ(to_string(DType::kInt64), "int64");
  EXPECT_EQ(to_string(DType::kFloat16), "float16");
  EXPECT_EQ(to_string(DType::kBFloat16), "bfloat16");
  EXPECT_EQ(to_string(DType::kFloat32), "float32");
  EXPECT_EQ(to_string(DType::kFloat64), "float64");
}

TEST(TensorTest, DeviceNamesAreTorchs) {
  EXPECT_EQ(parse_device("cpu"), Device::cpu());
  EXPECT_EQ(parse_device("cuda"), Device::cuda(0));
  EXPECT_EQ(parse_device("cuda:3"), Device::cuda(3));
  EXPECT_EQ(to_string(Device::cpu()), "cpu");
  EXPECT_EQ(to_string(Device::cuda(2)), "cuda:2");
  EXPECT_EQ(parse_device(to_string(Device::cuda(17))), Device::cuda(17));
  for (const char* bad : {"", "gpu", "CUDA", "cuda:", "cuda:-1", "cuda:1x", "cuda:99999", " cpu", "cuda:0 "}) {
    EXPECT_EQ(error_code_of([&] { parse_device(bad); }), ErrorCode::kInvalidInput) << bad;
  }
}

TEST(TensorTest, EmptyIsRowMajorAlignedAndContiguous) {
  Tensor t = Tensor::empty({2, 3, 4}, DType::kFloat32);
  ASSERT_TRUE(t.defined());
  EXPECT_EQ(t.ndim(), 3);
  EXPECT_EQ(std::vector<int64_t>(t.shape().begin(), t.shape().end()), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(std::vector<int64_t>(t.strides().begin(), t.strides().end()), (std::vector<int64_t>{12, 4, 1}));
  EXPECT_EQ(t.numel(), 24);
  EXPECT_EQ(t.nbytes(), 24 * sizeof(float));
  EXPECT_EQ(t.dtype(), DType::kFloat32);
  EXPECT_TRUE(t.device().is_cpu());
  EXPECT_EQ(t.device(), Device::cpu());
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data()) % kTensorAlignment, 0u);
  EXPECT_EQ(t.use_count(), 1);
  // The whole extent is writable (a sanitizer build would catch an undersized allocation).
  std::memset(t.data(), 0xAB, t.nbytes());
}

TEST(TensorTest, EveryDTypeAndOddSizesAreAligned) {
  for (DType dt : {DType::kUInt8, DType::kInt16, DType::kUInt16, DType::kInt32, DType::kInt64, DType::kFloat16,
                   DType::kBFloat16, DType::kFloat32, DType::kFloat64}) {
    for (int64_t n : {1, 3, 63, 64, 65, 1000}) {
      Tensor t = Tensor::empty({n}, dt);
      EXPECT_EQ(t.nbytes(), static_cast<size_t>(n) * element_size(dt));
      EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data()) % kTensorAlignment, 0u) << to_string(dt) << " " << n;
      EXPECT_EQ(t.dtype(), dt);
    }
  }
}

TEST(TensorTest, ZeroDimensionalTensorHoldsOneElement) {
  Tensor t = Tensor::zeros(std::span<const int64_t>{}, DType::kFloat64);
  EXPECT_TRUE(t.defined());
  EXPECT_EQ(t.ndim(), 0);
  EXPECT_EQ(t.numel(), 1);
  EXPECT_EQ(t.nbytes(), sizeof(double));
  EXPECT_EQ(*t.data<double>(), 0.0);
  EXPECT_TRUE(t.is_contiguous());
  Tensor c = t.clone();
  EXPECT_EQ(c.numel(), 1);
  EXPECT_NE(c.data(), t.data());
}

TEST(TensorTest, ZeroSizedDimension) {
  Tensor t = Tensor::zeros({3, 0, 2}, DType::kUInt8);
  EXPECT_TRUE(t.defined());
  EXPECT_EQ(t.numel(), 0);
  EXPECT_EQ(t.nbytes(), 0u);
  EXPECT_EQ(t.size(1), 0);
  Tensor c = t.clone();
  EXPECT_EQ(c.numel(), 0);
  EXPECT_EQ(c.size(0), 3);
}

TEST(TensorTest, ZerosAreZeroForEveryDType) {
  for (DType dt : {DType::kUInt8, DType::kInt16, DType::kInt64, DType::kBFloat16, DType::kFloat32, DType::kFloat64}) {
    Tensor t = Tensor::zeros({7, 5}, dt);
    const auto* p = static_cast<const uint8_t*>(t.data());
    for (size_t i = 0; i < t.nbytes(); ++i) ASSERT_EQ(p[i], 0) << to_string(dt) << " byte " << i;
  }
}

TEST(TensorTest, NegativeSizeOrTooManyDimensionsIsInvalidInput) {
  EXPECT_EQ(error_code_of([] { Tensor::empty({2, -1}, DType::kUInt8); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(error_code_of([] { Tensor::zeros({-5}, DType::kUInt8); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(error_code_of([] { Tensor::empty({1, 1, 1, 1, 1, 1}, DType::kUInt8); }), ErrorCode::kInvalidInput);
  EXPECT_NO_THROW(Tensor::empty({1, 1, 1, 1, 1}, DType::kUInt8));  // kMaxDims is allowed
  static_assert(kMaxDims == 5);
  int32_t x = 0;
  const int64_t bad_shape[] = {-1};
  EXPECT_EQ(error_code_of([&] { Tensor::from_blob(&x, bad_shape, {}, DType::kInt32); }), ErrorCode::kInvalidInput);
}

// The byte count of a shape whose element count fits in int64 but whose size in bytes does not fit in
// size_t must be refused (an Error, or std::bad_alloc), never wrapped into a tiny allocation that
// the tensor then claims to span.
TEST(TensorTest, ShapeWhoseByteSizeOverflowsIsRefused) {
  const int64_t n = int64_t{1} << 61;  // 2^61 float64 elements = 2^64 bytes
  bool refused = false;
  try {
    Tensor t = Tensor::empty({n}, DType::kFloat64);
    ADD_FAILURE() << "empty({2^61}, float64) returned a tensor of numel " << t.numel() << " (nbytes() reads "
                  << t.nbytes() << ") backed by a small allocation";
  } catch (const Error&) {
    refused = true;
  } catch (const std::bad_alloc&) {
    refused = true;
  }
  EXPECT_TRUE(refused);
}

TEST(TensorTest, FromBlobBorrowsWithoutCopying) {
  std::array<int16_t, 6> buf = {1, 2, 3, 4, 5, 6};
  const int64_t shape[] = {2, 3};
  Tensor t = Tensor::from_blob(buf.data(), shape, {}, DType::kInt16);
  EXPECT_EQ(t.data(), buf.data());
  EXPECT_EQ(t.stride(0), 3);
  EXPECT_EQ(t.stride(1), 1);
  EXPECT_EQ(at<int16_t>(t, {1, 2}), 6);
  buf[4] = 42;
  EXPECT_EQ(at<int16_t>(t, {1, 1}), 42);
}

TEST(TensorTest, FromBlobWithExplicitStrides) {
  // A column-major 2x3 matrix: element (i, j) lives at i + 2 * j.
  std::array<int32_t, 6> buf = {0, 10, 1, 11, 2, 12};
  const int64_t shape[] = {2, 3};
  const int64_t strides[] = {1, 2};
  Tensor t = Tensor::from_blob(buf.data(), shape, strides, DType::kInt32);
  EXPECT_FALSE(t.is_contiguous());
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 3; ++j) EXPECT_EQ(at<int32_t>(t, {i, j}), 10 * i + j);
  }
  Tensor c = t.contiguous();
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_NE(c.data(), t.data());
  const std::vector<int32_t> expected = {0, 1, 2, 10, 11, 12};
  EXPECT_EQ(std::vector<int32_t>(c.data<int32_t>(), c.data<int32_t>() + 6), expected);
}

TEST(TensorTest, FromBlobRejectsStrideCountMismatch) {
  int32_t x[4] = {};
  const int64_t shape[] = {2, 2};
  const int64_t strides[] = {1};
  EXPECT_EQ(error_code_of([&] { Tensor::from_blob(x, shape, strides, DType::kInt32); }), ErrorCode::kInvalidInput);
}

TEST(TensorTest, DeleterRunsOnceWhenTheLastViewGoes) {
  int calls = 0;
  void* seen = nullptr;
  std::vector<float> buf(24, 1.0f);
  {
    const int64_t shape[] = {2, 3, 4};
    Tensor t = Tensor::from_blob(buf.data(), shape, {}, DType::kFloat32, Device::cpu(), [&](void* p) {
      ++calls;
      seen = p;
    });
    EXPECT_EQ(t.use_count(), 1);
    Tensor s = t.slice(1, 0, 2);
    Tensor p = t.permute({2, 0, 1});
    Tensor v = t.view({6, 4});
    Tensor sel = t.select(0, 1);
    Tensor copy = t;  // NOLINT: copying the view is the point
    EXPECT_EQ(t.use_count(), 6);
    t = Tensor();
    s = Tensor();
    p = Tensor();
    v = Tensor();
    copy = Tensor();
    EXPECT_EQ(calls, 0) << "storage released while a view still exists";
    EXPECT_EQ(sel.use_count(), 1);
  }
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(seen, buf.data());
}

TEST(TensorTest, NoDeleterMeansTheCallerOwnsTheMemory) {
  std::vector<uint8_t> buf(16, 7);
  {
    const int64_t shape[] = {16};
    Tensor t = Tensor::from_blob(buf.data(), shape, {}, DType::kUInt8);
    Tensor c = t.clone();
    EXPECT_EQ(c.data<uint8_t>()[15], 7);
  }
  EXPECT_EQ(buf[0], 7);  // still ours, untouched
}

TEST(TensorTest, CloneHasItsOwnStorage) {
  int calls = 0;
  std::vector<int32_t> buf(6);
  std::iota(buf.begin(), buf.end(), 100);
  Tensor c;
  {
    const int64_t shape[] = {2, 3};
    Tensor t = Tensor::from_blob(buf.data(), shape, {}, DType::kInt32, Device::cpu(), [&](void*) { ++calls; });
    c = t.clone();
    EXPECT_NE(c.data(), t.data());
    EXPECT_EQ(c.use_count(), 1);
    EXPECT_EQ(t.use_count(), 1);
  }
  EXPECT_EQ(calls, 1);  // the clone does not keep the source alive
  for (int i = 0; i < 6; ++i) EXPECT_EQ(c.data<int32_t>()[i], 100 + i);
  c.data<int32_t>()[0] = -1;
  EXPECT_EQ(buf[0], 100);
}

TEST(TensorTest, SizeAndStrideAcceptNegativeDims) {
  Tensor t = Tensor::empty({2, 3, 5}, DType::kUInt8);
  EXPECT_EQ(t.size(-1), 5);
  EXPECT_EQ(t.size(-3), 2);
  EXPECT_EQ(t.stride(-1), 1);
  EXPECT_EQ(t.stride(-2), 5);
  EXPECT_EQ(t.stride(-3), 15);
  EXPECT_EQ(error_code_of([&] { t.size(3); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(error_code_of([&] { t.size(-4); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(error_code_of([&] { t.stride(7); }), ErrorCode::kInvalidInput);
}

TEST(TensorTest, TypedDataChecksTheDType) {
  Tensor t = Tensor::zeros({4}, DType::kFloat32);
  EXPECT_NO_THROW(t.data<float>());
  EXPECT_EQ(error_code_of([&] { t.data<double>(); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(error_code_of([&] { t.data<int32_t>(); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(error_code_of([&] { t.data<uint8_t>(); }), ErrorCode::kInvalidInput);
}

TEST(TensorTest, SliceHandPickedPythonCases) {
  const Tensor t = iota({10});
  using V = std::vector<int32_t>;
  // Expected values are what Python prints for list(range(10))[start:stop:step].
  EXPECT_EQ(elements_1d(t.slice(0, 2, 8, 3)), (V{2, 5}));
  EXPECT_EQ(elements_1d(t.slice(0, -3, 10)), (V{7, 8, 9}));
  EXPECT_EQ(elements_1d(t.slice(0, 8, 2, -2)), (V{8, 6, 4}));
  EXPECT_EQ(elements_1d(t.slice(0, 9, -11, -3)), (V{9, 6, 3, 0}));
  EXPECT_EQ(elements_1d(t.slice(0, -100, 100)), (V{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  EXPECT_EQ(elements_1d(t.slice(0, 100, -100, -1)), (V{9, 8, 7, 6, 5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(elements_1d(t.slice(0, 5, 5)), V{});
  EXPECT_EQ(elements_1d(t.slice(0, 7, 2)), V{});
  EXPECT_EQ(elements_1d(t.slice(0, 2, 7, -1)), V{});
  EXPECT_EQ(elements_1d(t.slice(0, 0, 10, 100)), (V{0}));
  EXPECT_EQ(elements_1d(t.slice(0, -1, -2, -1)), (V{9}));
}

TEST(TensorTest, SliceMatchesPythonExhaustively) {
  for (int64_t n : {0, 1, 2, 5, 7}) {
    const Tensor t = iota({n});
    for (int64_t step : {-4, -3, -2, -1, 1, 2, 3, 5}) {
      for (int64_t start = -n - 3; start <= n + 3; ++start) {
        for (int64_t stop = -n - 3; stop <= n + 3; ++stop) {
          const Tensor s = t.slice(0, start, stop, step);
          ASSERT_EQ(elements_1d(s), python_slice(n, start, stop, step))
              << "n=" << n << " [" << start << ":" << stop << ":" << step << "]";
          ASSERT_EQ(s.stride(0), step);
        }
      }
      // Extreme start/stop clamp like Python's.
      constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
      constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
      for (auto [start, stop] :
           {std::pair{kMin, kMax}, std::pair{kMax, kMin}, std::pair{kMin, kMin}, std::pair{kMax, kMax}}) {
        ASSERT_EQ(elements_1d(t.slice(0, start, stop, step)), python_slice(n, start, stop, step))
            << "n=" << n << " step " << step << " start " << start << " stop " << stop;
      }
    }
  }
}

// Python: len(range(10)[0:10:sys.maxsize]) == 1 and len(range(10)[::-sys.maxsize - 1]) == 1.
TEST(TensorTest, SliceWithHugeStepsFollowsPython) {
  const Tensor t = iota({10});
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  const Tensor fwd = t.slice(0, 0, 10, kMax);
  EXPECT_EQ(fwd.size(0), 1) << "x[0:10:INT64_MAX] must hold exactly element 0";
  if (fwd.size(0) == 1) {
    EXPECT_EQ(*fwd.data<int32_t>(), 0);
  }
  const Tensor back = t.slice(0, 9, -11, kMin);
  EXPECT_EQ(back.size(0), 1) << "x[9::INT64_MIN] must hold exactly element 9";
  if (back.size(0) == 1) {
    EXPECT_EQ(*back.data<int32_t>(), 9);
  }
  // The same for a step that is large but not extreme (no overflow even in a naive formula).
  const Tensor big = t.slice(0, 0, 10, int64_t{1} << 40);
  EXPECT_EQ(big.size(0), 1);
}

TEST(TensorTest, SliceOfAMatrixAlongEachDimension) {
  const Tensor t = iota({4, 6});              // t[i][j] = 6 i + j
  const Tensor rows = t.slice(0, 3, -5, -2);  // rows 3, 1
  ASSERT_EQ(rows.size(0), 2);
  ASSERT_EQ(rows.size(1), 6);
  EXPECT_EQ(rows.stride(0), -12);
  EXPECT_EQ(rows.stride(1), 1);
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 6; ++j) EXPECT_EQ(at<int32_t>(rows, {i, j}), 6 * (3 - 2 * i) + j);
  }
  const Tensor cols = t.slice(1, 1, 6, 2);  // columns 1, 3, 5
  ASSERT_EQ(cols.size(1), 3);
  EXPECT_FALSE(cols.is_contiguous());
  for (int64_t i = 0; i < 4; ++i) {
    for (int64_t j = 0; j < 3; ++j) EXPECT_EQ(at<int32_t>(cols, {i, j}), 6 * i + 1 + 2 * j);
  }
  const Tensor both = t.slice(-1, -1, 0, -1).slice(-2, 1, 3);  // rows 1..2, columns 5..1
  ASSERT_EQ(both.size(0), 2);
  ASSERT_EQ(both.size(1), 5);
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 5; ++j) EXPECT_EQ(at<int32_t>(both, {i, j}), 6 * (1 + i) + (5 - j));
  }
  // A full-range positive slice keeps contiguity; the clone of a reversed view is the reversed data.
  EXPECT_TRUE(t.slice(0, 0, 4).is_contiguous());
  const Tensor rev = t.slice(1, 5, -7, -1).clone();
  EXPECT_TRUE(rev.is_contiguous());
  for (int64_t i = 0; i < 4; ++i) {
    for (int64_t j = 0; j < 6; ++j) EXPECT_EQ(rev.data<int32_t>()[i * 6 + j], 6 * i + 5 - j);
  }
}

TEST(TensorTest, SliceRejectsZeroStepAndBadDim) {
  const Tensor t = iota({4});
  EXPECT_EQ(error_code_of([&] { t.slice(0, 0, 4, 0); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(error_code_of([&] { t.slice(1, 0, 4); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(error_code_of([&] { t.slice(-2, 0, 4); }), ErrorCode::kInvalidInput);
}

TEST(TensorTest, SelectDropsADimension) {
  const Tensor t = iota({3, 4, 5});  // t[i][j][k] = 20 i + 5 j + k
  const Tensor a = t.select(1, 2);
  ASSERT_EQ(a.ndim(), 2);
  EXPECT_EQ(a.size(0), 3);
  EXPECT_EQ(a.size(1), 5);
  EXPECT_EQ(a.stride(0), 20);
  EXPECT_EQ(a.stride(1), 1);
  for (int64_t i = 0; i < 3; ++i) {
    for (int64_t k = 0; k < 5; ++k) EXPECT_EQ(at<int32_t>(a, {i, k}), 20 * i + 10 + k);
  }
  const Tensor b = t.select(-1, -1);  // k = 4
  ASSERT_EQ(b.ndim(), 2);
  EXPECT_EQ(at<int32_t>(b, {2, 3}), 40 + 15 + 4);
  const Tensor c = t.select(0, -3).select(0, 0).select(0, 0);
  EXPECT_EQ(c.ndim(), 0);
  EXPECT_EQ(c.numel(), 1);
  EXPECT_EQ(*c.data<int32_t>(), 0);
  EXPECT_EQ(error_code_of([&] { t.select(0, 3); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(error_code_of([&] { t.select(0, -4); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(error_code_of([&] { t.select(3, 0); }), ErrorCode::kInvalidInput);
}

TEST(TensorTest, PermuteReordersShapeAndStrides) {
  const Tensor t = iota({2, 3, 4});       // HWC-like; t[h][w][c] = 12 h + 4 w + c
  const Tensor p = t.permute({2, 0, 1});  // CHW
  EXPECT_EQ(p.size(0), 4);
  EXPECT_EQ(p.size(1), 2);
  EXPECT_EQ(p.size(2), 3);
  EXPECT_EQ(p.stride(0), 1);
  EXPECT_EQ(p.stride(1), 12);
  EXPECT_EQ(p.stride(2), 4);
  EXPECT_EQ(p.data(), t.data());
  EXPECT_FALSE(p.is_contiguous());
  for (int64_t c = 0; c < 4; ++c) {
    for (int64_t h = 0; h < 2; ++h) {
      for (int64_t w = 0; w < 3; ++w) EXPECT_EQ(at<int32_t>(p, {c, h, w}), 12 * h + 4 * w + c);
    }
  }
  // Negative dims count from the end; the inverse permutation gives the original back.
  const Tensor q = p.permute({-2, -1, -3});
  EXPECT_TRUE(q.is_contiguous());
  EXPECT_EQ(q.size(0), 2);
  EXPECT_EQ(q.size(2), 4);
  EXPECT_EQ(error_code_of([&] { t.permute({0, 1}); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(error_code_of([&] { t.permute({0, 1, 1}); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(error_code_of([&] { t.permute({0, 1, 3}); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(error_code_of([&] { t.permute({0, 1, 2, 3}); }), ErrorCode::kInvalidInput);
}

TEST(TensorTest, ViewNeedsContiguityAndTheSameNumel) {
  const Tensor t = iota({2, 3, 4});
  const Tensor v = t.view({4, 6});
  EXPECT_EQ(v.data(), t.data());
  EXPECT_EQ(v.stride(0), 6);
  EXPECT_EQ(at<int32_t>(v, {3, 5}), 23);
  const Tensor flat = t.view({24});
  EXPECT_EQ(at<int32_t>(flat, {17}), 17);
  EXPECT_EQ(error_code_of([&] { t.view({5, 5}); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(error_code_of([&] { t.permute({1, 0, 2}).view({24}); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(error_code_of([&] { t.view({2, -3, -4}); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(error_code_of([&] { t.view({1, 1, 1, 2, 3, 4}); }), ErrorCode::kInvalidInput);
  // A view of a selected (contiguous) sub-block works and shares its storage.
  const Tensor row = t.select(0, 1).view({12});
  EXPECT_EQ(at<int32_t>(row, {0}), 12);
  EXPECT_EQ(row.use_count(), t.use_count());
}

TEST(TensorTest, SizeOneDimensionsMayHaveAnyStride) {
  std::array<uint8_t, 4> buf = {1, 2, 3, 4};
  const int64_t shape[] = {1, 4, 1};
  const int64_t strides[] = {999, 1, -7};
  const Tensor t = Tensor::from_blob(buf.data(), shape, strides, DType::kUInt8);
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_EQ(t.contiguous().data(), t.data());  // already contiguous: no copy
}

TEST(TensorTest, ContiguousCopiesOnlyWhenNeeded) {
  const Tensor t = iota({3, 4});
  EXPECT_EQ(t.contiguous().data(), t.data());
  const Tensor tt = t.permute({1, 0});
  const Tensor c = tt.contiguous();
  EXPECT_NE(c.data(), t.data());
  EXPECT_TRUE(c.is_contiguous());
  for (int64_t i = 0; i < 4; ++i) {
    for (int64_t j = 0; j < 3; ++j) EXPECT_EQ(c.data<int32_t>()[i * 3 + j], static_cast<int32_t>(j * 4 + i));
  }
}

TEST(TensorTest, CloneOfBroadcastView) {
  std::array<float, 3> row = {1.5f, 2.5f, 3.5f};
  const int64_t shape[] = {4, 3};
  const int64_t strides[] = {0, 1};  // the same row four times
  const Tensor t = Tensor::from_blob(row.data(), shape, strides, DType::kFloat32);
  EXPECT_FALSE(t.is_contiguous());
  const Tensor c = t.clone();
  for (int64_t i = 0; i < 4; ++i) {
    for (int64_t j = 0; j < 3; ++j) EXPECT_EQ(c.data<float>()[i * 3 + j], row[j]);
  }
}

TEST(TensorTest, CopyFromAnyStridesIntoAView) {
  // dst: the odd columns of an 3x8 int64 buffer; src: a transposed, reversed 3x4 view.
  Tensor big = Tensor::zeros({3, 8}, DType::kInt64);
  const Tensor dst = big.slice(1, 1, 8, 2);
  Tensor base = Tensor::empty({4, 3}, DType::kInt64);
  for (int64_t i = 0; i < 12; ++i) base.data<int64_t>()[i] = 1000 + i;  // base[r][c] = 1000 + 3 r + c
  const Tensor src = base.permute({1, 0}).slice(0, -1, -4, -1);         // src[i][j] = base[j][2 - i]
  dst.copy_from(src);
  for (int64_t i = 0; i < 3; ++i) {
    for (int64_t j = 0; j < 8; ++j) {
      const int64_t got = big.data<int64_t>()[i * 8 + j];
      if (j % 2 == 1) {
        EXPECT_EQ(got, 1000 + 3 * ((j - 1) / 2) + (2 - i)) << i << "," << j;
      } else {
        EXPECT_EQ(got, 0) << "element outside the view was written at " << i << "," << j;
      }
    }
  }
}

TEST(TensorTest, CopyFromFiveDimensionalPermutation) {
  const Tensor a = iota({2, 3, 1, 4, 5});
  const Tensor p = a.permute({4, 2, 0, 3, 1});  // shape 5,1,2,4,3
  Tensor out = Tensor::empty({5, 1, 2, 4, 3}, DType::kInt32);
  out.copy_from(p);
  for (int64_t i4 = 0; i4 < 5; ++i4)
    for (int64_t i0 = 0; i0 < 2; ++i0)
      for (int64_t i3 = 0; i3 < 4; ++i3)
        for (int64_t i1 = 0; i1 < 3; ++i1) {
          const int32_t expected = static_cast<int32_t>(i0 * 60 + i1 * 20 + i3 * 5 + i4);
          ASSERT_EQ(at<int32_t>(out, {i4, 0, i0, i3, i1}), expected);
        }
}

TEST(TensorTest, CopyFromRejectsShapeOrDTypeMismatch) {
  const Tensor a = Tensor::zeros({2, 3}, DType::kFloat32);
  EXPECT_EQ(error_code_of([&] { a.copy_from(Tensor::zeros({3, 2}, DType::kFloat32)); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(error_code_of([&] { a.copy_from(Tensor::zeros({2, 3}, DType::kInt32)); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(error_code_of([&] { a.copy_from(Tensor::zeros({6}, DType::kFloat32)); }), ErrorCode::kInvalidInput);
}

TEST(TensorTest, CopiesOfCudaTensorsAreUnsupported) {
  // A CUDA tensor over a dummy address: loom must refuse before touching it.
  alignas(64) static uint8_t fake[64];
  const int64_t shape[] = {2, 4};
  const int64_t strides[] = {1, 2};
  const Tensor dev = Tensor::from_blob(fake, shape, strides, DType::kUInt8, Device::cuda(0));
  EXPECT_EQ(dev.device(), Device::cuda(0));
  EXPECT_FALSE(dev.device().is_cpu());
  EXPECT_EQ(error_code_of([&] { dev.clone(); }), ErrorCode::kUnsupported);
  EXPECT_EQ(error_code_of([&] { dev.contiguous(); }), ErrorCode::kUnsupported);
  const Tensor host = Tensor::zeros({2, 4}, DType::kUInt8);
  EXPECT_EQ(error_code_of([&] { host.copy_from(dev); }), ErrorCode::kUnsupported);
  const int64_t cshape[] = {2, 4};
  const Tensor dev_contig = Tensor::from_blob(fake, cshape, {}, DType::kUInt8, Device::cuda(1));
  EXPECT_EQ(error_code_of([&] { dev_contig.copy_from(host); }), ErrorCode::kUnsupported);
  // Views of a device tensor stay on the device and need no data access.
  EXPECT_EQ(dev.permute({1, 0}).device(), Device::cuda(0));
  EXPECT_EQ(dev_contig.slice(1, 1, 3).device(), Device::cuda(1));
}

TEST(TensorTest, SharedStorageAcrossThreadsIsReleasedOnce) {
  std::atomic<int> calls{0};
  std::vector<float> buf(64, 0.f);
  {
    const int64_t shape[] = {8, 8};
    const Tensor t =
        Tensor::from_blob(buf.data(), shape, {}, DType::kFloat32, Device::cpu(), [&](void*) { calls.fetch_add(1); });
    std::vector<std::thread> threads;
    for (int k = 0; k < 8; ++k) {
      threads.emplace_back([t, k] {
        for (int i = 0; i < 2000; ++i) {
          Tensor v = t.slice(0, k % 8, 8).permute({1, 0});
          Tensor w = v.select(0, i % 8);
          (void)w.numel();
        }
      });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(t.use_count(), 1);
    EXPECT_EQ(calls.load(), 0);
  }
  EXPECT_EQ(calls.load(), 1);
}

}  // namespace
}  // namespace loom

namespace loom {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAsan = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAsan = true;
#else
constexpr bool kAsan = false;
#endif
#else
constexpr bool kAsan = false;
#endif

TEST(TensorCacheTest, LargeStorageIsReusedAndReleasedOnRequest) {
  release_cached_memory();
  const void* first = nullptr;
  {
    const Tensor a = Tensor::empty({1000, 1000}, DType::kUInt8);  // 1 MB: cached when freed
    first = a.data();
  }
  if (kAsan) {  // ASan: nothing is kept, so that a use after free is still reported
    EXPECT_EQ(release_cached_memory(), 0u);
    return;
  }
  {
    // A size of the same class (1,000,000 and 1,040,000 bytes both round up to 1,048,576) reuses it.
    const Tensor b = Tensor::empty({1040000}, DType::kUInt8);
    EXPECT_EQ(b.data(), first);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data()) % kTensorAlignment, 0u);
  }
  const Tensor small = Tensor::empty({1000}, DType::kUInt8);  // below 64 KiB: never cached
  EXPECT_GE(release_cached_memory(), size_t{1000000});
  EXPECT_EQ(release_cached_memory(), 0u);
}

}  // namespace
}  // namespace loom
