// `loom convert INPUT... -o OUTDIR`: decode images, optionally resize, encode JPEG or PNG.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <atomic>
#include <csignal>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "commands.h"
#include "loom/codec/error.h"
#include "loom/codec/sniff.h"
#include "loom/loader/file_list.h"
#include "loom/transforms/resize.h"
#include "loom/vision/image.h"
#include "parallel.h"
#include "progress.h"

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
  int jobs = 0;
  bool overwrite = false;
  bool fail_fast = false;
  bool quiet = false;
};

// A resize request: exact size, or the shorter side with the aspect ratio kept.
struct ResizeSpec {
  int64_t width = 0, height = 0;  // exact when both are set
  int64_t shorter = 0;            // else this
};

std::optional<ResizeSpec> parse_resize(const std::string& text) {
  if (text.empty()) return std::nullopt;
  ResizeSpec spec;
  const auto x = text.find('x');
  try {
    size_t used = 0;
    if (x == std::string::npos) {
      spec.shorter = std::stoll(text, &used);
      if (used != text.size() || spec.shorter <= 0) throw std::invalid_argument(text);
    } else {
      spec.width = std::stoll(text.substr(0, x), &used);
      if (used != x) throw std::invalid_argument(text);
      spec.height = std::stoll(text.substr(x + 1), &used);
      if (used != text.size() - x - 1 || spec.width <= 0 || spec.height <= 0) throw std::invalid_argument(text);
    }
  } catch (const std::logic_error&) {
    throw CLI::ValidationError("--resize", fmt::format("'{}' is not WxH or N (positive integers)", text));
  }
  return spec;
}

struct Job {
  fs::path input;
  fs::path output;
  std::string planning_error;  // set when the job cannot run (e.g. its output collides with another's)
};

// --format, else the input's own format as its bytes say: JPEG stays JPEG, anything else becomes PNG.
std::string output_extension(const ConvertArgs& args, const fs::path& input) {
  if (!args.format.empty()) return "." + args.format;
  return sniff_file(input) == Format::kJpeg ? ".jpg" : ".png";
}

// Lists every input and gives each file its output path; inputs that cannot be listed (missing,
// unreadable) go to `errors`.
std::vector<Job> plan(const ConvertArgs& args, std::vector<std::string>& errors) {
  std::vector<Job> jobs;
  std::map<fs::path, fs::path> owner;  // output -> the input that writes it
  loader::ScanOptions scan;
  scan.extensions = loader::image_extensions();
  for (const std::string& input : args.inputs) {
    std::vector<loader::FileEntry> files;
    try {
      files = loader::scan_files(input, scan);
    } catch (const Error& e) {
      errors.emplace_back(e.what());
      continue;
    }
    for (loader::FileEntry& f : files) {
      Job job{f.path, (fs::path(args.outdir) / f.relative).replace_extension(output_extension(args, f.path)), ""};
      job.output = job.output.lexically_normal();
      auto [it, inserted] = owner.emplace(job.output, job.input);
      if (!inserted) {
        job.planning_error = fmt::format("its output {} is also the output of {}", job.output.string(), it->second.string());
      }
      jobs.push_back(std::move(job));
    }
  }
  return jobs;
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
uint64_t convert_one(const ConvertArgs& args, const std::optional<ResizeSpec>& resize, const Job& job) {
  const ByteSource src = ByteSource::from_file(job.input);
  const bool jpeg_out = job.output.extension() == ".jpg";
  vision::DecodeOptions opt;
  opt.layout = vision::Layout::kHWC;  // what the codecs read and write natively: no layout passes
  opt.mode = parse_mode(args.mode);
  opt.apply_exif_orientation = args.exif;
  opt.to_uint8 = jpeg_out;

  transforms::Size target;
  if (resize) {
    const vision::ImageInfo info = vision::read_image_info(src, opt.limits);
    const bool swapped = args.exif && info.orientation >= 5;  // EXIF 5..8 turn the image by 90 degrees
    const transforms::Size upright{swapped ? info.width : info.height, swapped ? info.height : info.width};
    target = resize->shorter > 0 ? transforms::size_for_shorter_side(upright, resize->shorter)
                                 : transforms::Size{resize->height, resize->width};
    // DCT-domain scaling: JPEG decodes straight to the smallest size that still covers the target.
    opt.min_width = static_cast<int>(swapped ? target.height : target.width);
    opt.min_height = static_cast<int>(swapped ? target.width : target.height);
  }
  Tensor image = vision::decode_image(src, opt);
  if (jpeg_out && (image.size(2) == 2 || image.size(2) == 4)) {
    image = image.slice(2, 0, image.size(2) - 1);  // JPEG stores no alpha
  }
  if (resize) {
    transforms::ResizeOptions ro;
    ro.interpolation = parse_interp(args.interp);
    ro.antialias = !args.no_antialias;
    ro.layout = vision::Layout::kHWC;
    if (image.size(0) != target.height || image.size(1) != target.width) image = transforms::resize(image, target, ro);
  }
  std::vector<uint8_t> bytes;
  if (jpeg_out) {
    vision::JpegEncodeOptions jo;
    jo.quality = args.quality;
    jo.layout = vision::Layout::kHWC;
    bytes = vision::encode_jpeg(image, jo);
  } else {
    vision::PngEncodeOptions po;
    po.compression_level = args.compression;
    po.layout = vision::Layout::kHWC;
    bytes = vision::encode_png(image, po);
  }
  std::error_code ec;
  fs::create_directories(job.output.parent_path(), ec);
  if (ec && !fs::is_directory(job.output.parent_path())) {
    throw Error(ErrorCode::kIo, job.output.parent_path().string(), "cannot create folder: " + ec.message());
  }
  write_file_atomic(job.output, bytes, args.overwrite);
  return src.size();
}

// SIGINT/SIGTERM while converting: delete the temporary files being written, then die of the signal
// as usual. Outputs already renamed into place are complete; no partial file is left.
void on_interrupt(int sig) {
  remove_pending_files();
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

int run_convert(const ConvertArgs& args) {
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
  const std::optional<ResizeSpec> resize = parse_resize(args.resize);
  std::vector<std::string> input_errors;
  const std::vector<Job> jobs = plan(args, input_errors);
  Progress progress(static_cast<int64_t>(jobs.size()), !args.quiet);
  for (const std::string& e : input_errors) progress.print_error(e);
  std::atomic<bool> stop{false};
  const int threads = args.jobs > 0 ? args.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  parallel_for(jobs.size(), threads, [&](size_t i) {
    if (stop.load(std::memory_order_relaxed)) return;
    const Job& job = jobs[i];
    std::string error;
    uint64_t bytes = 0;
    try {
      if (!job.planning_error.empty()) throw Error(ErrorCode::kInvalidInput, job.input.string(), job.planning_error);
      bytes = convert_one(args, resize, job);
    } catch (const Error& e) {
      error = e.input() == job.input.string() ? e.what() : fmt::format("{}: {}", job.input.string(), e.what());
    } catch (const std::exception& e) {
      error = fmt::format("{}: {}", job.input.string(), e.what());
    }
    if (!error.empty()) {
      progress.print_error(error);
      if (args.fail_fast) stop = true;
    }
    progress.record(error.empty(), bytes);
  });
  progress.finish(args.quiet, "images");
  return !input_errors.empty() || progress.failed() > 0 ? 1 : 0;
}

}  // namespace

std::function<int()> add_convert_command(CLI::App& app) {
  auto args = std::make_shared<ConvertArgs>();
  CLI::App* cmd = app.add_subcommand("convert", "Convert images (files, or folders recursively) to JPEG or PNG");
  cmd->add_option("INPUT", args->inputs, "Image files or folders")->required();
  cmd->add_option("-o,--output", args->outdir, "Output folder; the tree below each folder given is mirrored")->required();
  cmd->add_option("--format", args->format, "Output format (default: JPEG for JPEG inputs, PNG for the others)")
      ->check(CLI::IsMember({"jpg", "png"}));
  cmd->add_option("--quality", args->quality, "JPEG quality 1-100")->check(CLI::Range(1, 100))->capture_default_str();
  cmd->add_option("--compression", args->compression, "PNG zlib level 0-9")->check(CLI::Range(0, 9))->capture_default_str();
  cmd->add_option("--mode", args->mode, "Channels to decode to")
      ->check(CLI::IsMember({"unchanged", "gray", "rgb", "rgba"}))
      ->capture_default_str();
  cmd->add_option("--resize", args->resize, "WxH, or N for the shorter side (aspect kept, as torchvision Resize(N))");
  cmd->add_option("--interp", args->interp, "Resize interpolation")
      ->check(CLI::IsMember({"nearest", "bilinear", "bicubic"}))
      ->capture_default_str();
  cmd->add_flag("--no-antialias", args->no_antialias, "Do not widen the filter when downscaling");
  cmd->add_flag("--exif-orientation", args->exif, "Turn images upright as their EXIF orientation says");
  cmd->add_option("-j,--jobs", args->jobs, "Parallel jobs (default: all cores)")->check(CLI::NonNegativeNumber);
  cmd->add_flag("--overwrite", args->overwrite, "Replace existing output files (default: refuse)");
  cmd->add_flag("--fail-fast", args->fail_fast, "Stop at the first failed file");
  cmd->add_flag("-q,--quiet", args->quiet, "No progress bar and no summary (errors are still printed)");
  cmd->callback([args] { parse_resize(args->resize); });  // reject a bad --resize while parsing
  return [args] { return run_convert(*args); };
}

}  // namespace loom::cli
