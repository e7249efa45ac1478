// The flips, crop, center_crop and pad on CUDA tensors (the gather of geometry.cu) against the CPU on
// the host: uint8, int16, float32 and float64, CHW and HWC, crops inside and across the border, every
// pad mode with fills, strided inputs. A gather copies elements: bit-equal. Label gpu: each test skips
// without a CUDA device.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "gpu_test_util.h"
#include "loom/transforms/geometry.h"

namespace loom::transforms {
namespace {

using gpu_test::same_bytes;
using gpu_test::synthetic_image;
using gpu_test::to_cpu;
using gpu_test::to_cuda;

TEST(GeometryGpu, FlipsCropsAndPadsAreBitEqual) {
  LOOM_SKIP_WITHOUT_CUDA();
  const std::vector<std::pair<std::string, std::function<Sample(const Sample&)>>> ops = {
      {"horizontal_flip", [](const Sample& s) { return horizontal_flip(s); }},
      {"vertical_flip", [](const Sample& s) { return vertical_flip(s); }},
      {"crop inside", [](const Sample& s) { return crop(s, 5, 7, 20, 31); }},
      {"crop across", [](const Sample& s) { return crop(s, -4, 30, 50, 40); }},
      {"center_crop",
       [](const Sample& s) {
         return center_crop(s, {24, 24});
       }},
      {"center_crop larger",
       [](const Sample& s) {
         return center_crop(s, {60, 77});
       }},
      {"pad constant",
       [](const Sample& s) {
         return pad(s, {3, 1, 4, 2}, PadMode::kConstant, {7.0, 100.0, 250.0});
       }},
      {"pad edge",
       [](const Sample& s) {
         return pad(s, {5, 0, 2, 6}, PadMode::kEdge);
       }},
      {"pad reflect",
       [](const Sample& s) {
         return pad(s, {4, 4, 4, 4}, PadMode::kReflect);
       }},
      {"pad symmetric",
       [](const Sample& s) {
         return pad(s, {2, 9, 0, 3}, PadMode::kSymmetric);
       }},
  };
  uint64_t seed = 70;
  for (DType dtype : {DType::kUInt8, DType::kInt16, DType::kFloat32, DType::kFloat64}) {
    for (bool hwc : {false, true}) {
      const Tensor image = synthetic_image(41, 63, 3, dtype, hwc, false, ++seed);
      const Layout layout = hwc ? Layout::kHWC : Layout::kCHW;
      const Sample cpu{image, layout, {}, {}, {}};
      const Sample gpu{to_cuda(image), layout, {}, {}, {}};
      for (const auto& [name, op] : ops) {
        SCOPED_TRACE(name + " " + std::string(to_string(dtype)) + (hwc ? " HWC" : " CHW"));
        const Tensor out = op(gpu).image;
        EXPECT_EQ(out.device(), Device::cuda(0));
        ASSERT_TRUE(same_bytes(op(cpu).image, to_cpu(out)));
      }
    }
  }
}

TEST(GeometryGpu, StridedViewsAndOneChannel) {
  LOOM_SKIP_WITHOUT_CUDA();
  const Tensor hwc = synthetic_image(30, 44, 4, DType::kUInt8, true, true, 3);
  // HWC seen as CHW through a permuted view, and a flipped view, on the device.
  const Sample cpu{hwc.permute({2, 0, 1}), Layout::kCHW, {}, {}, {}};
  const Sample gpu{to_cuda(hwc).permute({2, 0, 1}), Layout::kCHW, {}, {}, {}};
  ASSERT_FALSE(gpu.image.is_contiguous());
  EXPECT_TRUE(same_bytes(horizontal_flip(cpu).image, to_cpu(horizontal_flip(gpu).image)));
  EXPECT_TRUE(same_bytes(crop(cpu, 3, -2, 17, 19).image, to_cpu(crop(gpu, 3, -2, 17, 19).image)));
  const Tensor gray = synthetic_image(33, 17, 1, DType::kFloat32, false, false, 4);
  const Sample g_cpu{gray, Layout::kCHW, {}, {}, {}};
  const Sample g_gpu{to_cuda(gray), Layout::kCHW, {}, {}, {}};
  EXPECT_TRUE(same_bytes(vertical_flip(g_cpu).image, to_cpu(vertical_flip(g_gpu).image)));
  EXPECT_TRUE(same_bytes(pad(g_cpu, {1, 2, 3, 4}, PadMode::kReflect).image,
                         to_cpu(pad(g_gpu, {1, 2, 3, 4}, PadMode::kReflect).image)));
}

}  // namespace
}  // namespace loom::transforms
