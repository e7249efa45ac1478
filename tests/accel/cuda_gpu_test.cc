// CUDA copies on a real device. This executable carries the ctest label gpu; each test skips when no
// CUDA device is usable (no GPU, no driver, or a build without CUDA).
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <string>

#include "loom/accel/cuda.h"
#include "loom/accel/device_memory.h"
#include "loom/accel/stream.h"
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

TEST(CudaGpuTest, AsyncCopiesOnAStreamRoundTripThroughPinnedMemory) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const Stream stream = Stream::create(0);
  const Tensor src = iota_f32({64, 1024});
  const Tensor dev = copy(src, Device::cuda(0), stream);
  EXPECT_EQ(dev.device(), Device::cuda(0));
  const Tensor back = copy(dev, Device::cpu(), stream);
  EXPECT_TRUE(back.device().is_cpu());
  EXPECT_GE(pinned_memory_stats().in_use_bytes, src.nbytes()) << "a CPU result of copy() is pinned";
  Event done = Event::create(0);
  done.record(stream);
  done.synchronize();
  EXPECT_TRUE(done.query());
  EXPECT_TRUE(stream.query());
  for (int64_t i = 0; i < src.numel(); ++i) ASSERT_EQ(back.data<float>()[i], src.data<float>()[i]) << i;
  const Tensor into = Tensor::zeros({64, 1024}, DType::kFloat32);
  copy_into(dev, into, stream);
  stream.synchronize();
  EXPECT_EQ(into.data<float>()[65535], 65535.f);
}

TEST(CudaGpuTest, AnotherStreamWaitsOnAnEvent) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const Stream producer = Stream::create(0), consumer = Stream::create(0);
  const Tensor src = iota_f32({1 << 20});
  const Tensor pinned = empty_pinned({1 << 20}, DType::kFloat32);
  pinned.copy_from(src);
  const Tensor dev = copy(pinned, Device::cuda(0), producer);
  Event ready = Event::create(0);
  ready.record(producer);
  consumer.wait(ready);  // the consumer's copy back starts after the producer's copy
  const Tensor back = copy(dev, Device::cpu(), consumer);
  consumer.synchronize();
  EXPECT_EQ(back.data<float>()[(1 << 20) - 1], static_cast<float>((1 << 20) - 1));
  EXPECT_EQ(back.data<float>()[12345], 12345.f);
}

TEST(CudaGpuTest, TheCachingAllocatorReusesABlockOnItsStream) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const Stream stream = Stream::create(0);
  const MemoryStats before = device_memory_stats(0);
  void* first = nullptr;
  {
    const Tensor t = empty_device({3, 224, 224}, DType::kFloat32, Device::cuda(0), stream);
    first = t.data();
    EXPECT_EQ(t.device(), Device::cuda(0));
    EXPECT_TRUE(t.is_contiguous());
  }
  const Tensor again = empty_device({3, 224, 224}, DType::kFloat32, Device::cuda(0), stream);
  EXPECT_EQ(again.data(), first) << "the freed block serves the next request on its stream";
  const MemoryStats after = device_memory_stats(0);
  EXPECT_EQ(after.allocations, before.allocations + 2);
  EXPECT_EQ(after.reuses, before.reuses + 1);
  const Tensor other = empty_device({3, 224, 224}, DType::kFloat32, Device::cuda(0), Stream::create(0));
  EXPECT_NE(other.data(), first);
}

TEST(CudaGpuTest, RecordStreamKeepsABlockUntilTheOtherStreamHasPassed) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const Stream owner = Stream::create(0), reader = Stream::create(0);
  void* block = nullptr;
  {
    const Tensor t = empty_device({1 << 22}, DType::kUInt8, Device::cuda(0), owner);
    block = t.data();
    const Tensor big = empty_pinned({1 << 22}, DType::kUInt8);
    copy_into(t, big, reader);  // queued on reader: the block must outlive it
  }
  // Until reader has passed the copy, the block is parked; afterwards it is reused.
  reader.synchronize();
  const Tensor again = empty_device({1 << 22}, DType::kUInt8, Device::cuda(0), owner);
  EXPECT_EQ(again.data(), block);
}

TEST(CudaGpuTest, TooLargeAnAllocationIsALimitError) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const Stream stream = Stream::create(0);
  try {
    empty_device({int64_t{1} << 50}, DType::kUInt8, Device::cuda(0), stream);
    FAIL() << "a petabyte was allocated";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kLimitExceeded);
    EXPECT_NE(std::string(e.what()).find("out of memory"), std::string::npos) << e.what();
  }
  // The failure is not sticky: the next allocation works.
  EXPECT_NO_THROW(empty_device({16}, DType::kUInt8, Device::cuda(0), stream));
  EXPECT_GT(release_cached_device_memory() + device_memory_stats(0).in_use_bytes, 0u);
}

TEST(CudaGpuTest, GuardsSelectTheDeviceAndTheStream) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const Stream stream = Stream::create(0);
  {
    const StreamGuard guard(stream);
    EXPECT_EQ(current_stream(0).handle(), stream.handle());
    const Tensor dev = to_device(iota_f32({8}), Device::cuda(0));  // runs on the current stream
    EXPECT_EQ(to_device(dev, Device::cpu()).data<float>()[7], 7.f);
  }
  EXPECT_EQ(current_stream(0).handle(), nullptr);
  const DeviceGuard on(0);
  EXPECT_EQ(error_code_of([] { Stream::create(cuda_device_count()); }), ErrorCode::kUnsupported);
}

}  // namespace
}  // namespace loom::accel
