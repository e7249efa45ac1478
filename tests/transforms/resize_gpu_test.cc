// resize on CUDA tensors (resize.cu) against the CPU on the host: every interpolation, antialias on
// and off, uint8, uint16 and float32, CHW and HWC, 1 to 4 channels, down- and upscales, one-axis
// resizes, strided inputs and a stream of the caller's. The GPU runs the CPU's plan (pass order, and
// for uint8 the fast 16-bit kernels unless pillow_exact) with the CPU's arithmetic, so its result must
// equal the CPU's bit for bit, by default and with pillow_exact. Label gpu: each test skips without a
// CUDA device.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpu_test_util.h"
#include "loom/accel/stream.h"
#include "loom/transforms/geometry.h"
#include "loom/transforms/resize.h"

namespace loom::transforms {
namespace {

using gpu_test::same_bytes;
using gpu_test::synthetic_image;
using gpu_test::to_cpu;
using gpu_test::to_cuda;

struct Mode {
  Interpolation interpolation;
  bool antialias;
  const char* name;
};

const Mode kModes[] = {
    {Interpolation::kNearest, true, "nearest"},   {Interpolation::kNearestExact, true, "nearest-exact"},
    {Interpolation::kBilinear, true, "bilinear"}, {Interpolation::kBilinear, false, "bilinear-no-aa"},
    {Interpolation::kBicubic, true, "bicubic"},   {Interpolation::kBicubic, false, "bicubic-no-aa"},
    {Interpolation::kBox, true, "box"},           {Interpolation::kBox, false, "box-no-aa"},
};

struct Case {
  Size in, out;
};

// Down, up, mixed, one axis only, a large downscale (wide windows), the same size, tiny images.
const Case kCases[] = {
    {{97, 131}, {31, 47}}, {{37, 53}, {100, 77}},    {{64, 80}, {120, 33}}, {{64, 64}, {64, 29}},
    {{64, 64}, {23, 64}},  {{480, 640}, {224, 224}}, {{45, 45}, {45, 45}},  {{3, 2}, {7, 1}},
};

// Runs one resize on both sides, by default and with pillow_exact, and checks that the GPU gives the
// CPU's bits in both; `what` names the case in failures.
void check_resize(const Tensor& image, Size out, ResizeOptions options, const std::string& what) {
  SCOPED_TRACE(what);
  const Tensor device_image = to_cuda(image);
  for (bool exact : {false, true}) {
    options.pillow_exact = exact;
    SCOPED_TRACE(exact ? "pillow_exact" : "default");
    ASSERT_TRUE(same_bytes(resize(image, out, options), to_cpu(resize(device_image, out, options))));
  }
}

TEST(ResizeGpu, EveryModeDtypeLayoutAndSizeEqualsTheCpu) {
  LOOM_SKIP_WITHOUT_CUDA();
  uint64_t seed = 1;
  for (DType dtype : {DType::kUInt8, DType::kUInt16, DType::kFloat32}) {
    for (bool hwc : {false, true}) {
      for (int64_t channels : {1, 3}) {
        for (const Case& c : kCases) {
          for (bool noise : {false, true}) {
            const Tensor image = synthetic_image(c.in.height, c.in.width, channels, dtype, hwc, noise, ++seed);
            for (const Mode& m : kModes) {
              ResizeOptions o;
              o.interpolation = m.interpolation;
              o.antialias = m.antialias;
              o.layout = hwc ? Layout::kHWC : Layout::kCHW;
              check_resize(image, c.out, o,
                           std::string(to_string(dtype)) + (hwc ? " HWC " : " CHW ") + std::to_string(channels) +
                               "ch " + std::to_string(c.in.width) + "x" + std::to_string(c.in.height) + " -> " +
                               std::to_string(c.out.width) + "x" + std::to_string(c.out.height) + " " + m.name +
                               (noise ? " noise" : " scene"));
            }
          }
        }
      }
    }
  }
}

TEST(ResizeGpu, TwoAndFourChannels) {
  LOOM_SKIP_WITHOUT_CUDA();
  for (DType dtype : {DType::kUInt8, DType::kFloat32}) {
    for (int64_t channels : {2, 4}) {
      for (bool hwc : {false, true}) {
        const Tensor image = synthetic_image(75, 101, channels, dtype, hwc, false, 99);
        for (const Mode& m : kModes) {
          ResizeOptions o;
          o.interpolation = m.interpolation;
          o.antialias = m.antialias;
          o.layout = hwc ? Layout::kHWC : Layout::kCHW;
          check_resize(image, {40, 160}, o,
                       std::string(to_string(dtype)) + " " + std::to_string(channels) + "ch " + m.name);
        }
      }
    }
  }
}

TEST(ResizeGpu, StridedDeviceViewsAreReadThroughTheirStrides) {
  LOOM_SKIP_WITHOUT_CUDA();
  // An HWC image seen as CHW through a permuted view, and a column-reversed view, on the device.
  const Tensor hwc = synthetic_image(60, 90, 3, DType::kUInt8, true, false, 5);
  const Tensor chw_view = hwc.permute({2, 0, 1});
  const Tensor device_view = to_cuda(hwc).permute({2, 0, 1});
  ASSERT_FALSE(device_view.is_contiguous());
  ResizeOptions o;
  o.pillow_exact = true;
  EXPECT_TRUE(same_bytes(resize(chw_view, {33, 41}, o), to_cpu(resize(device_view, {33, 41}, o))));
  const Tensor reversed = to_cuda(hwc).slice(1, -1, -91, -1);
  ASSERT_FALSE(reversed.is_contiguous());
  o.layout = Layout::kHWC;
  EXPECT_TRUE(same_bytes(resize(hwc.slice(1, -1, -91, -1), {47, 20}, o), to_cpu(resize(reversed, {47, 20}, o))));
}

TEST(ResizeGpu, RunsOnTheCurrentStream) {
  LOOM_SKIP_WITHOUT_CUDA();
  const Tensor image = synthetic_image(200, 300, 3, DType::kUInt8, false, false, 11);
  const accel::Stream stream = accel::Stream::create(0);
  Tensor gpu;
  {
    const accel::StreamGuard guard(stream);
    gpu = resize(to_cuda(image), {64, 96});
    // to_device queues on the current stream, after the resize.
    EXPECT_TRUE(same_bytes(resize(image, {64, 96}), to_cpu(gpu)));
  }
  EXPECT_EQ(gpu.device(), Device::cuda(0));
  EXPECT_TRUE(gpu.is_contiguous());
}

TEST(ResizeGpu, SampleResizeAndResizedCropStayOnTheDevice) {
  LOOM_SKIP_WITHOUT_CUDA();
  const Tensor image = synthetic_image(120, 160, 3, DType::kUInt8, true, false, 13);
  ResizeOptions exact;
  exact.pillow_exact = true;
  const Sample cpu{image, Layout::kHWC, {}, {}, {}};
  const Sample gpu{to_cuda(image), Layout::kHWC, {}, {}, {}};
  EXPECT_TRUE(same_bytes(resize(cpu, {50, 70}, exact).image, to_cpu(resize(gpu, {50, 70}, exact).image)));
  EXPECT_TRUE(same_bytes(resized_crop(cpu, -5, 10, 100, 130, {64, 64}, exact).image,
                         to_cpu(resized_crop(gpu, -5, 10, 100, 130, {64, 64}, exact).image)));
}

}  // namespace
}  // namespace loom::transforms
