// `loom convert INPUT... -o OUTDIR`: decode images, optionally crop, resize, flip and add noise,
// encode JPEG or PNG.
#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include <charconv>
#include <cmath>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "batch.h"
#include "commands.h"
#include "loom/codec/atomic_file.h"
#include "loom/codec/error.h"
#include "loom/codec/sniff.h"
#include "loom/loader/file_list.h"
#include "loom/transforms/geometry.h"
#include "loom/transforms/noise.h"
#include "loom/transforms/random.h"
#include "loom/transforms/resize.h"
#include "loom/vision/image.h"
#include "resize_arg.h"
#include "size_arg.h"

namespace loom::cli {
namespace fs = std::filesystem;
namespace {

struct ConvertArgs {
  std::vector<std::string> inputs;
  std::string outdir;
  std::string format;  // "jpg", "png" or empty: keep the input's (PNG for other formats)
  int quality = 75;
  int compression = 6;
  std::string mode = "unchanged";
  std::string resize;  // "WxH", "N" (shorter side) or empty
  std::string interp = "bilinear";
  bool no_antialias = false;
  bool exif = false;
  std::string crop;         // "WxH" or "WxH+X+Y", or empty
  std::string center_crop;  // "WxH" or "N", or empty
  bool hflip = false;
  double noise = 0.0;  // sigma on the [0, 1] scale; used when noise_on
  bool noise_on = false;
  std::string seed;    // decimal, or empty: a random seed
  BatchOptions batch;  // -j, --overwrite, --fail-fast, -q
};

// A crop request: a region at an offset (--crop), or a centred one (--center-crop).
struct CropSpec {
  Geometry region;
  bool center = false;
};

std::optional<CropSpec> parse_crop(const std::string& crop, const std::string& center_crop) {
  if (!crop.empty()) {
    const std::optional<Geometry> g = parse_geometry(crop, /*offset=*/true);
    if (!g) {
      throw CLI::ValidationError("--crop",
                                 fmt::format("'{}' is not WxH or WxH+X+Y (positive W and H, X and Y >= 0)", crop));
    }
    return CropSpec{*g, false};
  }
  if (!center_crop.empty()) {
    std::optional<Geometry> g;
    if (center_crop.find('x') == std::string::npos) {  // "N": a square, as torchvision's CenterCrop(N)
      const std::optional<int64_t> n = parse_count(center_crop);
      if (n && *n > 0) g = parse_geometry(fmt::format("{}x{}", *n, *n), false);
    } else {
      g = parse_geometry(center_crop, /*offset=*/false);
    }
    if (!g) {
      throw CLI::ValidationError("--center-crop", fmt::format("'{}' is not WxH or N (positive integers)", center_crop));
    }
    return CropSpec{*g, true};
  }
  return std::nullopt;
}

// --seed: a decimal number of 0..2^64-1 (CLI11's own conversion would wrap "-1" around).
std::optional<uint64_t> parse_seed(const std::string& text) {
  if (text.empty()) return std::nullopt;
  uint64_t seed = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seed);
  if (text.front() < '0' || text.front() > '9' || ec != std::errc() || end != text.data() + text.size()) {
    throw CLI::ValidationError("--seed", fmt::format("'{}' is not a number from 0 to 18446744073709551615", text));
  }
  return seed;
}

void check_noise(const ConvertArgs& args) {
  if (args.noise_on && !(std::isfinite(args.noise) && args.noise >= 0)) {
    throw CLI::ValidationError("--noise", fmt::format("sigma must be a finite number >= 0, not {}", args.noise));
  }
}

// What convert_one does besides decoding and encoding, validated.
struct Steps {
  std::optional<ResizeSpec> resize;
  std::optional<CropSpec> crop;
  std::optional<uint64_t> noise_seed;  // set with --noise: the run's seed
};

// Throws CLI::ValidationError for a bad value; draws a random seed for --noise without --seed.
Steps parse_steps(const ConvertArgs& args) {
  Steps steps;
  steps.resize = parse_resize(args.resize);
  steps.crop = parse_crop(args.crop, args.center_crop);
  check_noise(args);
  const std::optional<uint64_t> seed = parse_seed(args.seed);
  if (args.noise_on) {
    if (seed) {
      steps.noise_seed = seed;
    } else {
      std::random_device device;
      steps.noise_seed = (uint64_t{device()} << 32) ^ device();
    }
  }
  return steps;
}

// The noise stream of a file: FNV-1a of its relative path (as listed below the folder given, or its
// name), so that its noise depends on the seed and the path only, never on the processing order.
uint64_t noise_stream(const fs::path& relative) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (const char c : relative.generic_string()) {
    hash ^= static_cast<uint8_t>(c);
    hash *= 0x100000001b3ull;
  }
  return hash;
}

// An HWC image as a Sample for the geometric transforms (no annotations).
transforms::Sample hwc_sample(const Tensor& image) {
  transforms::Sample sample;
  sample.image = image;
  sample.layout = Layout::kHWC;
  return sample;
}

Tensor apply_crop(const Tensor& image, const CropSpec& crop) {
  const transforms::Sample sample = hwc_sample(image);
  const Geometry& g = crop.region;
  if (crop.center) return transforms::center_crop(sample, Size{g.height, g.width}).image;
  return transforms::crop(sample, g.y, g.x, g.height, g.width).image;
}

// --format, else the input's own format as its bytes say: JPEG stays JPEG, anything else becomes PNG.
std::string output_extension(const ConvertArgs& args, const fs::path& input) {
  if (!args.format.empty()) return "." + args.format;
  return sniff_file(input) == Format::kJpeg ? ".jpg" : ".png";
}

vision::ImageReadMode parse_mode(const std::string& mode) {
  if (mode == "gray") return vision::ImageReadMode::kGray;
  if (mode == "rgb") return vision::ImageReadMode::kRGB;
  if (mode == "rgba") return vision::ImageReadMode::kRGBAlpha;
  return vision::ImageReadMode::kUnchanged;
}

transforms::Interpolation parse_interp(const std::string& interp) {
  if (interp == "nearest") return transforms::Interpolation::kNearest;
  if (interp == "bicubic") return transforms::Interpolation::kBicubic;
  return transforms::Interpolation::kBilinear;
}

// Converts one file; returns the input bytes read. Throws loom::Error.
uint64_t convert_one(const ConvertArgs& args, const Steps& steps, const BatchJob& job) {
  const ByteSource src = ByteSource::from_file(job.input);
  const bool jpeg_out = job.output.extension() == ".jpg";
  const std::optional<ResizeSpec>& resize = steps.resize;
  vision::DecodeOptions opt;
  opt.layout = Layout::kHWC;  // what the codecs read and write natively: no layout passes
  opt.mode = parse_mode(args.mode);
  opt.apply_exif_orientation = args.exif;
  opt.to_uint8 = jpeg_out || steps.noise_seed.has_value();  // the noise is uint8 GaussianNoise

  Size target;
  // The DCT-scaling hint only when nothing comes between decode and resize: a crop's region is in
  // full-resolution pixels, and cropping a scaled decode would not give the same pixels.
  const bool dct_hint = resize && !steps.crop;
  if (dct_hint) {
    const vision::ImageInfo info = vision::read_image_info(src, opt.limits);
    const bool swapped = args.exif && info.orientation >= 5;  // EXIF 5..8 turn the image by 90 degrees
    const Size upright{swapped ? info.width : info.height, swapped ? info.height : info.width};
    target = resize_target(*resize, upright);
    // DCT-domain scaling: JPEG decodes straight to the smallest size that still covers the target.
    opt.min_width = static_cast<int>(swapped ? target.height : target.width);
    opt.min_height = static_cast<int>(swapped ? target.width : target.height);
  }
  Tensor image = vision::decode_image(src, opt);
  if (jpeg_out && (image.size(2) == 2 || image.size(2) == 4)) {
    image = image.slice(2, 0, image.size(2) - 1);  // JPEG stores no alpha
  }
  if (steps.crop) image = apply_crop(image, *steps.crop);
  if (resize) {
    if (!dct_hint) target = resize_target(*resize, transforms::image_size(image, Layout::kHWC));
    transforms::ResizeOptions ro;
    ro.interpolation = parse_interp(args.interp);
    ro.antialias = !args.no_antialias;
    ro.layout = Layout::kHWC;
    if (image.size(0) != target.height || image.size(1) != target.width) image = transforms::resize(image, target, ro);
  }
  if (args.hflip) image = transforms::horizontal_flip(hwc_sample(image)).image;
  if (steps.noise_seed) {
    transforms::Rng rng(*steps.noise_seed, noise_stream(job.relative));
    image = transforms::gaussian_noise(image, rng, 0.0, args.noise, /*clip=*/true);
  }
  const std::vector<uint8_t> bytes = encode_hwc(image, jpeg_out, args.quality, args.compression);
  create_output_folder(job.output);
  write_file_atomic(job.output, bytes, args.batch.overwrite);
  return src.size();
}

int run_convert(const ConvertArgs& args) {
  const Steps steps = parse_steps(args);
  std::vector<std::string> input_errors;
  const std::vector<BatchJob> jobs = plan_batch(
      args.inputs, args.outdir, loader::image_extensions(),
      [&](const fs::path& input) { return output_extension(args, input); }, input_errors);
  BatchOptions options = args.batch;
  options.noun = "images";
  if (steps.noise_seed) options.summary_suffix = fmt::format(", seed {}", *steps.noise_seed);
  return run_batch(jobs, input_errors, options, [&](const BatchJob& job) { return convert_one(args, steps, job); });
}

}  // namespace

Command add_convert_command(CLI::App& app) {
  auto args = std::make_shared<ConvertArgs>();
  CLI::App* cmd = app.add_subcommand("convert", "Convert images (files, or folders recursively) to JPEG or PNG");
  cmd->add_option("INPUT", args->inputs, "Image files or folders")->required();
  cmd->add_option("-o,--output", args->outdir, "Output folder; the tree below each folder given is mirrored")
      ->required();
  cmd->add_option("--format", args->format, "Output format (default: JPEG for JPEG inputs, PNG for the others)")
      ->check(CLI::IsMember({"jpg", "png"}));
  cmd->add_option("--quality", args->quality, "JPEG quality 1-100")->check(CLI::Range(1, 100))->capture_default_str();
  cmd->add_option("--compression", args->compression, "PNG zlib level 0-9")
      ->check(CLI::Range(0, 9))
      ->capture_default_str();
  cmd->add_option("--mode", args->mode, "Channels to decode to")
      ->check(CLI::IsMember({"unchanged", "gray", "rgb", "rgba"}))
      ->capture_default_str();
  cmd->add_option("--resize", args->resize, "WxH, or N for the shorter side (aspect kept, as torchvision Resize(N))");
  cmd->add_option("--interp", args->interp, "Resize interpolation")
      ->check(CLI::IsMember({"nearest", "bilinear", "bicubic"}))
      ->capture_default_str();
  cmd->add_flag("--no-antialias", args->no_antialias, "Do not widen the filter when downscaling");
  cmd->add_flag("--exif-orientation", args->exif, "Turn images upright as their EXIF orientation says");
  CLI::Option* crop =
      cmd->add_option("--crop", args->crop,
                      "Keep the WxH region whose top-left corner is at X,Y (WxH+X+Y; WxH: at 0,0), before resizing");
  CLI::Option* center_crop =
      cmd->add_option("--center-crop", args->center_crop,
                      "Keep the centred WxH (or NxN) region, zero-padded when larger, before resizing");
  crop->excludes(center_crop);
  cmd->add_flag("--hflip", args->hflip, "Mirror left-right (after resizing)");
  CLI::Option* noise = cmd->add_option(
      "--noise", args->noise,
      "Add Gaussian noise of this sigma on the [0, 1] scale (0.1 = 25.5 levels), as torchvision GaussianNoise");
  CLI::Option* seed = cmd->add_option("--seed", args->seed,
                                      "Noise seed: the same seed gives the same files (default: random, printed)");
  seed->needs(noise);
  add_batch_flags(*cmd, args->batch);
  cmd->callback([args, noise] {  // reject bad values while parsing, before any file is touched
    args->noise_on = noise->count() > 0;
    parse_resize(args->resize);
    parse_crop(args->crop, args->center_crop);
    check_noise(*args);
    parse_seed(args->seed);
  });
  return {cmd, [args] { return run_convert(*args); }};
}

}  // namespace loom::cli
