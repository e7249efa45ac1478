// loom_bench_gpu_transforms: resize and normalize on a CUDA device against the same ops on the CPU, on
// the same synthetic image, one JSON line per case with the ratio (cpu_ms / gpu_ms):
//   {"op": "resize", "case": "uint8 CHW 1920x1080 -> 224x224 bilinear aa", "cpu_ms": 1.9, "gpu_ms": 0.05,
//    "cpu_over_gpu": 38.0}
// CPU: one thread, the best SIMD target. GPU: the op queued on a stream of its own, timed from the call to
// the stream's synchronize (launch, weights upload and kernels), median of repeated calls; the image is
// on the device beforehand (decode or copy is not counted). Without a usable CUDA device it prints one
// line saying so and exits 0, so that run_all.sh and the GPU check can call it anywhere.
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "loom/accel/cuda.h"
#include "loom/accel/stream.h"
#include "loom/transforms/color.h"
#include "loom/transforms/resize.h"
#include "median_time.h"

namespace {

using loom::DType;
using loom::Layout;
using loom::Tensor;
namespace tf = loom::transforms;

Tensor pattern(std::initializer_list<int64_t> shape, DType dtype) {
  Tensor t = Tensor::empty(shape, DType::kUInt8);
  auto* p = t.data<uint8_t>();
  uint32_t x = 12345;
  for (int64_t i = 0; i < t.numel(); ++i) {
    x = x * 1664525u + 1013904223u;
    p[i] = static_cast<uint8_t>((i % 1920) / 8 + (x >> 28));  // gradients plus a little noise
  }
  return dtype == DType::kUInt8 ? t : tf::to_dtype(t, dtype);
}

template <typename Op>
void report(const std::string& op, const std::string& label, const Tensor& image, Op&& run) {
  const double cpu = loom::bench::median_seconds([&] { (void)run(image); });
  const loom::accel::Stream stream = loom::accel::Stream::create(0);
  const loom::accel::StreamGuard on(stream);
  const Tensor device_image = loom::accel::to_device(image, loom::Device::cuda(0));
  const double gpu = loom::bench::median_seconds([&] {
    (void)run(device_image);
    stream.synchronize();
  });
  std::puts(fmt::format(R"({{"op": "{}", "case": "{}", "cpu_ms": {:.4f}, "gpu_ms": {:.4f}, "cpu_over_gpu": {:.2f}}})",
                        op, label, cpu * 1e3, gpu * 1e3, cpu / gpu)
                .c_str());
  std::fflush(stdout);
}

}  // namespace

int main() {
  if (loom::accel::cuda_device_count() == 0) {
    std::puts(R"({"skipped": "no CUDA device"})");
    return 0;
  }
  const Tensor u8_chw = pattern({3, 1080, 1920}, DType::kUInt8);
  const Tensor f32_chw = pattern({3, 1080, 1920}, DType::kFloat32);
  const Tensor u8_hwc = u8_chw.permute({1, 2, 0}).contiguous();
  struct ResizeCase {
    const char* label;
    const Tensor* image;
    loom::Size size;
    tf::ResizeOptions options;
  };
  const std::vector<ResizeCase> resizes = {
      {"uint8 CHW 1920x1080 -> 224x224 bilinear aa", &u8_chw, {224, 224}, {}},
      {"uint8 HWC 1920x1080 -> 224x224 bilinear aa", &u8_hwc, {224, 224}, {.layout = Layout::kHWC}},
      {"uint8 CHW 1920x1080 -> 512x288 bicubic aa",
       &u8_chw,
       {288, 512},
       {.interpolation = tf::Interpolation::kBicubic}},
      {"uint8 CHW 1920x1080 -> 3840x2160 bilinear", &u8_chw, {2160, 3840}, {.antialias = false}},
      {"float32 CHW 1920x1080 -> 224x224 bilinear aa", &f32_chw, {224, 224}, {}},
  };
  for (const ResizeCase& c : resizes) {
    report("resize", c.label, *c.image, [&](const Tensor& x) { return tf::resize(x, c.size, c.options); });
  }
  const std::vector<float> mean{0.485f, 0.456f, 0.406f}, std{0.229f, 0.224f, 0.225f};
  report("normalize", "uint8 CHW 1920x1080 -> float32 CHW", u8_chw,
         [&](const Tensor& x) { return tf::normalize(x, mean, std); });
  report("normalize", "uint8 HWC 1920x1080 -> float32 CHW", u8_hwc, [&](const Tensor& x) {
    return tf::normalize(x, mean, std, {.input_layout = Layout::kHWC, .output_layout = Layout::kCHW});
  });
  return 0;
}
