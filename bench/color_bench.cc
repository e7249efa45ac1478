// loom_bench_color: single-thread time of the color / dtype / noise ops of loom::transforms, per Highway
// target for the SIMD ones.
//
// Usage: loom_bench_color RAW_RGB WIDTH HEIGHT
//
// RAW_RGB holds WIDTH x HEIGHT x 3 bytes (HWC), written by bench/noise_normalize.py so that every tool
// works on the same pixels. Each op runs untimed for 0.1 s, then the median of enough runs to take 0.2 s
// is printed as one JSON line:
//   {"op": "normalize_u8_hwc_to_chw", "target": "AVX3", "size": "1920x1080", "ms": 1.23}
// SIMD ops (normalize, to_dtype uint8 -> float32, gaussian_noise) are timed on every target this CPU
// supports (Highway's names; SCALAR / EMU128 = no SIMD); the scalar ops once, with target "-".
#include <fmt/format.h>
#include <hwy/targets.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "loom/transforms/color.h"
#include "loom/transforms/noise.h"
#include "median_time.h"
#include "raw_tensor.h"

namespace {

using loom::Layout;
namespace lt = loom::transforms;

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s RAW_RGB WIDTH HEIGHT\n", argv[0]);
    return 2;
  }
  const int width = std::stoi(argv[2]), height = std::stoi(argv[3]);
  loom::Tensor hwc = loom::Tensor::empty({height, width, 3}, loom::DType::kUInt8);
  if (!loom::bench::read_raw(argv[1], hwc)) return 2;
  const loom::Tensor chw = hwc.permute({2, 0, 1}).contiguous();
  const loom::Tensor chw_f = lt::to_dtype(chw, loom::DType::kFloat32);
  const std::vector<float> mean{0.485f, 0.456f, 0.406f}, std{0.229f, 0.224f, 0.225f};
  const std::string size = fmt::format("{}x{}", width, height);
  auto report = [&](const std::string& op, const std::string& target, double s) {
    std::puts(fmt::format(R"({{"op": "{}", "target": "{}", "size": "{}", "ms": {:.4f}}})", op, target, size, s * 1e3)
                  .c_str());
  };
  lt::Rng rng(1);
  const std::vector<std::pair<std::string, std::function<void()>>> simd = {
      {"normalize_u8_hwc_to_chw",
       [&] {
         (void)lt::normalize(hwc, mean, std, {Layout::kHWC, Layout::kCHW});
       }},
      {"normalize_u8_chw", [&] { (void)lt::normalize(chw, mean, std); }},
      {"normalize_f32_chw", [&] { (void)lt::normalize(chw_f, mean, std); }},
      {"to_dtype_u8_f32", [&] { (void)lt::to_dtype(chw, loom::DType::kFloat32); }},
      {"gaussian_noise_u8", [&] { (void)lt::gaussian_noise(hwc, rng, 0.0, 0.1); }},
      {"gaussian_noise_f32", [&] { (void)lt::gaussian_noise(chw_f, rng, 0.0, 0.1); }},
  };
  for (const auto& [op, fn] : simd) {
    for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
      hwy::SetSupportedTargetsForTest(target);
      report(op, hwy::TargetName(target), loom::bench::median_seconds(fn));
    }
    hwy::SetSupportedTargetsForTest(0);
  }
  const std::vector<std::pair<std::string, std::function<void()>>> scalar = {
      {"adjust_brightness_u8", [&] { (void)lt::adjust_brightness(chw, 1.3); }},
      {"adjust_contrast_u8", [&] { (void)lt::adjust_contrast(chw, 1.3); }},
      {"adjust_saturation_u8", [&] { (void)lt::adjust_saturation(chw, 1.3); }},
      {"adjust_hue_u8", [&] { (void)lt::adjust_hue(chw, 0.1); }},
      {"rgb_to_grayscale_u8", [&] { (void)lt::rgb_to_grayscale(chw); }},
      {"gaussian_blur_u8_k9",
       [&] {
         (void)lt::gaussian_blur(chw, {9, 9}, {2.0, 2.0});
       }},
  };
  for (const auto& [op, fn] : scalar) report(op, "-", loom::bench::median_seconds(fn));
  return 0;
}
