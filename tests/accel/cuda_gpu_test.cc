// CUDA copies on a real device. This executable carries the ctest label gpu; each test skips when no
// CUDA device is usable (no GPU, no driver, or a build without CUDA).
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>

#include "loom/accel/cuda.h"
#include "loom/codec/error.h"
#include "loom/codec/tensor.h"

namespace loom::accel {
namespace {

Tensor iota_f32(std::initializer_list<int64_t> shape) {
  Tensor t = Tensor::empty(shape, DType::kFloat32);
  std::iota(t.data<float>(), t.data<float>() + t.numel(), 0.f);
  return t;
}

// ---- GPU tests: need a usable CUDA device ----

TEST(CudaGpuTest, GpuRoundTripPreservesValues) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const Tensor src = iota_f32({5, 7, 3});
  const Tensor dev = to_device(src, Device::cuda(0));
  EXPECT_EQ(dev.device(), Device::cuda(0));
  EXPECT_TRUE(dev.is_contiguous());
  EXPECT_EQ(std::vector<int64_t>(dev.shape().begin(), dev.shape().end()), (std::vector<int64_t>{5, 7, 3}));
  const Tensor back = to_device(dev, Device::cpu());
  EXPECT_TRUE(back.device().is_cpu());
  ASSERT_EQ(back.numel(), src.numel());
  for (int64_t i = 0; i < src.numel(); ++i) ASSERT_EQ(back.data<float>()[i], src.data<float>()[i]) << i;
}

TEST(CudaGpuTest, GpuCopyOfAStridedHostViewIsContiguous) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const Tensor src = iota_f32({4, 6}).slice(1, 5, -7, -2);  // columns 5, 3, 1
  const Tensor back = to_device(to_device(src, Device::cuda(0)), Device::cpu());
  ASSERT_EQ(back.size(0), 4);
  ASSERT_EQ(back.size(1), 3);
  for (int64_t i = 0; i < 4; ++i) {
    for (int64_t j = 0; j < 3; ++j) EXPECT_EQ(back.data<float>()[i * 3 + j], static_cast<float>(6 * i + 5 - 2 * j));
  }
}

TEST(CudaGpuTest, GpuDeviceToDeviceAndEmptyTensors) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const Tensor src = iota_f32({16});
  const Tensor a = to_device(src, Device::cuda(0));
  const Tensor b = to_device(a, Device::cuda(0));
  EXPECT_NE(a.data(), b.data());
  const Tensor back = to_device(b, Device::cpu());
  for (int i = 0; i < 16; ++i) EXPECT_EQ(back.data<float>()[i], static_cast<float>(i));
  const Tensor empty = Tensor::empty({0, 3}, DType::kUInt8);
  const Tensor e = to_device(empty, Device::cuda(0));
  EXPECT_EQ(e.numel(), 0);
  EXPECT_EQ(to_device(e, Device::cpu()).numel(), 0);
}

}  // namespace
}  // namespace loom::accel
