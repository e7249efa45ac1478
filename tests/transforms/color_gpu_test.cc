// normalize on CUDA tensors (color.cu) against the CPU on the host: uint8 and float32 in, every
// input/output layout pair, 1, 3, 4 and 7 channels, per-channel and shared mean/std, strided inputs and
// normalize_into a device slot. The same float32 operations in the same order: bit-equal. Label gpu:
// each test skips without a CUDA device.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpu_test_util.h"
#include "loom/accel/device_memory.h"
#include "loom/accel/stream.h"
#include "loom/codec/error.h"
#include "loom/transforms/color.h"

namespace loom::transforms {
namespace {

using gpu_test::same_bytes;
using gpu_test::synthetic_image;
using gpu_test::to_cpu;
using gpu_test::to_cuda;

TEST(NormalizeGpu, EveryLayoutPairDtypeAndChannelCountIsBitEqual) {
  LOOM_SKIP_WITHOUT_CUDA();
  uint64_t seed = 3;
  for (DType dtype : {DType::kUInt8, DType::kFloat32}) {
    for (int64_t channels : {1, 3, 4, 7}) {
      std::vector<float> mean, std;
      for (int64_t c = 0; c < channels; ++c) {
        mean.push_back(0.485f - 0.03f * static_cast<float>(c));
        std.push_back(0.229f + 0.011f * static_cast<float>(c));
      }
      for (bool hwc_in : {false, true}) {
        for (bool hwc_out : {false, true}) {
          for (bool noise : {false, true}) {
            const Tensor image = synthetic_image(67, 129, channels, dtype, hwc_in, noise, ++seed);
            NormalizeOptions o;
            o.input_layout = hwc_in ? Layout::kHWC : Layout::kCHW;
            o.output_layout = hwc_out ? Layout::kHWC : Layout::kCHW;
            SCOPED_TRACE(std::string(to_string(dtype)) + " " + std::to_string(channels) + "ch " +
                         (hwc_in ? "HWC" : "CHW") + " -> " + (hwc_out ? "HWC" : "CHW"));
            const Tensor gpu = normalize(to_cuda(image), mean, std, o);
            EXPECT_EQ(gpu.device(), Device::cuda(0));
            ASSERT_TRUE(same_bytes(normalize(image, mean, std, o), to_cpu(gpu)));
            ASSERT_TRUE(same_bytes(normalize(image, {0.5f}, {0.25f}, o),
                                   to_cpu(normalize(to_cuda(image), {0.5f}, {0.25f}, o))));
          }
        }
      }
    }
  }
}

TEST(NormalizeGpu, StridedInputsAndDeviceSlots) {
  LOOM_SKIP_WITHOUT_CUDA();
  const std::vector<float> mean = {0.485f, 0.456f, 0.406f}, std = {0.229f, 0.224f, 0.225f};
  const Tensor hwc = synthetic_image(50, 70, 3, DType::kUInt8, true, false, 21);
  // An HWC image seen as CHW through a permuted view, on the device.
  const Tensor view = to_cuda(hwc).permute({2, 0, 1});
  ASSERT_FALSE(view.is_contiguous());
  EXPECT_TRUE(same_bytes(normalize(hwc.permute({2, 0, 1}), mean, std), to_cpu(normalize(view, mean, std))));
  // normalize_into one slot of a device batch.
  const accel::Stream stream = accel::current_stream(0);
  const Tensor batch = accel::empty_device({2, 3, 50, 70}, DType::kFloat32, Device::cuda(0), stream);
  NormalizeOptions o;
  o.input_layout = Layout::kHWC;
  normalize_into(to_cuda(hwc), batch.select(0, 1), mean, std, o);
  EXPECT_TRUE(same_bytes(normalize(hwc, mean, std, o), to_cpu(batch.select(0, 1).contiguous())));
  // A CPU slot for a device image is refused.
  const Tensor cpu_slot = Tensor::empty({3, 50, 70}, DType::kFloat32);
  EXPECT_THROW(normalize_into(to_cuda(hwc), cpu_slot, mean, std, o), Error);
}

}  // namespace
}  // namespace loom::transforms
