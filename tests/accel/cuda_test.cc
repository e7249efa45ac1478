// CUDA runtime surface: works without a GPU (and without CUDA); GPU tests skip when no device is usable.
#include "loom/accel/cuda.h"

#include "loom/accel/device_memory.h"
#include "loom/accel/stream.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <string>
#include <thread>
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

// ---- streams, events, allocators and copies where no device is usable ----

TEST(CudaTest, StreamsAndEventsNeedADevice) {
  if (cuda_device_count() > 0) GTEST_SKIP() << "a CUDA device is present";
  EXPECT_EQ(error_code_of([] { Stream::create(0); }), ErrorCode::kUnsupported);
  EXPECT_EQ(error_code_of([] { Event::create(0); }), ErrorCode::kUnsupported);
  try {
    Stream::create(0);
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(built_with_cuda() ? "no CUDA device (no GPU" : "built without CUDA"), std::string::npos)
        << what;
  }
  // The default stream and an event never recorded can always be waited on: there is nothing to wait for.
  const Stream default_stream;
  EXPECT_EQ(default_stream.handle(), nullptr);
  EXPECT_EQ(default_stream.device(), 0);
  EXPECT_NO_THROW(default_stream.synchronize());
  EXPECT_TRUE(default_stream.query());
  const Event none;
  EXPECT_FALSE(none.defined());
  EXPECT_TRUE(none.query());
  EXPECT_NO_THROW(none.synchronize());
  EXPECT_NO_THROW(default_stream.wait(none));
  Event never_created;
  EXPECT_EQ(error_code_of([&] { never_created.record(default_stream); }),
            built_with_cuda() ? ErrorCode::kInvalidInput : ErrorCode::kUnsupported);
  const DeviceGuard guard(0);  // nothing to select: no effect, no error
}

TEST(CudaTest, StreamGuardsSetTheThreadsCurrentStreamPerDeviceAndNest) {
  int a = 0, b = 0;  // stand-ins for cudaStream_t values: wrap never dereferences or destroys them
  EXPECT_EQ(current_stream(0).handle(), nullptr);
  EXPECT_EQ(current_stream(3).device(), 3);
  {
    const StreamGuard outer(Stream::wrap(&a, 0));
    EXPECT_EQ(current_stream(0).handle(), &a);
    EXPECT_EQ(current_stream(1).handle(), nullptr) << "another device keeps its default stream";
    {
      const StreamGuard inner(Stream::wrap(&b, 0));
      const StreamGuard other_device(Stream::wrap(&a, 2));
      EXPECT_EQ(current_stream(0).handle(), &b);
      EXPECT_EQ(current_stream(2).handle(), &a);
      EXPECT_EQ(current_stream(2).device(), 2);
    }
    EXPECT_EQ(current_stream(0).handle(), &a);
    EXPECT_EQ(current_stream(2).handle(), nullptr);
    std::thread([&] { EXPECT_EQ(current_stream(0).handle(), nullptr) << "per thread"; }).join();
  }
  EXPECT_EQ(current_stream(0).handle(), nullptr);
  EXPECT_EQ(error_code_of([] { Stream::wrap(nullptr, -1); }), ErrorCode::kInvalidInput);
}

TEST(CudaTest, AllocatorsAndAsyncCopiesNeedADevice) {
  if (cuda_device_count() > 0) GTEST_SKIP() << "a CUDA device is present";
  const Stream stream;
  EXPECT_EQ(error_code_of([&] { empty_device({4}, DType::kUInt8, Device::cuda(0), stream); }), ErrorCode::kUnsupported);
  EXPECT_EQ(error_code_of([] { empty_pinned({4}, DType::kUInt8); }), ErrorCode::kUnsupported);
  const Tensor src = iota_f32({3});
  EXPECT_EQ(error_code_of([&] { copy(src, Device::cuda(0), stream); }), ErrorCode::kUnsupported);
  const Tensor cpu = copy(src, Device::cpu(), stream);  // CPU to CPU works everywhere
  EXPECT_NE(cpu.data(), src.data());
  EXPECT_EQ(cpu.data<float>()[2], 2.f);
  const Tensor dst = Tensor::zeros({3}, DType::kFloat32);
  copy_into(src, dst, stream);
  EXPECT_EQ(dst.data<float>()[1], 1.f);
  alignas(64) static float fake[4];
  const int64_t shape[] = {3};
  const Tensor dev = Tensor::from_blob(fake, shape, {}, DType::kFloat32, Device::cuda(0));
  EXPECT_EQ(error_code_of([&] { copy_into(src, dev, stream); }), ErrorCode::kUnsupported);
  EXPECT_NO_THROW(record_stream(dev, stream)) << "not loom's memory: nothing to record";
  EXPECT_EQ(device_memory_stats(0).in_use_bytes, 0u);
  EXPECT_EQ(pinned_memory_stats().allocations, 0u);
  EXPECT_EQ(release_cached_device_memory(), 0u);
  EXPECT_EQ(release_cached_pinned_memory(), 0u);
}

TEST(CudaTest, CopiesCheckTheirArguments) {
  const Tensor src = iota_f32({2, 3});
  const Tensor wrong_shape = Tensor::zeros({3, 2}, DType::kFloat32);
  EXPECT_EQ(error_code_of([&] { copy_into(src, wrong_shape, Stream()); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(error_code_of([&] { copy(src.permute({1, 0}), Device::cpu(), Stream()); }), ErrorCode::kUnsupported);
}

TEST(CudaTest, CudaStatusesBecomeLoomErrors) {
  EXPECT_NO_THROW(check_cuda(0, "fine"));
  if (!built_with_cuda()) {
    EXPECT_EQ(error_code_of([] { check_cuda(2, "x"); }), ErrorCode::kUnsupported);
    return;
  }
  // cudaError_t values (driver_types.h): 2 out of memory, 100 no device, 209 no kernel image, 700 illegal address.
  EXPECT_EQ(error_code_of([] { check_cuda(2, "cudaMalloc"); }), ErrorCode::kLimitExceeded);
  EXPECT_EQ(error_code_of([] { check_cuda(100, "cudaSetDevice"); }), ErrorCode::kUnsupported);
  EXPECT_EQ(error_code_of([] { check_cuda(209, "resize kernel"); }), ErrorCode::kUnsupported);
  EXPECT_EQ(error_code_of([] { check_cuda(700, "resize kernel"); }), ErrorCode::kIo);
  try {
    check_cuda(2, "cudaMalloc of a batch");
    FAIL();
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("cudaMalloc of a batch"), std::string::npos) << what;
    EXPECT_NE(what.find("cudaErrorMemoryAllocation"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace loom::accel
