// `loom convert INPUT... -o OUTDIR`: decode images, optionally crop, resize, flip and add noise,
// encode JPEG or PNG.
#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

#include "batch.h"
#include "commands.h"
#include "image_args.h"
#include "loom/codec/atomic_file.h"
#include "loom/codec/byte_source.h"
#include "loom/loader/file_list.h"
#include "shard_args.h"

namespace loom::cli {
namespace fs = std::filesystem;
namespace {

struct ConvertArgs {
  std::vector<std::string> inputs;
  std::string outdir;
  ImageArgs image;     // --format, --resize, --noise, ...
  BatchOptions batch;  // -j, --overwrite, --fail-fast, -q
  ShardFlags shards;   // --shard-index, --num-shards
};

// Converts one file; returns the input bytes read. Throws loom::Error.
uint64_t convert_one(const ConvertArgs& args, const ImageSteps& steps, const BatchJob& job) {
  const ByteSource src = ByteSource::from_file(job.input);
  const std::vector<uint8_t> bytes =
      transform_image(args.image, steps, src, job.relative, job.output.extension() == ".jpg");
  create_output_folder(args.outdir, job.output);
  write_file_atomic(job.output, bytes, args.batch.overwrite);
  return src.size();
}

int run_convert(const ConvertArgs& args) {
  const ImageSteps steps = parse_image_steps(args.image);
  std::vector<std::string> input_errors;
  const std::vector<BatchJob> jobs = plan_batch(
      args.inputs, args.outdir, loader::image_extensions(),
      [&](const fs::path& input) { return image_output_extension(args.image, input); }, input_errors);
  BatchOptions options = args.batch;
  options.noun = "images";
  if (steps.noise_seed) options.summary_suffix = fmt::format(", seed {}", *steps.noise_seed);
  return run_batch(select_part(jobs, shard_split(args.shards)), input_errors, options,
                   [&](const BatchJob& job) { return convert_one(args, steps, job); });
}

}  // namespace

Command add_convert_command(CLI::App& app) {
  auto args = std::make_shared<ConvertArgs>();
  CLI::App* cmd = app.add_subcommand("convert", "Convert images (files, or folders recursively) to JPEG or PNG");
  cmd->add_option("INPUT", args->inputs, "Image files or folders")->required();
  cmd->add_option("-o,--output", args->outdir, "Output folder; the tree below each folder given is mirrored")
      ->required();
  const ImageFlags image = add_image_flags(*cmd, args->image);
  add_batch_flags(*cmd, args->batch);
  add_shard_flags(*cmd, args->shards, "input files");
  cmd->callback([args, image] {  // reject bad values while parsing, before any file is touched
    check_image_args(args->image, image);
    shard_split(args->shards);
  });
  return {cmd, [args] { return run_convert(*args); }};
}

}  // namespace loom::cli
