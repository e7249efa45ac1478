// `loom pack INPUT... -o PATTERN --shard-size N`: write the inputs as WebDataset shards, one sample per
// file or manifest row (its file's bytes as they are, or transformed with convert's image flags), a .cls
// label for files in class folders (torchvision ImageFolder's indices) and for labelled rows, a .json
// member with a row's annotations, and the index beside each shard.
#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "batch.h"
#include "commands.h"
#include "image_args.h"
#include "interrupt.h"
#include "loom/codec/byte_source.h"
#include "loom/codec/error.h"
#include "loom/loader/file_list.h"
#include "loom/loader/pack.h"
#include "loom/loader/shard_plan.h"
#include "open_dataset.h"
#include "parallel.h"
#include "progress.h"
#include "shard_args.h"

namespace loom::cli {
namespace {

struct PackArgs {
  std::vector<std::string> inputs;
  std::string pattern;  // "out/train-%06d.tar"
  int64_t shard_size = 0;
  std::string shard_bytes;  // "B", "500M", "1G" or empty
  std::vector<std::string> extensions;
  ImageArgs image;  // convert's flags: any of them given means the images are transformed
  bool transform = false;
  bool verify = false;  // --verify
  BatchOptions batch;   // -j, --overwrite, --fail-fast, -q
  ShardFlags shards;    // --shard-index, --num-shards: split the shards among workers
};

// The path of shard `n` of `pattern` (loader::shard_path); CLI::ValidationError("-o") for a bad pattern.
std::string shard_path(const std::string& pattern, int64_t n) {
  try {
    return loader::shard_path(pattern, n);
  } catch (const Error& e) {
    throw CLI::ValidationError("-o", e.what());
  }
}

// --shard-bytes: a byte count, optionally with K, M, G or T (powers of 1024). 0 for an empty text.
uint64_t parse_bytes(const std::string& text) {
  if (text.empty()) return 0;
  size_t used = 0;
  uint64_t value = 0;
  try {
    if (text.front() < '0' || text.front() > '9') throw std::invalid_argument(text);
    value = std::stoull(text, &used);
  } catch (const std::logic_error&) {
    used = 0;
  }
  const std::string suffix = text.substr(used);
  int shift = -1;
  if (used > 0) {
    if (suffix.empty()) shift = 0;
    if (suffix == "K" || suffix == "k") shift = 10;
    if (suffix == "M") shift = 20;
    if (suffix == "G") shift = 30;
    if (suffix == "T") shift = 40;
  }
  if (shift < 0 || value == 0 || value > (UINT64_MAX >> shift)) {
    throw CLI::ValidationError(
        "--shard-bytes", fmt::format("'{}' is not a positive byte count (digits, optionally K, M, G or T)", text));
  }
  return value << shift;
}

// Writes shard `path` from `entries`; false (the error printed) when it could not be written whole.
bool write_shard(const PackArgs& args, const ImageSteps& steps, const std::string& path,
                 std::span<const loader::PackEntry> entries, int threads, Progress& progress) {
  loader::PackShardOptions options;
  options.overwrite = args.batch.overwrite;
  options.threads = threads;
  options.verify = args.verify;
  if (args.transform) {
    options.transform = [&](const loader::PackEntry& e, const ByteSource& file) {
      const std::string ext = image_output_extension(args.image, e.path);
      return loader::PackedImage{ext.substr(1), transform_image(args.image, steps, file, e.relative, ext.substr(1))};
    };
  }
  options.on_written = [&](const loader::PackEntry& e) { progress.record(true, e.size); };
  const loader::PackShardResult result = loader::write_pack_shard(path, entries, options);
  if (result.ok) return true;
  progress.print_error(result.failed_sample >= 0 ? fmt::format("{} (shard {} not written)", result.error, path)
                                                 : result.error);
  for (size_t rest = static_cast<size_t>(result.samples); rest < entries.size(); ++rest) progress.record(false, 0);
  return false;
}

int run_pack(const PackArgs& args) {
  const ImageSteps steps = parse_image_steps(args.image);
  const ShardSplit split = shard_split(args.shards);
  loader::PackOptions options;
  options.shard_size = args.shard_size;
  options.shard_bytes = parse_bytes(args.shard_bytes);
  options.extensions = args.extensions;
  const loader::PackPlan plan = loader::plan_pack(args.inputs, options);
  if (!plan.errors.empty()) {
    for (const std::string& e : plan.errors) std::fputs((e + "\n").c_str(), stderr);
    std::fputs("nothing written: the shards depend on the whole input list\n", stderr);
    return 1;
  }
  const std::vector<loader::IndexRange>& shards = plan.shards;
  const loader::IndexRange mine = loader::split_range(static_cast<int64_t>(shards.size()), split.index, split.count);
  int64_t samples = 0;
  for (int64_t s = mine.begin; s < mine.end; ++s) samples += shards[static_cast<size_t>(s)].size();

  install_interrupt_cleanup();
  const int threads = worker_count(args.batch.jobs);
  Progress progress(samples, !args.batch.quiet, "samples");
  bool failed = false;
  for (int64_t s = mine.begin; s < mine.end && !(failed && args.batch.fail_fast); ++s) {
    const loader::IndexRange r = shards[static_cast<size_t>(s)];
    const std::span<const loader::PackEntry> part(plan.entries.data() + r.begin, static_cast<size_t>(r.size()));
    if (!write_shard(args, steps, shard_path(args.pattern, s), part, threads, progress)) failed = true;
  }
  std::string suffix = fmt::format(", shards {}..{} of {}", mine.begin, mine.end - 1, shards.size());
  if (mine.size() == 0) suffix = fmt::format(", no shard of {} for this worker", shards.size());
  if (steps.noise_seed) suffix += fmt::format(", seed {}", *steps.noise_seed);
  progress.finish(args.batch.quiet, suffix);
  return failed ? 1 : 0;
}

}  // namespace

Command add_pack_command(CLI::App& app) {
  auto args = std::make_shared<PackArgs>();
  args->extensions = loader::image_extensions();
  CLI::App* cmd = app.add_subcommand("pack",
                                     "Write files (or folders, recursively) or manifests as WebDataset tar shards, one "
                                     "sample per file or row, indexed");
  cmd->add_option("INPUT", args->inputs,
                  "Files or folders (a folder's sub-folders are classes: .cls labels), or manifests (.jsonl, .ndjson, "
                  ".csv: one sample per row, .cls and .json from its label and other fields)")
      ->required();
  cmd->add_option("-o,--output", args->pattern,
                  "Shard path with one %d or %0Nd for the shard number, out/train-%06d.tar")
      ->required();
  cmd->add_option("--shard-size", args->shard_size, "Samples per shard")
      ->required()
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  cmd->add_option("--shard-bytes", args->shard_bytes,
                  "Also end a shard before its input files would pass B bytes (K, M, G, T: powers of 1024)");
  cmd->add_option("--extensions", args->extensions,
                  "In folders, the file extensions packed, comma-separated (default: the image extensions)")
      ->delimiter(',');
  cmd->add_flag("--verify", args->verify,
                "Decode every image before writing it: a sample that does not decode fails its shard (the bytes "
                "written do not change)");
  const ImageFlags image = add_image_flags(*cmd, args->image);
  add_batch_flags(*cmd, args->batch);
  add_shard_flags(*cmd, args->shards, "shards");
  cmd->callback([args, image] {  // reject bad values while parsing, before any file is touched
    const auto manifest = std::find_if(args->inputs.begin(), args->inputs.end(), names_manifest);
    const auto other = std::find_if_not(args->inputs.begin(), args->inputs.end(), names_manifest);
    if (manifest != args->inputs.end() && other != args->inputs.end()) {
      throw CLI::ValidationError("INPUT", fmt::format("'{}' is a manifest and '{}' is not: pack manifests, or files "
                                                      "and folders, not both (their labels share no class list)",
                                                      *manifest, *other));
    }
    check_image_args(args->image, image);
    args->transform = image.any_given();
    shard_path(args->pattern, 0);
    parse_bytes(args->shard_bytes);
    shard_split(args->shards);
  });
  return {cmd, [args] { return run_pack(*args); }};
}

}  // namespace loom::cli
