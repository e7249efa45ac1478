// loom_bench_resize: single-thread uint8 RGB resize time with loom::transforms, per Highway target.
//
// Usage: loom_bench_resize RAW_RGB WIDTH HEIGHT OUT_WxH [OUT_WxH ...]
//
// RAW_RGB holds WIDTH x HEIGHT x 3 bytes (HWC), written by bench/resize.py so that every tool resizes
// the same pixels. For each output size and each SIMD target this CPU supports (Highway's names:
// AVX3 = AVX-512, AVX2, SSE4, ..., SCALAR = the scalar reference), antialiased bilinear resize runs
// untimed for 0.1 s, then the median of enough runs to take 0.2 s is printed as one JSON line, for
// HWC by default and with pillow_exact, and for the same image as CHW uint8 by default:
//   {"target": "AVX3", "layout": "HWC", "mode": "default", "in": "1920x1080", "out": "224x224", "ms": 1.23}
// Then the same image as float32 CHW in [0, 1] (torch's layout; the float path is scalar, so one
// line with every target enabled):
//   {"dtype": "float32", "layout": "CHW", "in": "1920x1080", "out": "224x224", "ms": 4.56}
// LOOM_BENCH_TARGET=AVX2 (a Highway target name) runs that target only, for profiling one kernel.
#include <fmt/format.h>
#include <hwy/targets.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "loom/transforms/resize.h"
#include "median_time.h"
#include "raw_tensor.h"

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s RAW_RGB WIDTH HEIGHT OUT_WxH [OUT_WxH ...]\n", argv[0]);
    return 2;
  }
  const int width = std::stoi(argv[2]), height = std::stoi(argv[3]);
  loom::Tensor image = loom::Tensor::empty({height, width, 3}, loom::DType::kUInt8);
  if (!loom::bench::read_raw(argv[1], image)) return 2;
  loom::transforms::ResizeOptions hwc_options;
  hwc_options.layout = loom::Layout::kHWC;
  loom::transforms::ResizeOptions pillow_exact = hwc_options;
  pillow_exact.pillow_exact = true;
  const loom::Tensor chw_u8 = image.permute({2, 0, 1}).contiguous();
  struct Variant {
    const char* layout;
    const char* mode;
    const loom::Tensor& image;
    const loom::transforms::ResizeOptions& options;
  };
  loom::transforms::ResizeOptions chw_options;  // CHW is the default layout
  const Variant variants[] = {{"HWC", "default", image, hwc_options},
                              {"HWC", "pillow_exact", image, pillow_exact},
                              {"CHW", "default", chw_u8, chw_options}};
  loom::Tensor chw = loom::Tensor::empty({3, height, width}, loom::DType::kFloat32);
  for (int64_t c = 0; c < 3; ++c)
    for (int64_t i = 0; i < int64_t{height} * width; ++i)
      chw.data<float>()[c * height * width + i] = static_cast<float>(image.data<uint8_t>()[i * 3 + c]) / 255.0f;
  const char* only = std::getenv("LOOM_BENCH_TARGET");
  for (int a = 4; a < argc; ++a) {
    int out_w = 0, out_h = 0;
    if (std::sscanf(argv[a], "%dx%d", &out_w, &out_h) != 2) return 2;
    for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
      if (only != nullptr && std::string(only) != hwy::TargetName(target)) continue;
      hwy::SetSupportedTargetsForTest(target);
      for (const Variant& v : variants) {
        const double s = loom::bench::median_seconds([&] {
          (void)loom::transforms::resize(v.image, {out_h, out_w}, v.options);
        });
        std::puts(
            fmt::format(
                R"({{"target": "{}", "layout": "{}", "mode": "{}", "in": "{}x{}", "out": "{}x{}", "ms": {:.4f}}})",
                hwy::TargetName(target), v.layout, v.mode, width, height, out_w, out_h, s * 1e3)
                .c_str());
      }
    }
    hwy::SetSupportedTargetsForTest(0);
    const double s = loom::bench::median_seconds([&] {
      (void)loom::transforms::resize(chw, {out_h, out_w}, chw_options);
    });
    std::puts(fmt::format(R"({{"dtype": "float32", "layout": "CHW", "in": "{}x{}", "out": "{}x{}", "ms": {:.4f}}})",
                          width, height, out_w, out_h, s * 1e3)
                  .c_str());
  }
  return 0;
}
