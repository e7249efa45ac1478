// loom_bench_geometry: single-thread uint8 RGB geometric transform times (transforms/geometry.h).
//
// Usage: loom_bench_geometry RAW_RGB WIDTH HEIGHT [crop=T,L,H,W] [pad=P] [angle=DEG]
//                            [affine=ANGLE,TX,TY,SCALE,SHEAR_X,SHEAR_Y] [perspective=X0,Y0,...,X3,Y3]
//                            [ops=NAME,NAME,...]
//
// RAW_RGB holds WIDTH x HEIGHT x 3 bytes (HWC), written by bench/geometry.py so that every tool
// transforms the same pixels with the same parameters (passed here by geometry.py; the defaults below
// are only for running by hand; `ops` times only the named ops). `perspective` gives the end points of the four corners
// (top-left, top-right, bottom-right, bottom-left; the start points are the image corners). For the CHW and the HWC
// copy of the image, each op runs untimed for 0.1 s, then the median of enough runs to take 0.2 s is printed as one
// JSON line:
//   {"layout": "CHW", "op": "rotate_bilinear_expand", "in": "1920x1080", "ms": 1.23}
// The warps (rotate_*, affine_*, perspective_*: Highway kernels) are then timed again on each SIMD
// target this CPU supports, one line each with the target's Highway name (the line without "target"
// runs the best one):
//   {"layout": "CHW", "op": "rotate_bilinear", "in": "1920x1080", "target": "AVX2", "ms": 1.23}
// Ops: hflip, vflip, crop, pad_constant, pad_reflect (P pixels on every side), rotate_{nearest,bilinear}
// and rotate_{nearest,bilinear}_expand (ANGLE degrees), affine_{nearest,bilinear},
// perspective_{nearest,bilinear}.
#include <fmt/format.h>
#include <hwy/targets.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "loom/transforms/geometry.h"
#include "median_time.h"
#include "raw_tensor.h"

namespace {

std::vector<double> numbers(const std::string& csv) {
  std::vector<double> out;
  size_t pos = 0;
  while (pos <= csv.size()) {
    const size_t comma = csv.find(',', pos);
    out.push_back(std::stod(csv.substr(pos, comma - pos)));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  namespace lt = loom::transforms;
  if (argc < 4) {
    std::fprintf(stderr,
                 "usage: %s RAW_RGB WIDTH HEIGHT [crop=T,L,H,W] [pad=P] [angle=DEG] "
                 "[affine=A,TX,TY,S,SX,SY] [perspective=X0,Y0,...,X3,Y3]\n",
                 argv[0]);
    return 2;
  }
  const int width = std::stoi(argv[2]), height = std::stoi(argv[3]);
  loom::Tensor hwc = loom::Tensor::empty({height, width, 3}, loom::DType::kUInt8);
  if (!loom::bench::read_raw(argv[1], hwc)) return 2;
  loom::Tensor chw = loom::Tensor::empty({3, height, width}, loom::DType::kUInt8);
  const int64_t plane = int64_t{height} * width;
  for (int64_t c = 0; c < 3; ++c)
    for (int64_t i = 0; i < plane; ++i) chw.data<uint8_t>()[c * plane + i] = hwc.data<uint8_t>()[i * 3 + c];

  // Parameters (defaults for running by hand; geometry.py passes its own).
  std::vector<double> crop{height / 4.0, width / 4.0, height / 2.0, width / 2.0};
  int64_t pad = 32;
  double angle = 30.0;
  lt::AffineParams affine{15.0, {20.0, 10.0}, 1.1, {5.0, 3.0}, std::nullopt};
  std::array<lt::Point, 4> start{lt::Point{0, 0}, {width - 1.0, 0}, {width - 1.0, height - 1.0}, {0, height - 1.0}};
  std::array<lt::Point, 4> end{lt::Point{width * 0.05, height * 0.1},
                               {width * 0.9, height * 0.05},
                               {width * 0.95, height * 0.9},
                               {width * 0.1, height * 0.95}};
  std::string only;  // ",name,name," or empty for every op
  for (int a = 4; a < argc; ++a) {
    const std::string arg = argv[a];
    const size_t eq = arg.find('=');
    if (eq == std::string::npos) return 2;
    const std::string key = arg.substr(0, eq);
    if (key == "ops") {
      only = "," + arg.substr(eq + 1) + ",";
      continue;
    }
    const std::vector<double> v = numbers(arg.substr(eq + 1));
    if (key == "crop" && v.size() == 4) {
      crop = v;
    } else if (key == "pad" && v.size() == 1) {
      pad = static_cast<int64_t>(v[0]);
    } else if (key == "angle" && v.size() == 1) {
      angle = v[0];
    } else if (key == "affine" && v.size() == 6) {
      affine = {v[0], {v[1], v[2]}, v[3], {v[4], v[5]}, std::nullopt};
    } else if (key == "perspective" && v.size() == 8) {
      for (int i = 0; i < 4; ++i) end[i] = {v[2 * i], v[2 * i + 1]};
    } else {
      std::fprintf(stderr, "bad argument: %s\n", arg.c_str());
      return 2;
    }
  }

  const lt::Padding padding{pad, pad, pad, pad};
  auto rotate_opts = [](loom::transforms::Interpolation interp, bool expand) {
    lt::RotateOptions o;
    o.interpolation = interp;
    o.expand = expand;
    return o;
  };
  const auto nearest = lt::Interpolation::kNearest, bilinear = lt::Interpolation::kBilinear;
  const std::vector<std::pair<const char*, std::function<lt::Sample(const lt::Sample&)>>> ops = {
      {"hflip", [](const lt::Sample& s) { return lt::horizontal_flip(s); }},
      {"vflip", [](const lt::Sample& s) { return lt::vertical_flip(s); }},
      {"crop",
       [&](const lt::Sample& s) {
         return lt::crop(s, static_cast<int64_t>(crop[0]), static_cast<int64_t>(crop[1]), static_cast<int64_t>(crop[2]),
                         static_cast<int64_t>(crop[3]));
       }},
      {"pad_constant", [&](const lt::Sample& s) { return lt::pad(s, padding, lt::PadMode::kConstant); }},
      {"pad_reflect", [&](const lt::Sample& s) { return lt::pad(s, padding, lt::PadMode::kReflect); }},
      {"rotate_nearest", [&](const lt::Sample& s) { return lt::rotate(s, angle, rotate_opts(nearest, false)); }},
      {"rotate_bilinear", [&](const lt::Sample& s) { return lt::rotate(s, angle, rotate_opts(bilinear, false)); }},
      {"rotate_nearest_expand", [&](const lt::Sample& s) { return lt::rotate(s, angle, rotate_opts(nearest, true)); }},
      {"rotate_bilinear_expand",
       [&](const lt::Sample& s) { return lt::rotate(s, angle, rotate_opts(bilinear, true)); }},
      {"affine_nearest",
       [&](const lt::Sample& s) {
         return lt::affine(s, affine, {nearest, {}});
       }},
      {"affine_bilinear",
       [&](const lt::Sample& s) {
         return lt::affine(s, affine, {bilinear, {}});
       }},
      {"perspective_bilinear",
       [&](const lt::Sample& s) {
         return lt::perspective(s, start, end, {bilinear, {}});
       }},
      {"perspective_nearest",
       [&](const lt::Sample& s) {
         return lt::perspective(s, start, end, {nearest, {}});
       }},
  };
  auto selected = [&](const std::string& op) { return only.empty() || only.find("," + op + ",") != std::string::npos; };
  auto is_warp = [](const std::string& op) {
    return op.rfind("rotate", 0) == 0 || op.rfind("affine", 0) == 0 || op.rfind("perspective", 0) == 0;
  };
  for (const auto& [layout, image] : {std::pair{"CHW", chw}, std::pair{"HWC", hwc}}) {
    lt::Sample sample;
    sample.image = image;
    sample.layout = std::strcmp(layout, "CHW") == 0 ? loom::Layout::kCHW : loom::Layout::kHWC;
    for (const auto& [name, op] : ops) {
      if (!selected(name)) continue;
      const double s = loom::bench::median_seconds([&] { (void)op(sample); });
      std::puts(fmt::format(R"({{"layout": "{}", "op": "{}", "in": "{}x{}", "ms": {:.4f}}})", layout, name, width,
                            height, s * 1e3)
                    .c_str());
      std::fflush(stdout);
    }
  }
  for (const auto& [layout, image] : {std::pair{"CHW", chw}, std::pair{"HWC", hwc}}) {
    lt::Sample sample;
    sample.image = image;
    sample.layout = std::strcmp(layout, "CHW") == 0 ? loom::Layout::kCHW : loom::Layout::kHWC;
    for (const auto& [name, op] : ops) {
      if (!is_warp(name) || !selected(name)) continue;
      for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
        // The x86 targets below AVX2 and the emulated ones are not timed: no machine loom targets runs them.
        if ((target & (HWY_SCALAR | HWY_EMU128 | HWY_SSSE3 | HWY_SSE4)) != 0) continue;
        hwy::SetSupportedTargetsForTest(target);
        const double s = loom::bench::median_seconds([&] { (void)op(sample); });
        std::puts(fmt::format(R"({{"layout": "{}", "op": "{}", "in": "{}x{}", "target": "{}", "ms": {:.4f}}})", layout,
                              name, width, height, hwy::TargetName(target), s * 1e3)
                      .c_str());
        std::fflush(stdout);
      }
      hwy::SetSupportedTargetsForTest(0);
    }
  }
  return 0;
}
