// `loom frames VIDEO -o OUTDIR`: decode chosen frames of a video (by index, time, range, interval or
// count) and write each as OUTDIR/frame_%06d.<png|jpg>, named by its index in the stream.
#include <fmt/format.h>

#include <CLI/CLI.hpp>

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
#include "parallel.h"
#include "progress.h"
#include "resize_arg.h"
#include "shard_args.h"

namespace loom::cli {
namespace fs = std::filesystem;
namespace {

struct FramesArgs {
  std::string input;
  std::string outdir;
  // The selectors, as typed; at most one is given.
  std::optional<std::string> indices, times, range, every, num;
  std::string seek = "exact";
  std::string format = "png";
  std::string resize;
  int quality = 75;
  int compression = 6;
  bool autorotate = false;  // turn frames as the display matrix says
  BatchOptions batch;       // -j, --overwrite, -q (no --fail-fast: a run stops at its first failed frame)
  ShardFlags shards;        // --shard-index, --num-shards: split the selected frames
};

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
  double pts = 0;
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
      out.push_back({indices[k], frames.data.select(0, static_cast<int64_t>(k)), frames.pts_seconds[k]});
    }
    return out;
  } catch (const std::exception&) {  // retried frame by frame below
  }
  out.clear();  // the batch may have failed part-way through the loop above
  for (const int64_t i : indices) {
    try {
      video::Frame f = decoder.get_frame_at(i);
      out.push_back({i, f.data, f.pts_seconds});
    } catch (const std::exception& e) {
      error = failure_line(input, e);
      return out;
    }
  }
  return out;  // every frame decoded on its own
}

int run_frames(const FramesArgs& args) {
  const Selector selector = parse_selector(args);
  const std::optional<ResizeSpec> resize = parse_resize(args.resize);
  Output output;
  output.extension = args.format == "null" ? "" : args.format;
  output.folder = args.outdir;
  output.quality = args.quality;
  output.compression = args.compression;
  output.overwrite = args.batch.overwrite;

  auto fail = [&](const std::string& message) {
    std::fputs((message + "\n").c_str(), stderr);
    return 1;
  };

  video::DecoderOptions options;
  options.seek_mode = args.seek == "approximate" ? video::SeekMode::kApproximate : video::SeekMode::kExact;
  options.dimension_order = Layout::kHWC;
  options.apply_rotation = args.autorotate;
  std::optional<video::VideoDecoder> decoder;
  std::optional<Size> output_size;  // with --resize
  std::vector<int64_t> indices;
  const bool by_time = selector.kind == SelectorKind::kTimes || selector.kind == SelectorKind::kEvery;
  try {
    decoder.emplace(video::VideoDecoder::open(fs::path(args.input), options));
    const video::StreamMetadata& m = decoder->metadata();
    if (resize) {  // resized in the colour conversion, to a size computed from the stream's
      // The size shown: a quarter turn (--autorotate of a 90 or 270 degree clip) swaps the sides.
      const double turn = m.stream.rotation;
      const bool sideways = args.autorotate && std::fmod(turn, 90) == 0 && std::fmod(turn, 180) != 0;
      const Size shown = sideways ? Size{m.stream.width, m.stream.height} : Size{m.stream.height, m.stream.width};
      const Size target = resize_target(*resize, shown);
      if (std::max(target.height, target.width) > kMaxResizeSide) {
        throw Error(
            ErrorCode::kInvalidInput, args.input,
            fmt::format("--resize gives {}x{}, larger than {} on a side", target.width, target.height, kMaxResizeSide));
      }
      output_size = target;
      decoder->set_output_size(output_size);
    }
    indices = by_time ? resolve_times(selector, *decoder, args.input)
                      : resolve_indices(selector, decoder->num_frames(), args.input);
    // This worker's contiguous part of the selected frames (ascending), so that it decodes few GOPs.
    const ShardSplit split = shard_split(args.shards);
    const loader::IndexRange part = loader::split_range(static_cast<int64_t>(indices.size()), split.index, split.count);
    indices = std::vector<int64_t>(indices.begin() + part.begin, indices.begin() + part.end);
  } catch (const std::exception& e) {
    return fail(failure_line(args.input, e));
  }

  if (!output.extension.empty()) {
    try {
      create_output_folder(output.folder, output.folder / "x");
    } catch (const std::exception& e) {
      return fail(e.what());
    }
    if (!output.overwrite) {  // refuse before decoding anything when an output is known to exist
      for (const int64_t i : indices) {
        std::error_code ec;
        if (fs::exists(fs::symlink_status(output.path(i), ec))) {
          return fail(
              fmt::format("{}: exists; pass --overwrite to replace it (nothing written)", output.path(i).string()));
        }
      }
    }
  }

  install_interrupt_cleanup();
  const int threads = worker_count(args.batch.jobs);
  const video::StreamMetadata& m = decoder->metadata();
  const int64_t out_h = output_size ? output_size->height : m.stream.height;
  const int64_t out_w = output_size ? output_size->width : m.stream.width;
  const uint64_t frame_bytes = static_cast<uint64_t>(out_h) * static_cast<uint64_t>(out_w) * 3;
  // Frames per decode call: at most 64, and at most ~256 MB of RGB.
  const size_t chunk =
      static_cast<size_t>(std::clamp<uint64_t>((uint64_t{256} << 20) / std::max<uint64_t>(frame_bytes, 1), 1, 64));
  Progress progress(static_cast<int64_t>(indices.size()), !args.batch.quiet, "frames");
  bool failed = false;

  // Encodes and writes `frames` in parallel; false after a failure (printed).
  auto write_all = [&](const std::vector<Decoded>& frames) {
    std::vector<std::string> errors(frames.size());
    parallel_for(frames.size(), threads, [&](size_t k) {
      try {
        output.write(frames[k].index, frames[k].data);
      } catch (const std::exception& e) {
        errors[k] = failure_line(args.input, e);
      }
      progress.record(errors[k].empty(), frame_bytes);
    });
    for (const std::string& e : errors) {
      if (!e.empty()) {
        progress.print_error(e);
        failed = true;
      }
    }
    return !failed;
  };

  for (size_t begin = 0; begin < indices.size() && !failed; begin += chunk) {
    const std::vector<int64_t> part(
        indices.begin() + static_cast<std::ptrdiff_t>(begin),
        indices.begin() + static_cast<std::ptrdiff_t>(std::min(indices.size(), begin + chunk)));
    std::string error;
    const std::vector<Decoded> frames = decode_chunk(*decoder, part, args.input, error);
    if (!write_all(frames)) break;
    if (!error.empty()) {
      progress.print_error(fmt::format("{} (frame {})", error, part[frames.size()]));
      failed = true;
    }
  }
  progress.finish(args.batch.quiet);
  return failed ? 1 : 0;
}

}  // namespace

Command add_frames_command(CLI::App& app) {
  auto args = std::make_shared<FramesArgs>();
  CLI::App* cmd = app.add_subcommand(
      "frames",
      "Write frames of a video as OUTDIR/frame_%06d.png (or .jpg), named by frame index (default: every frame)");
  cmd->add_option("VIDEO", args->input, "Video file")->required();
  cmd->add_option("-o,--output", args->outdir, "Output folder (created when missing; not needed with --format null)");
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
  add_batch_flags(*cmd, args->batch, /*fail_fast_flag=*/false);
  add_shard_flags(*cmd, args->shards, "selected frames");
  cmd->callback([args] { check_args(*args); });  // reject bad values while parsing, before the video is opened
  return {cmd, [args] { return run_frames(*args); }};
}

}  // namespace loom::cli
