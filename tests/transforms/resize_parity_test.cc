// Resize against the tools users trust, on the same inputs (tests/reference/resize_*.py):
//  - float32, every mode, against torch 1.13's interpolate (antialias on and off): within 1e-4;
//  - uint8 nearest / nearest-exact against torch: equal;
//  - uint8 antialiased bilinear, bicubic and box against Pillow 9.4's Image.resize: within 1, on real
//    images (loom's decode) and on noise;
//  - uint8 without antialias against torchvision 0.14's resize (float interpolate, rounded).
// Odd ratios, upscales, downscales and mixed, 1 to 4 channels, CHW and HWC. Each test prints the
// largest difference it saw.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "loom/transforms/resize.h"
#include "loom/vision/image.h"
#include "python_reference.h"
#include "test_media.h"

namespace loom::transforms {
namespace {

using json = nlohmann::json;

struct SizePair {
  Size in, out;
};

// Upscales, downscales, mixed, odd ratios, an unchanged axis, single rows and columns.
const std::vector<SizePair> kSizePairs =
    {
        {{37, 53}, {100, 17}},  {{37, 53}, {17, 100}},   {{64, 48}, {32, 24}},  {{30, 20}, {90, 60}},
        {{100, 100}, {33, 67}}, {{13, 97}, {41, 7}},     {{1, 9}, {5, 3}},      {{9, 1}, {4, 6}},
        {{50, 40}, {50, 13}},   {{16, 16}, {64, 5}},     {{200, 150}, {7, 11}}, {{5, 7}, {123, 89}},
        {{77, 61}, {76, 62}},   {{100, 128}, {99, 166}},  // float32 index arithmetic differs from double here
};

const char* mode_name(Interpolation interp) {
  switch (interp) {
    case Interpolation::kNearest: return "nearest";
    case Interpolation::kNearestExact: return "nearest-exact";
    case Interpolation::kBilinear: return "bilinear";
    case Interpolation::kBicubic: return "bicubic";
    case Interpolation::kBox: return "box";
  }
  return "?";
}

Tensor random_image(Size s, int64_t channels, Layout layout, DType dtype, std::mt19937& rng, double scale = 1.0) {
  const bool hwc = layout == Layout::kHWC;
  Tensor t =
      hwc ? Tensor::empty({s.height, s.width, channels}, dtype) : Tensor::empty({channels, s.height, s.width}, dtype);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (dtype == DType::kUInt8) {
      t.data<uint8_t>()[i] = static_cast<uint8_t>(rng());
    } else {
      t.data<float>()[i] = static_cast<float>(unit(rng) * scale);
    }
  }
  return t;
}

// One reference case: loom's result, and `key`, the name of the script's output for it (out_<key>.npy).
struct Case {
  std::string key;
  Tensor got;
  std::string label;
};

// Largest |got - want| over every case (want = the script's output of the case's key), after checking shapes.
// Each difference is divided by `scale` (the inputs' value range: rounding errors grow with it).
double max_difference(const std::vector<Case>& cases, const test::TensorMap& want, double scale = 1.0) {
  double worst = 0.0;
  for (size_t i = 0; i < cases.size(); ++i) {
    const auto it = want.find(cases[i].key);
    if (it == want.end()) {
      ADD_FAILURE() << "no reference output for " << cases[i].label;
      continue;
    }
    const Tensor& got = cases[i].got;
    const Tensor& ref = it->second;
    const std::vector<int64_t> got_shape(got.shape().begin(), got.shape().end());
    const std::vector<int64_t> ref_shape(ref.shape().begin(), ref.shape().end());
    EXPECT_EQ(got_shape, ref_shape) << cases[i].label;
    EXPECT_EQ(got.dtype(), ref.dtype()) << cases[i].label;
    if (got_shape != ref_shape || got.dtype() != ref.dtype()) continue;
    double case_worst = 0.0;
    for (int64_t k = 0; k < got.numel(); ++k) {
      double a, b;
      if (got.dtype() == DType::kUInt8) {
        a = got.data<uint8_t>()[k], b = ref.data<uint8_t>()[k];
      } else {
        a = got.data<float>()[k], b = ref.data<float>()[k];
      }
      case_worst = std::max(case_worst, std::fabs(a - b) / scale);
    }
    worst = std::max(worst, case_worst);
  }
  return worst;
}

struct TorchMode {
  Interpolation interp;
  bool antialias;
};

// One image to resize to `out`, with a label for failure messages.
struct Job {
  std::string label;
  Tensor image;
  Layout layout;
  Size out;
};

// Random images for every kSizePairs entry, CHW and HWC, 1 to 4 channels (values in [0, scale) for float32).
std::vector<Job> random_jobs(DType dtype, double scale = 1.0) {
  std::mt19937 rng(11);
  std::vector<Job> jobs;
  for (const SizePair& p : kSizePairs) {
    for (Layout layout : {Layout::kCHW, Layout::kHWC}) {
      const int64_t channels = 1 + static_cast<int64_t>(jobs.size() % 4);
      jobs.push_back({fmt::format("{}x{} -> {}x{} C={} {}", p.in.height, p.in.width, p.out.height, p.out.width,
                                  channels, layout == Layout::kHWC ? "HWC" : "CHW"),
                      random_image(p.in, channels, layout, dtype, rng, scale), layout, p.out});
    }
  }
  return jobs;
}

// Runs every job through loom and the torch reference with each of `modes` (one Python run) and returns
// the largest difference per mode, divided by `scale`. With `two_pass`, the uint8 bilinear/bicubic
// reference is torchvision's resize of the width, then of the height (a uint8 image between the passes).
std::vector<double> torch_differences(const std::vector<Job>& jobs, const std::vector<TorchMode>& modes,
                                      double scale = 1.0, bool two_pass = false) {
  test::TensorMap inputs;
  std::vector<std::vector<Case>> per_mode(modes.size());
  json list = json::array();
  for (size_t j = 0; j < jobs.size(); ++j) {
    const std::string name = "in" + std::to_string(j);
    inputs[name] = jobs[j].image;
    for (size_t m = 0; m < modes.size(); ++m) {
      ResizeOptions o;
      o.interpolation = modes[m].interp;
      o.antialias = modes[m].antialias;
      o.layout = jobs[j].layout;
      list.push_back({{"input", name},
                      {"layout", o.layout == Layout::kHWC ? "hwc" : "chw"},
                      {"size", {jobs[j].out.height, jobs[j].out.width}},
                      {"mode", mode_name(o.interpolation)},
                      {"antialias", o.antialias},
                      {"two_pass", two_pass}});
      per_mode[m].push_back({std::to_string(list.size() - 1), resize(jobs[j].image, jobs[j].out, o),
                             fmt::format("{} {}", mode_name(o.interpolation), jobs[j].label)});
    }
  }
  const auto want = test::run_python_reference("resize_torch.py", inputs, json{{"cases", list}}.dump());
  std::vector<double> worst;
  const std::string dtype(to_string(jobs.front().image.dtype()));
  for (size_t m = 0; m < modes.size(); ++m) {
    worst.push_back(max_difference(per_mode[m], want, scale));
    std::printf("[ parity   ] %s%s %s antialias=%d vs torch%s: max |diff|%s = %.3g\n", dtype.c_str(),
                scale != 1.0 ? fmt::format(" in [0, {})", scale).c_str() : "", mode_name(modes[m].interp),
                modes[m].antialias ? 1 : 0, two_pass ? " (two passes)" : "",
                scale != 1.0 ? fmt::format(" / {}", scale).c_str() : "", worst.back());
  }
  return worst;
}

const std::vector<TorchMode> kFloatModes = {
    {Interpolation::kBilinear, true}, {Interpolation::kBicubic, true},  {Interpolation::kBilinear, false},
    {Interpolation::kBicubic, false}, {Interpolation::kNearest, false}, {Interpolation::kNearestExact, false},
};

bool is_nearest(Interpolation interp) {
  return interp == Interpolation::kNearest || interp == Interpolation::kNearestExact;
}

TEST(ResizeParity, Float32MatchesTorchInterpolate) {
  const std::vector<double> worst = torch_differences(random_jobs(DType::kFloat32), kFloatModes);
  for (size_t m = 0; m < kFloatModes.size(); ++m) {
    EXPECT_LE(worst[m], is_nearest(kFloatModes[m].interp) ? 0.0 : 1e-4)
        << mode_name(kFloatModes[m].interp) << " antialias=" << kFloatModes[m].antialias;
  }
}

TEST(ResizeParity, Float32On0To255MatchesTorchRelatively) {
  // Differences relative to the value range (255 here): within 1e-4 of it.
  const std::vector<double> worst = torch_differences(random_jobs(DType::kFloat32, 255.0), kFloatModes, 255.0);
  for (size_t m = 0; m < kFloatModes.size(); ++m) {
    EXPECT_LE(worst[m], 1e-4) << mode_name(kFloatModes[m].interp) << " antialias=" << kFloatModes[m].antialias;
  }
}

// Real images decoded by loom, HWC uint8: RGB, RGBA, gray, gray + alpha.
std::vector<std::pair<std::string, Tensor>> real_images() {
  struct File {
    const char* path;
    vision::ImageReadMode mode;
  };
  const std::vector<File> files = {
      {"images/png/hopper.png", vision::ImageReadMode::kRGB},
      {"images/jpeg/flower.jpg", vision::ImageReadMode::kRGB},
      {"images/jpeg/pil_sample_rgb.jpg", vision::ImageReadMode::kRGB},
      {"images/png/exif.png", vision::ImageReadMode::kRGB},
      {"images/png/pil123rgba.png", vision::ImageReadMode::kRGBAlpha},
      {"images/png/hopper_bw_500.png", vision::ImageReadMode::kGray},
      {"images/jpeg/hopper_gray.jpg", vision::ImageReadMode::kGrayAlpha},
      {"images/jpeg/pil_sample_rgb.jpg", vision::ImageReadMode::kGray},
  };
  std::vector<std::pair<std::string, Tensor>> images;
  for (const File& f : files) {
    vision::DecodeOptions d;
    d.mode = f.mode;
    d.layout = Layout::kHWC;
    images.emplace_back(f.path, vision::read_image(test::media(f.path), d));
  }
  return images;
}

const std::vector<std::function<Size(Size)>> kRelativeSizes = {
    [](Size s) {
      return Size{s.height / 2, s.width / 2};
    },
    [](Size s) {
      return Size{s.height / 3 + 1, s.width * 2 / 7};
    },
    [](Size s) {
      return Size{s.height * 2, s.width * 3 / 2};
    },
    [](Size s) {
      return Size{s.height * 5 / 3, s.width / 4};
    },
    [](Size s) {
      return Size{s.height / 9, s.width * 13 / 10};
    },
    [](Size) {
      return Size{17, 100};
    },
    [](Size) {
      return Size{7, 5};
    },
    [](Size s) {
      return Size{s.height + 1, s.width - 1};
    },
};

// Every real image at every kRelativeSizes size, alternately CHW and HWC.
std::vector<Job> real_image_jobs() {
  std::vector<Job> jobs;
  for (const auto& [label, hwc] : real_images()) {
    const Size in{hwc.size(0), hwc.size(1)};
    for (const auto& size_of : kRelativeSizes) {
      const bool chw = jobs.size() % 2 == 0;
      const Size out = size_of(in);
      jobs.push_back(
          {fmt::format("{} {}x{} -> {}x{} {}", label, in.height, in.width, out.height, out.width, chw ? "CHW" : "HWC"),
           chw ? hwc.permute({2, 0, 1}).contiguous() : hwc, chw ? Layout::kCHW : Layout::kHWC, out});
    }
  }
  return jobs;
}

TEST(ResizeParity, Uint8NearestEqualsTorch) {
  // antialias is set and ignored, as torchvision ignores it for nearest.
  const std::vector<TorchMode> modes = {{Interpolation::kNearest, true}, {Interpolation::kNearestExact, true}};
  for (double w : torch_differences(random_jobs(DType::kUInt8), modes)) EXPECT_EQ(w, 0.0);
  for (double w : torch_differences(real_image_jobs(), modes)) EXPECT_EQ(w, 0.0);
}

TEST(ResizeParity, Uint8WithoutAntialiasFollowsTorchvision) {
  const std::vector<TorchMode> modes = {{Interpolation::kBilinear, false}, {Interpolation::kBicubic, false}};
  // Against torchvision's single float pass: bilinear never leaves 0..255 between the passes, so it is
  // within 1; bicubic is too wherever its horizontal pass does not overshoot 0..255.
  for (const std::vector<Job>& jobs : {random_jobs(DType::kUInt8), real_image_jobs()}) {
    const std::vector<double> worst = torch_differences(jobs, modes);
    EXPECT_LE(worst[0], 1.0);
    // Against torch's weights applied as loom applies them, width then height with the intermediate
    // clamped to 0..255: both within 1 everywhere.
    for (double w : torch_differences(jobs, modes, 1.0, /*two_pass=*/true)) EXPECT_LE(w, 1.0);
  }
}

// Pillow cases on HWC images: every size in `sizes` with bilinear, bicubic and box.
double pillow_difference(const std::vector<std::pair<std::string, Tensor>>& images,
                         const std::vector<std::function<Size(Size)>>& sizes, bool pillow_exact) {
  test::TensorMap inputs;
  std::vector<Case> cases;
  json list = json::array();
  for (const auto& [label, image] : images) {
    const std::string name = "in" + std::to_string(inputs.size());
    inputs[name] = image;
    const Size in{image.size(0), image.size(1)};
    for (const auto& size_of : sizes) {
      const Size out = size_of(in);
      for (Interpolation interp : {Interpolation::kBilinear, Interpolation::kBicubic, Interpolation::kBox}) {
        ResizeOptions o;
        o.interpolation = interp;
        o.layout = Layout::kHWC;
        o.pillow_exact = pillow_exact;
        cases.push_back({std::to_string(cases.size()), resize(image, out, o),
                         fmt::format("{} {} {}x{} -> {}x{}", label, mode_name(interp), in.height, in.width, out.height,
                                     out.width)});
        list.push_back({{"input", name}, {"size", {out.height, out.width}}, {"filter", mode_name(interp)}});
      }
    }
  }
  const auto want = test::run_python_reference("resize_pillow.py", inputs, json{{"cases", list}}.dump());
  return max_difference(cases, want);
}

const char* mode_label(bool pillow_exact) {
  return pillow_exact ? "pillow_exact" : "default";
}

TEST(ResizeParity, Uint8AntialiasedWithinOneOfPillowOnRealImages) {
  const auto images = real_images();
  for (bool pillow_exact : {true, false}) {
    const double worst = pillow_difference(images, kRelativeSizes, pillow_exact);
    std::printf("[ parity   ] uint8 antialiased bilinear/bicubic/box (%s) vs Pillow, real images: max |diff| = %g\n",
                mode_label(pillow_exact), worst);
    EXPECT_LE(worst, 1.0);
  }
}

TEST(ResizeParity, Uint8AntialiasedWithinOneOfPillowOnNoise) {
  std::mt19937 rng(5);
  std::vector<std::pair<std::string, Tensor>> images;
  const std::vector<Size> shapes = {{37, 53}, {64, 48}, {13, 97}, {120, 90}, {1, 40}, {40, 1}};
  for (size_t i = 0; i < shapes.size(); ++i) {
    const int64_t channels = 1 + static_cast<int64_t>(i % 4);
    images.emplace_back(fmt::format("noise C={}", channels),
                        random_image(shapes[i], channels, Layout::kHWC, DType::kUInt8, rng));
  }
  auto at_least_one = [](Size s) { return Size{std::max<int64_t>(s.height, 1), std::max<int64_t>(s.width, 1)}; };
  std::vector<std::function<Size(Size)>> sizes;
  for (const auto& f : kRelativeSizes) sizes.push_back([f, at_least_one](Size s) { return at_least_one(f(s)); });
  for (bool pillow_exact : {true, false}) {
    const double worst = pillow_difference(images, sizes, pillow_exact);
    std::printf("[ parity   ] uint8 antialiased bilinear/bicubic/box (%s) vs Pillow, noise: max |diff| = %g\n",
                mode_label(pillow_exact), worst);
    EXPECT_LE(worst, 1.0);
  }
}

TEST(ResizeParity, Float32BoxMatchesPillowFloatImages) {
  // Pillow's "F" images resize with the same filters in double; loom's float path is the same algorithm.
  std::mt19937 rng(9);
  std::vector<std::pair<std::string, Tensor>> images;
  for (int64_t channels = 1; channels <= 4; ++channels) {
    images.emplace_back(fmt::format("float C={}", channels),
                        random_image({31 + channels, 45 - channels}, channels, Layout::kHWC, DType::kFloat32, rng));
  }
  const double worst = pillow_difference(images, kRelativeSizes, /*pillow_exact=*/false);
  std::printf("[ parity   ] float32 bilinear/bicubic/box vs Pillow F images: max |diff| = %.3g\n", worst);
  EXPECT_LE(worst, 1e-5);
}

}  // namespace
}  // namespace loom::transforms
