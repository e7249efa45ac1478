// The loader into CUDA device memory (LoaderOptions::device): the same batches as the CPU loader, on
// the device, ready on the consumer's stream. Label gpu; every test skips without a device.
#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <vector>

#include "loom/accel/cuda.h"
#include "loom/accel/device_memory.h"
#include "loom/accel/stream.h"
#include "loom/loader/loader.h"
#include "loom/transforms/geometry_transforms.h"
#include "synthetic_dataset.h"

namespace loom::loader {
namespace {

const auto kData = std::make_shared<const test::SyntheticDataset>(37);

LoaderOptions options(Device device) {
  LoaderOptions o;
  o.batch_size = 8;
  o.threads = 2;
  o.order.shuffle = Shuffle::kTorch;
  o.order.seed = 3;
  o.fields = default_fields();
  o.fields[0].image.crop = std::make_shared<transforms::RandomResizedCrop>(Size{32, 32});
  o.fields[0].image.normalize = ImageField::Normalization{{0.485f, 0.456f, 0.406f}, {0.229f, 0.224f, 0.225f}};
  o.device = device;
  return o;
}

std::vector<uint8_t> host_bytes(const Tensor& t) {
  const Tensor h = t.device().is_cpu() ? t.contiguous() : accel::to_device(t, Device::cpu());
  const auto* p = static_cast<const uint8_t*>(h.data());
  return {p, p + h.nbytes()};
}

TEST(LoaderGpu, DeviceBatchesEqualTheCpuBatches) {
  if (accel::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  Loader cpu(kData, options(Device::cpu()));
  Loader gpu(kData, options(Device::cuda(0)));
  ASSERT_EQ(cpu.num_batches(), gpu.num_batches());
  for (int64_t step = 0; step < cpu.num_batches(); ++step) {
    const std::optional<Batch> a = cpu.next(), b = gpu.next();
    ASSERT_TRUE(a && b);
    EXPECT_EQ(a->indices, b->indices);
    EXPECT_TRUE(b->ready.defined());
    for (const char* name : {"image", "label"}) {
      const Tensor& t = (*b)[name].tensor;
      EXPECT_EQ(t.device(), Device::cuda(0)) << name;
      EXPECT_EQ(host_bytes((*a)[name].tensor), host_bytes(t)) << name << " of batch " << step;
    }
  }
}

TEST(LoaderGpu, ABatchIsReadyOnAnotherStreamAfterUseOn) {
  if (accel::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  Loader cpu(kData, options(Device::cpu()));
  Loader gpu(kData, options(Device::cuda(0)));
  const accel::Stream consumer = accel::Stream::create(0);
  const std::optional<Batch> b = gpu.next();
  ASSERT_TRUE(b);
  b->use_on(consumer);
  const Tensor back = accel::copy(b->fields[0].second.tensor, Device::cpu(), consumer);
  consumer.synchronize();
  EXPECT_EQ(host_bytes(back), host_bytes(cpu.next()->fields[0].second.tensor));
}

TEST(LoaderGpu, TheSteadyStateReusesDeviceAndPinnedMemory) {
  if (accel::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  Loader gpu(kData, options(Device::cuda(0)));
  for (const Batch& b : gpu) (void)b;  // one epoch warms the caches
  const accel::MemoryStats device_before = accel::device_memory_stats(0);
  const accel::MemoryStats pinned_before = accel::pinned_memory_stats();
  for (const Batch& b : gpu) (void)b;
  const accel::MemoryStats device_after = accel::device_memory_stats(0);
  const accel::MemoryStats pinned_after = accel::pinned_memory_stats();
  const uint64_t device_fresh =
      (device_after.allocations - device_before.allocations) - (device_after.reuses - device_before.reuses);
  EXPECT_EQ(device_fresh, 0u) << "the second epoch's batches reuse the first epoch's device blocks";
  EXPECT_EQ(pinned_after.allocations - pinned_before.allocations, pinned_after.reuses - pinned_before.reuses);
}

}  // namespace
}  // namespace loom::loader
