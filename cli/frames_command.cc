// `loom frames VIDEO... -o OUTDIR`: decode chosen frames of videos (by index, time, range, interval or
// count) and write each as frame_%06d.<png|jpg>, named by its index in the stream, with a frames.jsonl
// index beside them (file, index, pts, duration, output). One video file: into OUTDIR; several, or
// folders of them: into OUTDIR/<the video's path below its folder, without extension>/.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <vector>

#include "batch.h"
#include "commands.h"
#include "interrupt.h"
#include "loom/codec/atomic_file.h"
#include "loom/codec/byte_source.h"
#include "loom/codec/error.h"
#include "loom/transforms/resize.h"
#include "loom/video/decoder.h"
#include "loom/video/samplers.h"
#include "loom/vision/image.h"
#include "messages.h"
#include "parallel.h"
#include "progress.h"
#include "resize_arg.h"
#include "shard_args.h"
#include "summary.h"

namespace loom::cli {
namespace fs = std::filesystem;
namespace {

struct FramesArgs {
  std::vector<std::string> inputs;  // video files or folders
  std::string outdir;
  std::vector<std::string> ext;  // --ext
  // The selectors, as typed; at most one is given.
  std::optional<std::string> indices, times, range, every, num;
  std::string seek = "exact";
  std::string format = "png";
  std::string resize;
  int quality = 75;
  int compression = 6;
  bool autorotate = false;  // turn frames as the display matrix says
  // -j, --overwrite, -q, --json; with several videos also --fail-fast, --skip-existing and --dry-run (one
  // video stops at its first failed frame)
  BatchOptions batch;
  ShardFlags shards;  // --shard-index, --num-shards: one video's selected frames, or the videos
};

// Folder scanning: video file extensions.
const std::vector<std::string>& video_extensions() {
  static const std::vector<std::string> kExtensions = {".mp4", ".m4v", ".mov", ".mkv",  ".webm", ".avi",
                                                       ".3gp", ".ts",  ".mts", ".m2ts", ".mpg",  ".mpeg",
                                                       ".wmv", ".flv", ".ogv", ".mxf",  ".y4m"};
  return kExtensions;
}

enum class SelectorKind { kAll, kIndices, kTimes, kRange, kEvery, kNum };

struct Selector {
  SelectorKind kind = SelectorKind::kAll;
  std::vector<int64_t> indices;        // kIndices, as typed (negative counts from the end)
  std::vector<double> times;           // kTimes
  std::optional<int64_t> start, stop;  // kRange (Python slice; unset = open end)
  int64_t step = 1;                    // kRange, > 0
  double every = 0;                    // kEvery, > 0
  int64_t num = 0;                     // kNum, > 0
};

std::optional<int64_t> parse_int(std::string_view text) {
  if (text.empty() || text.front() == '+') return std::nullopt;
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// A finite decimal number ("1.5", "-2", "1e-3"); no "nan", "inf", signs other than a leading '-'.
std::optional<double> parse_seconds(std::string_view text) {
  if (text.empty() || text.front() == '+') return std::nullopt;
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  size_t begin = 0;
  while (true) {
    const size_t at = text.find(sep, begin);
    parts.push_back(text.substr(begin, at == std::string_view::npos ? std::string_view::npos : at - begin));
    if (at == std::string_view::npos) return parts;
    begin = at + 1;
  }
}

constexpr size_t kMaxListItems = 1'000'000;

// A comma-separated list of at most kMaxListItems items, each read by `parse_item`. Throws
// CLI::ValidationError(`option`) naming the list and what its items are (`what`) for a bad one.
template <typename Parse>
auto parse_list(const std::string& text, Parse parse_item, const char* option, const char* what) {
  std::vector<typename std::invoke_result_t<Parse, std::string_view>::value_type> out;
  for (const std::string_view item : split(text, ',')) {
    const auto value = parse_item(item);
    if (!value || out.size() >= kMaxListItems) {
      throw CLI::ValidationError(option, fmt::format("'{}' is not a comma-separated list of {}", text, what));
    }
    out.push_back(*value);
  }
  return out;
}

// Throws CLI::ValidationError for two selectors or a malformed one.
Selector parse_selector(const FramesArgs& args) {
  const int given = args.indices.has_value() + args.times.has_value() + args.range.has_value() +
                    args.every.has_value() + args.num.has_value();
  if (given > 1) {
    throw CLI::ValidationError("selector", "give at most one of --indices, --times, --range, --every, --num");
  }
  Selector s;
  if (args.indices) {
    s.kind = SelectorKind::kIndices;
    s.indices = parse_list(*args.indices, parse_int, "--indices", "integers");
  } else if (args.times) {
    s.kind = SelectorKind::kTimes;
    s.times = parse_list(*args.times, parse_seconds, "--times", "seconds");
  } else if (args.range) {
    s.kind = SelectorKind::kRange;
    const std::vector<std::string_view> parts = split(*args.range, ':');
    bool ok = parts.size() == 2 || parts.size() == 3;
    if (ok && !parts[0].empty()) ok = (s.start = parse_int(parts[0])).has_value();
    if (ok && !parts[1].empty()) ok = (s.stop = parse_int(parts[1])).has_value();
    if (ok && parts.size() == 3 && !parts[2].empty()) {
      const std::optional<int64_t> step = parse_int(parts[2]);
      ok = step && *step > 0;
      if (ok) s.step = *step;
    }
    if (!ok) {
      throw CLI::ValidationError(
          "--range",
          fmt::format("'{}' is not START:STOP or START:STOP:STEP (integers, may be empty; STEP > 0)", *args.range));
    }
  } else if (args.every) {
    s.kind = SelectorKind::kEvery;
    const std::optional<double> every = parse_seconds(*args.every);
    if (!every || *every <= 0) {
      throw CLI::ValidationError("--every", fmt::format("'{}' is not a positive number of seconds", *args.every));
    }
    s.every = *every;
  } else if (args.num) {
    s.kind = SelectorKind::kNum;
    const std::optional<int64_t> n = parse_int(*args.num);
    if (!n || *n <= 0 || *n > static_cast<int64_t>(kMaxListItems)) {
      throw CLI::ValidationError("--num",
                                 fmt::format("'{}' is not a frame count from 1 to {}", *args.num, kMaxListItems));
    }
    s.num = *n;
  }
  return s;
}

void check_args(const FramesArgs& args) {
  parse_selector(args);
  shard_split(args.shards);
  parse_resize(args.resize);
  if (args.format != "null" && args.outdir.empty()) {
    throw CLI::ValidationError("-o", "an output folder is needed (only --format null writes nothing)");
  }
}

// Python's slice(start, stop, step).indices(n) for step > 0.
std::vector<int64_t> slice_indices(const Selector& s, int64_t n) {
  auto clamp = [n](std::optional<int64_t> v, int64_t fallback) {
    if (!v) return fallback;
    int64_t i = *v < 0 ? *v + n : *v;
    return std::clamp<int64_t>(i, 0, n);
  };
  const int64_t start = clamp(s.start, 0), stop = clamp(s.stop, n);
  std::vector<int64_t> out;
  for (int64_t i = start; i < stop; i += s.step) out.push_back(i);
  return out;
}

// Sorted distinct frame indices for the index-based selectors. Throws Error(kInvalidInput) for an
// index outside [-n, n).
std::vector<int64_t> resolve_indices(const Selector& s, int64_t n, const std::string& input) {
  std::vector<int64_t> out;
  switch (s.kind) {
    case SelectorKind::kAll:
      for (int64_t i = 0; i < n; ++i) out.push_back(i);
      break;
    case SelectorKind::kIndices:
      for (const int64_t i : s.indices) {
        if (i < -n || i >= n) {
          throw Error(ErrorCode::kInvalidInput, input,
                      fmt::format("frame index {} is out of range: the video has {} frames (valid: {} to {})", i, n, -n,
                                  n - 1));
        }
        out.push_back(i < 0 ? i + n : i);
      }
      break;
    case SelectorKind::kRange: out = slice_indices(s, n); break;
    case SelectorKind::kNum: {
      // TorchCodec's regular sampling of one-frame clips.
      video::IndexClipOptions clips;
      clips.num_clips = static_cast<int>(s.num);
      for (const std::vector<int64_t>& clip : video::clip_indices_at_regular_indices(n, clips)) out.push_back(clip[0]);
      break;
    }
    default: break;
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// Sorted distinct indices of the frames played at the times of a time-based selector. Throws
// Error(kInvalidInput) for a time outside [begin, end) of the stream, or for --every giving more than
// kMaxListItems times.
std::vector<int64_t> resolve_times(const Selector& s, const video::VideoDecoder& decoder, const std::string& input) {
  const video::StreamMetadata& m = decoder.metadata();
  std::vector<double> times;
  const double begin = m.begin_stream_seconds, end = m.end_stream_seconds;
  if (s.kind == SelectorKind::kEvery) {
    for (int64_t k = 0;; ++k) {
      const double t = begin + static_cast<double>(k) * s.every;
      if (!(t < end)) break;
      if (times.size() >= kMaxListItems) {
        throw Error(ErrorCode::kInvalidInput, input,
                    fmt::format("--every {} gives more than {} times for this video", s.every, kMaxListItems));
      }
      times.push_back(t);
    }
  } else {
    for (const double t : s.times) {
      if (!(t >= begin && t < end)) {
        throw Error(ErrorCode::kInvalidInput, input,
                    fmt::format("time {} s is outside the video: frames are played from {} s to {} s", t, begin, end));
      }
      times.push_back(t);
    }
  }
  std::vector<int64_t> out;
  out.reserve(times.size());
  for (const double t : times) out.push_back(decoder.index_played_at(t));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

struct Output {
  std::string extension;  // "png", "jpg", or empty for null
  fs::path folder;
  int quality = 75, compression = 6;
  bool overwrite = false;

  fs::path path(int64_t index) const { return folder / fmt::format("frame_{:06d}.{}", index, extension); }

  // Encodes (and, unless null, writes) one HWC frame.
  void write(int64_t index, const Tensor& frame) const {
    if (extension.empty()) return;
    write_file_atomic(path(index), encode_hwc(frame, {extension, quality, compression}), overwrite);
  }
};

struct Decoded {
  int64_t index = 0;
  Tensor data;  // uint8 HWC
  double pts = 0, duration = 0;
};

// Decodes `indices` (ascending) of `input` in one call; when that fails (a truncated or corrupt file),
// frame by frame, keeping the frames before the first that fails, whose failure line is returned in
// `error`.
std::vector<Decoded> decode_chunk(video::VideoDecoder& decoder, const std::vector<int64_t>& indices,
                                  const std::string& input, std::string& error) {
  std::vector<Decoded> out;
  try {
    video::Frames frames = decoder.get_frames_at(indices);
    for (size_t k = 0; k < indices.size(); ++k) {
      out.push_back({indices[k], frames.data.select(0, static_cast<int64_t>(k)), frames.pts_seconds[k],
                     frames.duration_seconds[k]});
    }
    return out;
  } catch (const std::exception&) {  // retried frame by frame below
  }
  out.clear();  // the batch may have failed part-way through the loop above
  for (const int64_t i : indices) {
    try {
      video::Frame f = decoder.get_frame_at(i);
      out.push_back({i, f.data, f.pts_seconds, f.duration_seconds});
    } catch (const std::exception& e) {
      error = failure_line(input, e);
      return out;
    }
  }
  return out;  // every frame decoded on its own
}

// One video opened and its selected frames resolved: what extract() decodes and writes.
struct VideoPlan {
  std::string input;
  std::optional<video::VideoDecoder> decoder;
  std::vector<int64_t> indices;  // ascending, distinct
  uint64_t frame_bytes = 0;      // of one RGB output frame
};

// Opens `input`, sizes the output (--resize, of the frame as shown) and resolves the selector; with
// `split_frames`, keeps this worker's contiguous part of the frames (--shard-index). Throws loom::Error.
VideoPlan plan_video(const FramesArgs& args, const Selector& selector, const std::optional<ResizeSpec>& resize,
                     const std::string& input, bool split_frames) {
  VideoPlan plan;
  plan.input = input;
  video::DecoderOptions options;
  options.seek_mode = args.seek == "approximate" ? video::SeekMode::kApproximate : video::SeekMode::kExact;
  options.dimension_order = Layout::kHWC;
  options.apply_rotation = args.autorotate;
  plan.decoder.emplace(video::VideoDecoder::open(fs::path(input), options));
  video::VideoDecoder& decoder = *plan.decoder;
  const video::StreamMetadata& m = decoder.metadata();
  // The size shown: a quarter turn (--autorotate of a 90 or 270 degree clip) swaps the sides.
  const double turn = m.stream.rotation;
  const bool sideways = args.autorotate && std::fmod(turn, 90) == 0 && std::fmod(turn, 180) != 0;
  Size out = sideways ? Size{m.stream.width, m.stream.height} : Size{m.stream.height, m.stream.width};
  if (resize) {  // resized in the colour conversion, to a size computed from the frame as shown
    out = resize_target(*resize, out);
    if (std::max(out.height, out.width) > kMaxResizeSide) {
      throw Error(ErrorCode::kInvalidInput, input,
                  fmt::format("--resize gives {}x{}, larger than {} on a side", out.width, out.height, kMaxResizeSide));
    }
    decoder.set_output_size(out);
  }
  plan.frame_bytes = static_cast<uint64_t>(out.height) * static_cast<uint64_t>(out.width) * 3;
  const bool by_time = selector.kind == SelectorKind::kTimes || selector.kind == SelectorKind::kEvery;
  plan.indices =
      by_time ? resolve_times(selector, decoder, input) : resolve_indices(selector, decoder.num_frames(), input);
  if (split_frames) {
    // This worker's contiguous part of the selected frames (ascending), so that it decodes few GOPs.
    const ShardSplit split = shard_split(args.shards);
    const loader::IndexRange part =
        loader::split_range(static_cast<int64_t>(plan.indices.size()), split.index, split.count);
    plan.indices = std::vector<int64_t>(plan.indices.begin() + part.begin, plan.indices.begin() + part.end);
  }
  return plan;
}

// Creates `output.folder` and, without --overwrite, refuses (before anything is decoded) when a frame
// of `indices` exists. Throws loom::Error.
void prepare_output(const Output& output, const std::vector<int64_t>& indices) {
  if (output.extension.empty()) return;
  create_output_folder(output.folder, output.folder / "x");
  if (output.overwrite) return;
  for (const int64_t i : indices) {
    std::error_code ec;
    if (fs::exists(fs::symlink_status(output.path(i), ec))) throw existing_output(output.path(i).string());
  }
}

// One line of frames.jsonl: a written frame, where it came from and when it plays.
std::string index_line(const std::string& input, const Decoded& frame, const fs::path& output) {
  nlohmann::ordered_json j;
  j["file"] = input;
  j["index"] = frame.index;
  j["pts"] = round_decimals(frame.pts, 6);
  j["duration"] = round_decimals(frame.duration, 6);
  j["output"] = output.string();
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// The index written beside the frames: frames.jsonl, or frames-K-of-N.jsonl for worker K of N splitting
// one video's frames (each worker writes its own part).
fs::path index_path(const FramesArgs& args, const fs::path& folder, bool split_frames) {
  const ShardSplit split = shard_split(args.shards);
  if (!split_frames || split.count <= 1) return folder / "frames.jsonl";
  return folder / fmt::format("frames-{}-of-{}.jsonl", split.index, split.count);
}

// Decodes `plan`'s frames in chunks and writes them into `output` on `threads` workers, each counted in
// `progress`, then the frames.jsonl index at `index` (atomically; the lines of the frames written, in
// index order). Returns the first failure line, empty when every frame was written.
std::string extract(VideoPlan& plan, const Output& output, const fs::path& index, int threads, Progress* progress) {
  // Frames per decode call: at most 64, and at most ~256 MB of RGB.
  const size_t chunk =
      static_cast<size_t>(std::clamp<uint64_t>((uint64_t{256} << 20) / std::max<uint64_t>(plan.frame_bytes, 1), 1, 64));
  std::string failure;
  std::string lines;
  for (size_t begin = 0; begin < plan.indices.size() && failure.empty(); begin += chunk) {
    const std::vector<int64_t> part(
        plan.indices.begin() + static_cast<std::ptrdiff_t>(begin),
        plan.indices.begin() + static_cast<std::ptrdiff_t>(std::min(plan.indices.size(), begin + chunk)));
    std::string error;
    const std::vector<Decoded> frames = decode_chunk(*plan.decoder, part, plan.input, error);
    std::vector<std::string> errors(frames.size());
    parallel_for(frames.size(), threads, [&](size_t k) {
      try {
        output.write(frames[k].index, frames[k].data);
      } catch (const std::exception& e) {
        errors[k] = failure_line(plan.input, e);
      }
      if (progress) progress->record(errors[k].empty(), plan.frame_bytes);
    });
    for (size_t k = 0; k < frames.size(); ++k) {
      if (!errors[k].empty()) {
        if (progress) progress->print_error(errors[k]);
        if (failure.empty()) failure = errors[k];
      } else if (!output.extension.empty()) {
        lines += index_line(plan.input, frames[k], output.path(frames[k].index)) + "\n";
      }
    }
    if (failure.empty() && !error.empty()) {
      failure = fmt::format("{} (frame {})", error, part[frames.size()]);
      if (progress) progress->print_error(failure);
    }
  }
  if (!output.extension.empty()) {
    write_file_atomic(index, {reinterpret_cast<const uint8_t*>(lines.data()), lines.size()}, /*overwrite=*/true);
  }
  return failure;
}

Output output_of(const FramesArgs& args, const fs::path& folder) {
  Output output;
  output.extension = args.format == "null" ? "" : args.format;
  output.folder = folder;
  output.quality = args.quality;
  output.compression = args.compression;
  output.overwrite = args.batch.overwrite;
  return output;
}

// One video file named on the command line: its frames go straight into OUTDIR, with a progress bar
// over its frames, and --shard-index splits its frames.
int run_one_video(const FramesArgs& args, const Selector& selector, const std::optional<ResizeSpec>& resize) {
  const std::string& input = args.inputs.front();
  const Output output = output_of(args, args.outdir);
  VideoPlan plan;
  try {
    plan = plan_video(args, selector, resize, input, /*split_frames=*/true);
    if (args.batch.skip_existing && !output.extension.empty()) {  // resume: the frames not written yet
      std::erase_if(plan.indices, [&](int64_t i) {
        std::error_code ec;
        return fs::exists(fs::symlink_status(output.path(i), ec));
      });
    }
    if (args.batch.dry_run) {
      for (const int64_t i : plan.indices) std::printf("%s -> %s\n", input.c_str(), output.path(i).c_str());
      return 0;
    }
    prepare_output(output, plan.indices);
  } catch (const std::exception& e) {
    std::fputs((failure_line(input, e) + "\n").c_str(), stderr);
    return 1;
  }
  install_interrupt_cleanup();
  Progress progress(static_cast<int64_t>(plan.indices.size()), !args.batch.quiet, "frames");
  const std::string failure =
      extract(plan, output, index_path(args, args.outdir, true), worker_count(args.batch.jobs), &progress);
  progress.finish(args.batch.quiet);
  if (args.batch.json) {
    RunSummary summary = summarize(progress);
    if (!failure.empty()) summary.errors.push_back({input, failure});
    std::fputs((summary_json(summary) + "\n").c_str(), stdout);
  }
  return failure.empty() ? 0 : 1;
}

// Several videos, or folders of them: each video's frames go into OUTDIR/<its path below the folder,
// without extension>/, one video per worker; --shard-index splits the videos.
int run_many_videos(const FramesArgs& args, const Selector& selector, const std::optional<ResizeSpec>& resize) {
  BatchPlanRequest request;
  request.inputs = args.inputs;
  request.output = args.outdir.empty() ? "." : args.outdir;
  request.extensions = scan_extensions(args.ext, video_extensions());
  request.output_extension = [](const fs::path&) { return std::string(); };
  std::vector<InputError> input_errors;
  const std::vector<BatchJob> jobs = select_part(plan_batch(request, input_errors), shard_split(args.shards));
  BatchOptions options = args.batch;
  options.noun = "videos";
  if (args.format == "null") options.skip_existing = options.overwrite = true;  // nothing is written
  return run_batch(jobs, input_errors, options, [&](const BatchJob& job) {
    VideoPlan plan = plan_video(args, selector, resize, job.input.string(), /*split_frames=*/false);
    const Output output = output_of(args, job.output);
    prepare_output(output, plan.indices);
    const std::string failure = extract(plan, output, index_path(args, job.output, false), 1, nullptr);
    if (!failure.empty()) throw std::runtime_error(failure);
    return static_cast<uint64_t>(fs::file_size(job.input));
  });
}

int run_frames(const FramesArgs& args) {
  const Selector selector = parse_selector(args);
  const std::optional<ResizeSpec> resize = parse_resize(args.resize);
  std::error_code ec;
  const bool one_file = args.inputs.size() == 1 && !fs::is_directory(args.inputs.front(), ec);
  return one_file ? run_one_video(args, selector, resize) : run_many_videos(args, selector, resize);
}

}  // namespace

Command add_frames_command(CLI::App& app) {
  auto args = std::make_shared<FramesArgs>();
  CLI::App* cmd = app.add_subcommand(
      "frames",
      "Write frames of videos as frame_%06d.png (or .jpg), named by frame index (default: every frame), with a "
      "frames.jsonl index: one video into OUTDIR, several (or folders) into OUTDIR/<video>/");
  cmd->add_option("VIDEO", args->inputs, "Video files or folders (searched recursively for video files)")->required();
  cmd->add_option("-o,--output", args->outdir, "Output folder (created when missing; not needed with --format null)");
  add_ext_flag(*cmd, args->ext);
  cmd->add_option("--indices", args->indices,
                  "Frame indices i,j,k (any order, repeats written once; negative: from the end)");
  cmd->add_option("--times", args->times, "Seconds t1,t2,...: the frame played at each time");
  cmd->add_option("--range", args->range, "START:STOP[:STEP] frame indices, half-open, Python slice rules");
  cmd->add_option("--every", args->every, "The frames played at begin, begin+S, begin+2S, ... before the end");
  cmd->add_option("--num", args->num,
                  "N frames evenly spaced from the first to the last (TorchCodec's regular sampling)");
  cmd->add_option("--seek", args->seek,
                  "exact: scan the packets at open (right on any file); approximate: trust the header")
      ->check(CLI::IsMember({"exact", "approximate"}))
      ->capture_default_str();
  cmd->add_option("--format", args->format, "png, jpg, or null (decode and convert, write nothing: for timing)")
      ->check(CLI::IsMember({"png", "jpg", "null"}))
      ->capture_default_str();
  cmd->add_option("--resize", args->resize,
                  "WxH, or N for the shorter side (aspect kept), in the colour conversion (bilinear)");
  cmd->add_option("--quality", args->quality, "JPEG quality 1-100")->check(CLI::Range(1, 100))->capture_default_str();
  cmd->add_flag("--autorotate", args->autorotate,
                "Turn the frames as the video's display matrix says (phone clips), as ffmpeg and players show them");
  cmd->add_option("--compression", args->compression, "PNG zlib level 0-9")
      ->check(CLI::Range(0, 9))
      ->capture_default_str();
  add_batch_flags(*cmd, args->batch);
  add_run_flags(*cmd, args->batch);
  add_shard_flags(*cmd, args->shards, "selected frames");
  cmd->callback([args] {
    check_args(*args);
    check_run_flags(args->batch);
  });  // reject bad values while parsing, before the video is opened
  return {cmd, [args] { return run_frames(*args); }};
}

}  // namespace loom::cli
