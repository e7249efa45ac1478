// loom_bench_image_decode: single-thread decode time of JPEG/PNG files with loom::vision.
//
// Usage: loom_bench_image_decode [--min-time S] [--warmup S] [--mode rgb|unchanged]
//                                [--layout hwc|chw|both] [--min-size WxH] [--into] FILE...
//
// For each file the bytes are read into memory once; decode_image then runs from that buffer, first
// in HWC and then in CHW layout. Untimed decodes come first for --warmup seconds (default 0.5: the
// first decodes of a large image into fresh memory pay page faults, up to a third of the time).
// Each layout is then repeated N times, N chosen from one decode so that the repetitions take at
// least --min-time seconds (default 0.2, at least 5 runs), and the median time of one decode is
// reported. --layout times only one of them (for profiling). Output: one JSON object per line:
//   {"file": ..., "bytes": ..., "width": ..., "height": ..., "channels": ..., "reps": ...,
//    "hwc_s": ..., "chw_s": ...}
// or {"file": ..., "error": ...} when the file cannot be read or loom rejects it. --mode rgb (the
// default) decodes to 3 channels, what Pillow's convert('RGB') and OpenCV's IMREAD_COLOR give;
// 16-bit PNGs then decode to uint8 too. --min-size passes the JPEG DCT-scaling hint
// (DecodeOptions::min_width/min_height). --into decodes with decode_image_into into one output tensor
// per layout, allocated before the timing and reused by every call (what tjbench does).
// Exit status: 0 when every file decoded, 1 when any did not, 2 for bad arguments.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <exception>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "loom/codec/byte_source.h"
#include "loom/codec/error.h"
#include "loom/vision/image.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Args {
  double min_time = 0.2;
  double warmup = 0.5;
  bool hwc = true, chw = true;  // layouts to time
  loom::vision::ImageReadMode mode = loom::vision::ImageReadMode::kRGB;
  int min_width = 0, min_height = 0;
  bool into = false;  // decode_image_into a reused tensor
  std::vector<std::string> files;
};

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20) {
      out += fmt::format("\\u{:04x}", c);
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw loom::Error(loom::ErrorCode::kIo, path, "cannot open");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// One decode: into `into` when it is defined (decode_image_into), else a new tensor (decode_image).
double seconds_of_one_decode(const loom::ByteSource& src, const loom::vision::DecodeOptions& opt,
                             const loom::Tensor& into) {
  const auto t0 = Clock::now();
  if (into.defined()) {
    loom::vision::decode_image_into(src, into, opt);
  } else {
    const loom::Tensor image = loom::vision::decode_image(src, opt);
    if (image.numel() == 0) throw loom::Error(loom::ErrorCode::kInternal, src.name(), "empty decode");
  }
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Decodes for `seconds` (at least twice) so that the timed calls find the allocator and the page
// tables in their steady state: the first decodes of a large image into fresh memory are slower.
void warm_up(const loom::ByteSource& src, const loom::vision::DecodeOptions& opt, const loom::Tensor& into,
             double seconds) {
  double spent = 0;
  for (int i = 0; i < 2 || spent < seconds; ++i) spent += seconds_of_one_decode(src, opt, into);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double median_seconds(const loom::ByteSource& src, const loom::vision::DecodeOptions& opt, const loom::Tensor& into,
                      int reps) {
  std::vector<double> times(static_cast<size_t>(reps));
  for (double& t : times) t = seconds_of_one_decode(src, opt, into);
  return median(std::move(times));
}

// Decodes one file in both layouts; returns its JSON line.
std::string bench_file(const std::string& path, const Args& args) {
  const std::vector<uint8_t> bytes = read_bytes(path);
  const loom::ByteSource src = loom::ByteSource::from_memory(bytes, path);
  loom::vision::DecodeOptions opt;
  opt.mode = args.mode;
  opt.to_uint8 = args.mode == loom::vision::ImageReadMode::kRGB;  // 16-bit PNG: uint8, as the peers give
  opt.min_width = args.min_width;
  opt.min_height = args.min_height;
  opt.layout = loom::Layout::kHWC;

  const loom::Tensor first = loom::vision::decode_image(src, opt);  // throws for rejected files
  const auto output_for = [&](const loom::vision::DecodeOptions& o) {
    return args.into ? loom::vision::decode_image(src, o) : loom::Tensor();
  };
  loom::Tensor into = output_for(opt);
  warm_up(src, opt, into, args.warmup);
  const double estimate = std::max(seconds_of_one_decode(src, opt, into), 1e-7);
  const int reps = static_cast<int>(std::clamp(std::ceil(args.min_time / estimate), 5.0, 100000.0));
  std::string times;
  if (args.hwc) times += fmt::format(R"(, "hwc_s": {:.9f})", median_seconds(src, opt, into, reps));
  if (args.chw) {
    opt.layout = loom::Layout::kCHW;
    into = output_for(opt);
    warm_up(src, opt, into, args.hwc ? args.warmup / 5 : args.warmup);
    times += fmt::format(R"(, "chw_s": {:.9f})", median_seconds(src, opt, into, reps));
  }
  return fmt::format(R"({{"file": {}, "bytes": {}, "width": {}, "height": {}, "channels": {}, "reps": {}{}}})",
                     json_string(path), bytes.size(), first.size(1), first.size(0), first.size(2), reps, times);
}

int usage(const std::string& why) {
  fmt::print(stderr,
             "{}\nusage: loom_bench_image_decode [--min-time S] [--warmup S] [--mode rgb|unchanged]\n"
             "                               [--layout hwc|chw|both] [--min-size WxH] [--into] FILE...\n",
             why);
  return 2;
}

// Parses argv into `args`; returns an error message, empty when fine.
std::string parse_args(int argc, char** argv, Args* args) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    try {
      if (a == "--min-time" && has_value) {
        args->min_time = std::stod(argv[++i]);
      } else if (a == "--warmup" && has_value) {
        args->warmup = std::stod(argv[++i]);
      } else if (a == "--mode" && has_value) {
        const std::string m = argv[++i];
        if (m != "rgb" && m != "unchanged") return "--mode must be rgb or unchanged";
        args->mode = m == "rgb" ? loom::vision::ImageReadMode::kRGB : loom::vision::ImageReadMode::kUnchanged;
      } else if (a == "--layout" && has_value) {
        const std::string l = argv[++i];
        if (l != "hwc" && l != "chw" && l != "both") return "--layout must be hwc, chw or both";
        args->hwc = l != "chw";
        args->chw = l != "hwc";
      } else if (a == "--min-size" && has_value) {
        const std::string s = argv[++i];
        const size_t x = s.find('x');
        if (x == std::string::npos) return "--min-size must be WxH";
        args->min_width = std::stoi(s.substr(0, x));
        args->min_height = std::stoi(s.substr(x + 1));
      } else if (a == "--into") {
        args->into = true;
      } else if (a.starts_with("--")) {
        return "unknown or incomplete option " + a;
      } else {
        args->files.push_back(a);
      }
    } catch (const std::logic_error&) {
      return "bad value for " + a;
    }
  }
  if (args->files.empty()) return "no files given";
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  if (const std::string why = parse_args(argc, argv, &args); !why.empty()) return usage(why);
  int failed = 0;
  for (const std::string& path : args.files) {
    std::string line;
    try {
      line = bench_file(path, args);
    } catch (const std::exception& e) {  // loom::Error for rejected input; report it and go on
      line = fmt::format(R"({{"file": {}, "error": {}}})", json_string(path), json_string(e.what()));
      ++failed;
    }
    fmt::print("{}\n", line);
    std::fflush(stdout);
  }
  return failed == 0 ? 0 : 1;
}
