// loom_bench_video_decode: loom::video::VideoDecoder time per file and workload.
//
// Usage: loom_bench_video_decode --workload W [--threads T] [--reps R] [--batch B] [--indices I,J,...]
//                                [--seek-mode exact|approximate] [--device cpu|cuda|cuda:N] FILE [FILE ...]
//
// Workloads (each timed from VideoDecoder::open to the last frame, so the exact-mode packet scan counts):
//   sequential  every frame to uint8 RGB (NHWC), in batches of B frames (--batch, default 8; get_frames_in_range), like
//               `ffmpeg -f rawvideo -pix_fmt rgb24` or PyAV decoding every frame
//   first100    get_frames_in_range(0, 100): TorchCodec's "first 100 frames" workload
//   random      get_frames_at(indices): the frames listed by --indices (TorchCodec's "10 random frames")
// T is the FFmpeg decoding thread count (DecoderOptions::num_threads). --device cuda decodes with NVDEC
// (DecoderOptions::device); each call then waits for the device's work to finish before the clock stops.
// One untimed call, then the median of R timed calls (default 3), printed as one JSON line:
//   {"workload": "sequential", "file": "a.mp4", "stream": 0, "threads": 1, "device": "cpu", "frames": 900,
//    "ms": 1234.5}
// ("stream" is the video stream loom picked, so that the peers decode the same one.)
// Driven by bench/video_decode.py, which times the ffmpeg CLI and PyAV on the same files.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "json_escape.h"
#include "loom/accel/stream.h"
#include "loom/video/decoder.h"

namespace {

using loom::bench::json_escape;

std::vector<int64_t> parse_indices(const char* s) {
  std::vector<int64_t> out;
  for (const char* p = s; *p != '\0';) {
    char* end = nullptr;
    out.push_back(std::strtoll(p, &end, 10));
    if (end == p) break;
    p = *end == ',' ? end + 1 : end;
  }
  return out;
}

// Runs one workload on one file; returns the number of frames decoded and sets *stream to the stream's index.
int64_t run_once(const std::string& workload, const std::string& path, const loom::video::DecoderOptions& options,
                 const std::vector<int64_t>& indices, int64_t batch, int* stream) {
  auto decoder = loom::video::VideoDecoder::open(path, options);
  *stream = decoder.metadata().stream.index;
  int64_t done = 0;
  if (workload == "sequential") {
    const int64_t n = decoder.num_frames();
    for (int64_t i = 0; i < n; i += batch)
      done += decoder.get_frames_in_range(i, std::min(i + batch, n)).data.shape()[0];
  } else if (workload == "first100") {
    done = decoder.get_frames_in_range(0, 100).data.shape()[0];
  } else if (workload == "random") {
    done = decoder.get_frames_at(indices).data.shape()[0];
  } else {
    throw std::invalid_argument("unknown workload " + workload);
  }
  if (!options.device.is_cpu()) loom::accel::current_stream(options.device.index).synchronize();
  return done;
}

}  // namespace

int main(int argc, char** argv) {
  std::string workload;
  int reps = 3;
  int64_t batch = 8;
  loom::video::DecoderOptions options;
  options.dimension_order = loom::Layout::kHWC;  // the peers' layout (H x W x 3 per frame)
  std::vector<int64_t> indices;
  std::vector<std::string> files;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    const bool has_value = a + 1 < argc;
    if (arg == "--workload" && has_value) {
      workload = argv[++a];
    } else if (arg == "--threads" && has_value) {
      options.num_threads = std::atoi(argv[++a]);
    } else if (arg == "--reps" && has_value) {
      reps = std::max(1, std::atoi(argv[++a]));
    } else if (arg == "--batch" && has_value) {
      batch = std::max(1, std::atoi(argv[++a]));
    } else if (arg == "--indices" && has_value) {
      indices = parse_indices(argv[++a]);
    } else if (arg == "--device" && has_value) {
      options.device = loom::parse_device(argv[++a]);
    } else if (arg == "--seek-mode" && has_value) {
      const std::string m = argv[++a];
      options.seek_mode = m == "approximate" ? loom::video::SeekMode::kApproximate : loom::video::SeekMode::kExact;
    } else {
      files.push_back(arg);
    }
  }
  if (workload.empty() || files.empty()) {
    std::fprintf(
        stderr,
        "usage: %s --workload sequential|first100|random [--threads T] [--reps R] [--batch B] [--indices I,J,...] "
        "[--seek-mode exact|approximate] [--device cpu|cuda|cuda:N] FILE [FILE ...]\n",
        argv[0]);
    return 2;
  }
  using Clock = std::chrono::steady_clock;
  for (const std::string& path : files) {
    try {
      int stream = -1;
      const int64_t frames =
          run_once(workload, path, options, indices, batch, &stream);  // untimed: warms the page cache
      std::vector<double> times;
      for (int r = 0; r < reps; ++r) {
        const auto t0 = Clock::now();
        (void)run_once(workload, path, options, indices, batch, &stream);
        times.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
      }
      std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
      std::puts(
          fmt::format(
              R"({{"workload": "{}", "file": "{}", "stream": {}, "threads": {}, "device": "{}", "frames": {}, "ms": {:.3f}}})",
              workload, json_escape(path), stream, options.num_threads, loom::to_string(options.device), frames,
              times[times.size() / 2] * 1e3)
              .c_str());
    } catch (const std::exception& e) {
      std::puts(fmt::format(R"({{"workload": "{}", "file": "{}", "threads": {}, "error": "{}"}})", workload,
                            json_escape(path), options.num_threads, json_escape(e.what()))
                    .c_str());
    }
    std::fflush(stdout);
  }
  return 0;
}
