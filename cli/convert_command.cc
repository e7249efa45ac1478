// `loom convert INPUT... -o OUTDIR`: decode images, optionally crop, resize, flip and add noise,
// encode JPEG or PNG. `-o out.jpg` with one input file writes that file.
#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

#include "batch.h"
#include "commands.h"
#include "format_names.h"
#include "image_args.h"
#include "loom/codec/atomic_file.h"
#include "loom/codec/byte_source.h"
#include "loom/codec/sniff.h"
#include "loom/loader/file_list.h"
#include "messages.h"
#include "shard_args.h"

namespace loom::cli {
namespace fs = std::filesystem;
namespace {

struct ConvertArgs {
  std::vector<std::string> inputs;
  std::string outdir;  // -o: a folder, or the output file when output_is_file
  bool output_is_file = false;
  std::vector<std::string> ext;  // --ext
  ImageArgs image;               // --format, --resize, --noise, ...
  BatchOptions batch;            // -j, --overwrite, --skip-existing, --fail-fast, -q, --dry-run, --json
  ShardFlags shards;             // --shard-index, --num-shards
};

// Converts one file; returns the input bytes read. Throws loom::Error.
uint64_t convert_one(const ConvertArgs& args, const ImageSteps& steps, const BatchJob& job) {
  const ByteSource src = ByteSource::from_file(job.input);
  const Format format = sniff_format(src.bytes());
  if (media_kind(format) != MediaKind::kImage) throw not_media_file(job.input, "image", format);
  const std::string output_format = format_named(kImageFormats, job.output.extension().string());
  const std::vector<uint8_t> bytes = transform_image(args.image, steps, src, job.relative, output_format);
  create_output_folder(job.folder, job.output);
  write_file_atomic(job.output, bytes, args.batch.overwrite);
  return src.size();
}

int run_convert(const ConvertArgs& args) {
  const ImageSteps steps = parse_image_steps(args.image);
  BatchPlanRequest request;
  request.inputs = args.inputs;
  request.output = args.outdir;
  request.output_is_file = args.output_is_file;
  request.extensions = scan_extensions(args.ext, loader::image_extensions());
  request.output_extension = [&](const fs::path& input) { return image_output_extension(args.image, input); };
  std::vector<InputError> input_errors;
  const std::vector<BatchJob> jobs = plan_batch(request, input_errors);
  BatchOptions options = args.batch;
  options.noun = "images";
  options.seed = steps.noise_seed;
  return run_batch(select_part(jobs, shard_split(args.shards)), input_errors, options,
                   [&](const BatchJob& job) { return convert_one(args, steps, job); });
}

// With -o naming a file, --format (if given) must agree with its extension.
void check_output_file(ConvertArgs& args) {
  args.output_is_file = output_names_file(args.inputs, args.outdir, format_extensions(kImageFormats));
  if (!args.output_is_file) return;
  const std::string format = format_named(kImageFormats, fs::path(args.outdir).extension().string());
  if (!args.image.format.empty() && args.image.format != format) {
    throw CLI::ValidationError("--format", fmt::format("--format {} contradicts the output file {} ({})",
                                                       args.image.format, args.outdir, format));
  }
  args.image.format = format;
}

}  // namespace

Command add_convert_command(CLI::App& app) {
  auto args = std::make_shared<ConvertArgs>();
  CLI::App* cmd = app.add_subcommand("convert", "Convert images (files, or folders recursively) to JPEG or PNG");
  cmd->add_option("INPUT", args->inputs, "Image files or folders")->required();
  cmd->add_option("-o,--output", args->outdir,
                  "Output folder; the tree below each folder given is mirrored (out.jpg or out.png with one "
                  "input file: that file)")
      ->required();
  add_ext_flag(*cmd, args->ext);
  const ImageFlags image = add_image_flags(*cmd, args->image);
  add_batch_flags(*cmd, args->batch);
  add_run_flags(*cmd, args->batch);
  add_shard_flags(*cmd, args->shards, "input files");
  cmd->callback([args, image] {  // reject bad values while parsing, before any file is touched
    check_image_args(args->image, image);
    check_output_file(*args);
    check_run_flags(args->batch);
    shard_split(args->shards);
  });
  return {cmd, [args] { return run_convert(*args); }};
}

}  // namespace loom::cli
