// `loom bench loader SOURCE`: the ImageNet training pipeline (decode JPEG, RandomResizedCrop, random
// horizontal flip, normalize to float32 CHW, batch) through loom::loader, timed over whole epochs;
// prints one JSON line with samples/s and the time per stage (see docs/cli.md).
#include "bench_loader.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>

#include "loom/accel/cuda.h"
#include "loom/codec/error.h"
#include "loom/loader/dataset.h"
#include "loom/loader/loader.h"
#include "loom/transforms/geometry_transforms.h"
#include "open_dataset.h"

namespace loom::cli {
namespace {

using Clock = std::chrono::steady_clock;

struct BenchLoaderArgs {
  std::string source;
  int64_t batch = 64;
  int size = 224;
  int threads = 0;
  int epochs = 2;
  bool decode_crop = false;
  bool decode_only = false;
  std::string device = "cpu";
  bool copy_after = false;  // the CPU loader, then a synchronous copy of each batch to `device`
};

loader::LoaderOptions pipeline(const BenchLoaderArgs& args) {
  loader::LoaderOptions o;
  o.batch_size = args.batch;
  if (!args.copy_after) o.device = parse_device(args.device);
  o.threads = args.threads;
  o.order.shuffle = loader::Shuffle::kTorch;
  loader::FieldSpec& image = o.fields[0];
  // Decode to HWC; crop, resize and flip interleaved pixels (one pass over them), then normalize into
  // the CHW float32 batch while collating.
  image.image.decode.layout = Layout::kHWC;
  if (args.decode_only) {
    image.collate = loader::Collate::kList;  // sizes differ: the decoded images as they are
    return o;
  }
  image.image.crop = std::make_shared<transforms::RandomResizedCrop>(Size{args.size, args.size});
  image.image.decode_crop = args.decode_crop;
  image.image.transform = std::make_shared<transforms::RandomHorizontalFlip>(0.5);
  image.image.normalize = loader::ImageField::Normalization{{0.485f, 0.456f, 0.406f}, {0.229f, 0.224f, 0.225f}};
  return o;
}

// What a training step needs before it runs: a device batch's copy finished (the loader's own, or a
// synchronous copy of a CPU batch, as a loop over a CPU loader does).
void use(const loader::Batch& batch, Device device, bool copy_after) {
  if (device.is_cpu()) return;
  if (!copy_after) return batch.ready.synchronize();
  for (const auto& [name, field] : batch.fields) {
    if (field.tensor.defined()) (void)accel::to_device(field.tensor, device);
    for (const Tensor& t : field.list) (void)accel::to_device(t, device);
  }
}

int run_bench_loader(const BenchLoaderArgs& args) {
  try {
    const Device device = parse_device(args.device);
    if (!device.is_cpu()) accel::check_cuda_device(device.index, "loader");  // before an epoch runs on the CPU
    const loader::DatasetPtr dataset = open_dataset(args.source);
    loader::Loader loader(dataset, pipeline(args));
    nlohmann::ordered_json epochs = nlohmann::json::array();
    for (int e = 0; e < args.epochs; ++e) {
      const auto start = Clock::now();
      int64_t samples = 0;
      for (const loader::Batch& b : loader) {
        samples += b.size();
        use(b, device, args.copy_after);
      }
      const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
      epochs.push_back(static_cast<double>(samples) / seconds);
    }
    const loader::LoaderStats s = loader.stats();
    nlohmann::ordered_json j;
    j["op"] = args.decode_only ? "decode" : "loader";
    j["source"] = args.source;
    j["samples"] = dataset->size();
    j["batch"] = args.batch;
    j["size"] = args.size;
    j["threads"] = args.threads > 0 ? args.threads : static_cast<int>(std::thread::hardware_concurrency());
    j["decode_crop"] = args.decode_crop;
    j["device"] = to_string(device);
    j["copy"] = device.is_cpu() ? "none" : args.copy_after ? "after (synchronous, per batch)" : "loader (overlapped)";
    j["samples_per_second"] = s.samples_per_second;
    j["epoch_samples_per_second"] = epochs;
    j["read_seconds"] = s.read_seconds;
    j["decode_seconds"] = s.decode_seconds;
    j["transform_seconds"] = s.transform_seconds;
    j["collate_seconds"] = s.collate_seconds;
    j["wait_seconds"] = s.wait_seconds;
    std::puts(j.dump().c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fputs(fmt::format("loom bench loader: {}\n", e.what()).c_str(), stderr);
    return 1;
  }
}

}  // namespace

std::function<int()> add_bench_loader(CLI::App& bench) {
  auto args = std::make_shared<BenchLoaderArgs>();
  CLI::App* cmd = bench.add_subcommand(
      "loader", "Time the ImageNet training pipeline (decode, RandomResizedCrop, flip, normalize, batch) on a dataset");
  cmd->add_option("SOURCE", args->source, "An ImageFolder tree, a manifest (.jsonl, .csv) or tar shards")->required();
  cmd->add_option("--batch", args->batch, "Batch size")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 20))
      ->capture_default_str();
  cmd->add_option("--size", args->size, "Crop size S (S x S)")->check(CLI::Range(1, 16384))->capture_default_str();
  cmd->add_option("--threads", args->threads, "Loader threads; 0: one per core")
      ->check(CLI::Range(0, 1024))
      ->capture_default_str();
  cmd->add_option("--epochs", args->epochs, "Epochs to time")->check(CLI::Range(1, 1000000))->capture_default_str();
  cmd->add_flag("--decode-crop", args->decode_crop, "Decode only the crop's region, at a reduced JPEG scale");
  cmd->add_flag("--decode-only", args->decode_only, "Only decode (the pipeline's ceiling): no crop, flip or normalize");
  cmd->add_option("--device", args->device,
                  "Deliver batches on this device: cpu, cuda or cuda:N (collated into pinned memory, copied on the "
                  "loader's stream)")
      ->capture_default_str();
  cmd->add_flag("--copy-after", args->copy_after,
                "With --device cuda: run the CPU loader and copy each batch to the device synchronously (the "
                "baseline the loader's overlapped copy is measured against)");
  return [cmd, args]() -> int { return cmd->parsed() ? run_bench_loader(*args) : -1; };
}

}  // namespace loom::cli
