// gaussian_noise on CUDA tensors (noise.cu) against the CPU on the host: uint8 and float32, clip on and
// off, small and large sigma (uint8's int16 saturation and wrap), 3 million elements per image (about
// 36 000 draws through the ziggurat fallback, a few hundred through its tail). The same key, hash,
// ziggurat and fallback stream: bit-equal on every element (the bound tested is 0 differing elements;
// noise_kernels.h says why a fallback draw could in principle round 1 ulp apart). Label gpu: each test
// skips without a CUDA device.
#include <gtest/gtest.h>

#include <string>

#include "gpu_test_util.h"
#include "loom/transforms/noise.h"
#include "loom/transforms/random.h"

namespace loom::transforms {
namespace {

using gpu_test::same_bytes;
using gpu_test::synthetic_image;
using gpu_test::to_cpu;
using gpu_test::to_cuda;

TEST(GaussianNoiseGpu, BitEqualToTheCpu) {
  LOOM_SKIP_WITHOUT_CUDA();
  uint64_t seed = 40;
  for (DType dtype : {DType::kUInt8, DType::kFloat32}) {
    const Tensor image = synthetic_image(1000, 1000, 3, dtype, false, false, ++seed);
    const Tensor device_image = to_cuda(image);
    for (bool clip : {true, false}) {
      for (auto [mean, sigma] : {std::pair{0.0, 0.1}, std::pair{0.2, 0.5}, std::pair{-0.1, 200.0}}) {
        SCOPED_TRACE(std::string(to_string(dtype)) + " mean " + std::to_string(mean) + " sigma " +
                     std::to_string(sigma) + (clip ? " clip" : " no clip"));
        Rng cpu_rng(seed, 5), gpu_rng(seed, 5);
        const Tensor cpu = gaussian_noise(image, cpu_rng, mean, sigma, clip);
        const Tensor gpu = gaussian_noise(device_image, gpu_rng, mean, sigma, clip);
        ASSERT_TRUE(same_bytes(cpu, to_cpu(gpu)));
        EXPECT_EQ(cpu_rng.next(), gpu_rng.next());  // one draw on either side
      }
    }
  }
}

TEST(GaussianNoiseGpu, OddSizesHwcAndStridedInputs) {
  LOOM_SKIP_WITHOUT_CUDA();
  const Tensor image = synthetic_image(37, 53, 3, DType::kUInt8, true, true, 9);
  Rng a(1), b(1);
  EXPECT_TRUE(same_bytes(gaussian_noise(image, a, 0.0, 0.3), to_cpu(gaussian_noise(to_cuda(image), b, 0.0, 0.3))));
  // A permuted device view is read as the CPU reads its contiguous copy.
  const Tensor view = to_cuda(image).permute({2, 0, 1});
  ASSERT_FALSE(view.is_contiguous());
  Rng c(2), d(2);
  EXPECT_TRUE(
      same_bytes(gaussian_noise(image.permute({2, 0, 1}), c, 0.0, 0.3), to_cpu(gaussian_noise(view, d, 0.0, 0.3))));
}

}  // namespace
}  // namespace loom::transforms
