// `loom bench resize|noise|normalize`: times one loom operation in-process on a synthetic image and
// prints one JSON line (see docs/cli.md). `loom bench loader` is in bench_loader.cc.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <functional>
#include <latch>
#include <memory>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "bench_loader.h"
#include "commands.h"
#include "loom/accel/cpu_features.h"
#include "loom/codec/error.h"
#include "loom/transforms/color.h"
#include "loom/transforms/noise.h"
#include "loom/transforms/random.h"
#include "loom/transforms/resize.h"
#include "size_arg.h"

namespace loom::cli {
namespace {

using Clock = std::chrono::steady_clock;

struct BenchArgs {
  std::string op;                  // "resize", "noise" or "normalize"
  std::string size = "1920x1080";  // of the synthetic input image
  int threads = 1;
  int iterations = 20;
};

constexpr Size kResizeTarget{224, 224};
constexpr double kNoiseSigma = 0.1;
const std::vector<float> kImageNetMean{0.485f, 0.456f, 0.406f};
const std::vector<float> kImageNetStd{0.229f, 0.224f, 0.225f};

Geometry parse_bench_size(const std::string& text) {
  const std::optional<Geometry> g = parse_geometry(text, /*offset=*/false);
  if (!g) throw CLI::ValidationError("--size", fmt::format("'{}' is not WxH (positive integers)", text));
  return *g;
}

// A uint8 RGB image, H x W x 3, with a deterministic pattern (gradients and a hash, so that no
// kernel sees constant data).
Tensor synthetic_image(int64_t width, int64_t height, uint64_t seed) {
  Tensor image = Tensor::empty({height, width, 3}, DType::kUInt8);
  auto* p = static_cast<uint8_t*>(image.data());
  for (int64_t y = 0; y < height; ++y) {
    for (int64_t x = 0; x < width; ++x, p += 3) {
      const uint64_t h = (static_cast<uint64_t>(y * width + x) + seed) * 0x9e3779b97f4a7c15ull;
      p[0] = static_cast<uint8_t>(x * 255 / std::max<int64_t>(width - 1, 1));
      p[1] = static_cast<uint8_t>(y * 255 / std::max<int64_t>(height - 1, 1));
      p[2] = static_cast<uint8_t>(h >> 56);
    }
  }
  return image;
}

// The operation under test, for one thread (each has its own generator).
std::function<Tensor(const Tensor&)> make_op(const std::string& op, transforms::Rng& rng) {
  if (op == "resize") {
    transforms::ResizeOptions ro;
    ro.interpolation = transforms::Interpolation::kBilinear;
    ro.antialias = true;
    ro.layout = Layout::kHWC;
    return [ro](const Tensor& image) { return transforms::resize(image, kResizeTarget, ro); };
  }
  if (op == "noise") {
    return [&rng](const Tensor& image) { return transforms::gaussian_noise(image, rng, 0.0, kNoiseSigma, true); };
  }
  transforms::NormalizeOptions no;
  no.input_layout = Layout::kHWC;
  no.output_layout = Layout::kCHW;
  return [no](const Tensor& image) { return transforms::normalize(image, kImageNetMean, kImageNetStd, no); };
}

struct ThreadResult {
  std::vector<double> ms;  // one per iteration
  Clock::time_point start, end;
  std::exception_ptr error;
};

// Each thread makes its own image, runs the op once untimed (warm-up), waits for the others, then
// times `iterations` runs one by one.
std::vector<ThreadResult> time_op(const BenchArgs& args, const Geometry& size) {
  std::vector<ThreadResult> results(static_cast<size_t>(args.threads));
  std::latch ready(args.threads);
  auto work = [&](size_t t) {
    ThreadResult& r = results[t];
    bool arrived = false;
    try {
      const Tensor image = synthetic_image(size.width, size.height, t);
      transforms::Rng rng(0, t);
      const auto op = make_op(args.op, rng);
      op(image);
      ready.arrive_and_wait();
      arrived = true;
      r.start = Clock::now();
      for (int i = 0; i < args.iterations; ++i) {
        const auto t0 = Clock::now();
        const Tensor out = op(image);
        r.ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
      }
      r.end = Clock::now();
    } catch (...) {
      r.error = std::current_exception();
      if (!arrived) ready.count_down();  // never leave the others waiting
    }
  };
  std::vector<std::jthread> pool;
  for (size_t t = 1; t < results.size(); ++t) pool.emplace_back(work, t);
  work(0);
  pool.clear();  // joins
  return results;
}

int run_bench(const BenchArgs& args) {
  const Geometry size = parse_bench_size(args.size);
  std::vector<ThreadResult> results;
  try {
    results = time_op(args, size);
    for (const ThreadResult& r : results) {
      if (r.error) std::rethrow_exception(r.error);
    }
  } catch (const std::bad_alloc&) {
    std::fputs(fmt::format("loom bench: out of memory for {} images of {}x{}\n", args.threads, size.width, size.height)
                   .c_str(),
               stderr);
    return 1;
  } catch (const std::exception& e) {
    std::fputs(fmt::format("loom bench: {}\n", e.what()).c_str(), stderr);
    return 1;
  }
  std::vector<double> ms;
  Clock::time_point start = results.front().start, end = results.front().end;
  for (const ThreadResult& r : results) {
    ms.insert(ms.end(), r.ms.begin(), r.ms.end());
    start = std::min(start, r.start);
    end = std::max(end, r.end);
  }
  std::sort(ms.begin(), ms.end());
  const size_t n = ms.size();
  const double median = n % 2 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2;
  const double wall = std::max(std::chrono::duration<double>(end - start).count(), 1e-9);
  const double megapixels = static_cast<double>(size.width * size.height) / 1e6;

  nlohmann::ordered_json j;
  j["op"] = args.op;
  j["width"] = size.width;
  j["height"] = size.height;
  j["channels"] = 3;
  j["threads"] = args.threads;
  j["iterations"] = args.iterations;
  j["median_ms"] = median;
  j["min_ms"] = ms.front();
  j["megapixels_per_s"] = megapixels * static_cast<double>(n) / wall;
  j["simd_target"] = accel::best_simd_target();
  std::puts(j.dump().c_str());
  return 0;
}

}  // namespace

Command add_bench_command(CLI::App& app) {
  auto args = std::make_shared<BenchArgs>();
  CLI::App* cmd = app.add_subcommand(
      "bench", "Time a loom operation in-process on a synthetic uint8 RGB image, or the loader on a dataset");
  const std::function<int()> run_loader = add_bench_loader(*cmd);
  cmd->add_option("OP", args->op,
                  "resize (to 224x224, antialiased bilinear), noise (sigma 0.1) or normalize "
                  "(uint8 HWC to float32 CHW, ImageNet mean/std); `loom bench loader --help` for the loader")
      ->check(CLI::IsMember({"resize", "noise", "normalize"}));
  cmd->add_option("--size", args->size, "Input image size WxH")->capture_default_str();
  cmd->add_option("--threads", args->threads, "Threads, each timing the op on its own image")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  cmd->add_option("--iterations", args->iterations, "Timed runs per thread (after one untimed warm-up run)")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  cmd->callback([cmd, args] {  // reject a missing OP or a bad --size while parsing
    if (cmd->get_subcommands().empty() && args->op.empty()) throw CLI::RequiredError("OP");
    parse_bench_size(args->size);
  });
  return {cmd, [args, run_loader] {
            const int loader = run_loader();
            return loader >= 0 ? loader : run_bench(*args);
          }};
}

}  // namespace loom::cli
