// CUDA runtime surface: works without a GPU (and without CUDA); GPU tests skip when no device is usable.
#include "loom/accel/cuda.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include "loom/codec/error.h"
#include "loom/codec/tensor.h"
#include "test_media.h"

namespace loom::accel {
namespace {
using loom::test::error_code_of;

Tensor iota_f32(std::initializer_list<int64_t> shape) {
  Tensor t = Tensor::empty(shape, DType::kFloat32);
  std::iota(t.data<float>(), t.data<float>() + t.numel(), 0.f);
  return t;
}

TEST(CudaTest, DeviceCountNeverThrows) {
  int n = -1;
  EXPECT_NO_THROW(n = cuda_device_count());
  EXPECT_GE(n, 0);
  EXPECT_EQ(cuda_device_count(), n) << "the count must be stable";
  if (!built_with_cuda()) {
    EXPECT_EQ(n, 0);
  }
}

TEST(CudaTest, CpuToCpuIsADeepContiguousCopy) {
  const Tensor src = iota_f32({3, 4});
  const Tensor out = to_device(src, Device::cpu());
  EXPECT_TRUE(out.device().is_cpu());
  EXPECT_NE(out.data(), src.data());
  EXPECT_TRUE(out.is_contiguous());
  EXPECT_EQ(out.dtype(), DType::kFloat32);
  ASSERT_EQ(out.numel(), 12);
  for (int i = 0; i < 12; ++i) EXPECT_EQ(out.data<float>()[i], static_cast<float>(i));
  src.data<float>()[0] = 99.f;
  EXPECT_EQ(out.data<float>()[0], 0.f) << "to_device(cpu) must not alias its source";
}

TEST(CudaTest, CpuToCpuOfAStridedViewIsContiguous) {
  const Tensor src = iota_f32({3, 4}).permute({1, 0});  // out[i][j] = 4 j + i
  const Tensor out = to_device(src, Device::cpu());
  EXPECT_TRUE(out.is_contiguous());
  ASSERT_EQ(out.size(0), 4);
  ASSERT_EQ(out.size(1), 3);
  for (int64_t i = 0; i < 4; ++i) {
    for (int64_t j = 0; j < 3; ++j) EXPECT_EQ(out.data<float>()[i * 3 + j], static_cast<float>(4 * j + i));
  }
}

TEST(CudaTest, ToCudaWithoutADeviceIsUnsupported) {
  if (cuda_device_count() > 0) GTEST_SKIP() << "a CUDA device is present";
  const Tensor src = iota_f32({2, 2});
  EXPECT_EQ(error_code_of([&] { to_device(src, Device::cuda(0)); }), ErrorCode::kUnsupported);
  EXPECT_EQ(error_code_of([&] { to_device(src.permute({1, 0}), Device::cuda(0)); }), ErrorCode::kUnsupported);
}

TEST(CudaTest, MissingDeviceOrdinalIsUnsupported) {
  const Tensor src = iota_f32({2});
  const int n = cuda_device_count();
  EXPECT_EQ(error_code_of([&] { to_device(src, Device::cuda(n)); }), ErrorCode::kUnsupported);
  EXPECT_EQ(error_code_of([&] { to_device(src, Device::cuda(n + 7)); }), ErrorCode::kUnsupported);
  EXPECT_EQ(error_code_of([&] { to_device(src, Device::cuda(-1)); }), ErrorCode::kUnsupported);
}

TEST(CudaTest, FromAnUnusableCudaTensorIsUnsupported) {
  if (cuda_device_count() > 0) GTEST_SKIP() << "a CUDA device is present";
  alignas(64) static float fake[4];
  const int64_t shape[] = {4};
  const Tensor dev = Tensor::from_blob(fake, shape, {}, DType::kFloat32, Device::cuda(0));
  EXPECT_EQ(error_code_of([&] { to_device(dev, Device::cpu()); }), ErrorCode::kUnsupported);
  EXPECT_EQ(error_code_of([&] { to_device(dev, Device::cuda(0)); }), ErrorCode::kUnsupported);
}

}  // namespace
}  // namespace loom::accel
