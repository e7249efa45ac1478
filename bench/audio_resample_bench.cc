// Resampling a batch of audio files to 16 kHz: loom (libsox in-process, a pool of T threads) vs the
// `sox` CLI (`sox in.wav -r 16000 out.wav`, T processes at a time). Prints one JSON line per T with the
// median seconds of one batch and the ratio sox / loom (> 1: loom is faster).
//
//   loom_bench_audio_resample --media ../shared/media/audio [--files 24] [--threads 1,2] [--rate 16000]
//
// The batch: --files WAV files (16-bit PCM, written by sox at set-up from exo_bear.flac (48 kHz stereo,
// 2.7 s), sine_mono_s32_44100.wav (44.1 kHz mono, 4 s) and tfio_ZASFX_ADSR_no_sustain.wav (44.1 kHz
// stereo, 0.33 s), in turn) in a temporary folder. Rows:
//   loom_file    audio::apply_effects_file(path, {rate 16000}): libsox reads and resamples (SoX's default
//                "rate -h", as the CLI's automatic rate effect); the result is a float32 tensor in memory
//   loom_tensor  audio::resample(tensor, in, 16000) on samples loaded before timing (no file reading):
//                libsoxr, loom's default engine
//   loom_tensor_sox  the same with ResampleEngine::kSox (SoX's "rate -h" through libsox)
//   loom_tensor_sinc the same with ResampleEngine::kSinc (torchaudio.functional.resample's windowed sinc)
//   sox_cli      `sox in.wav -r 16000 out.wav`: a process per file that reads, resamples, dithers to
//                16 bits (the CLI's default when it reduces precision) and writes a WAV to the temp folder
#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "loom/audio/effects.h"
#include "median_time.h"

extern char** environ;

namespace {
namespace fs = std::filesystem;

int run_process(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  const int rc = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return -1;
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Runs job(i) for i in [0, n) on `threads` threads pulling indices from a shared counter.
void parallel_for(int n, int threads, const std::function<void(int)>& job) {
  std::atomic<int> next{0};
  auto worker = [&] {
    for (int i; (i = next++) < n;) job(i);
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& th : pool) th.join();
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  }
  return "unknown";
}

}  // namespace

int main(int argc, char** argv) {
  fs::path media = "../shared/media/audio";
  int files = 24, rate = 16000;
  std::vector<int> thread_counts = {1, 2};
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--media")
      media = value;
    else if (flag == "--files")
      files = std::stoi(value);
    else if (flag == "--rate")
      rate = std::stoi(value);
    else if (flag == "--threads") {
      thread_counts.clear();
      for (size_t p = 0; p < value.size();) {
        const size_t q = value.find(',', p);
        thread_counts.push_back(std::stoi(value.substr(p, q - p)));
        p = q == std::string::npos ? value.size() : q + 1;
      }
    } else {
      std::fprintf(stderr, "unknown option %s\n", flag.c_str());
      return 2;
    }
  }
  char tmpl[] = "/tmp/loom-bench-resample-XXXXXX";
  const fs::path dir = ::mkdtemp(tmpl);
  const char* sources[] = {"exo_bear.flac", "sine_mono_s32_44100.wav", "tfio_ZASFX_ADSR_no_sustain.wav"};
  std::vector<fs::path> inputs;
  for (int i = 0; i < files; ++i) {
    inputs.push_back(dir / fmt::format("in{:03}.wav", i));
    if (run_process({"sox", (media / sources[i % 3]).string(), "-e", "signed", "-b", "16", inputs.back().string()}) !=
        0) {
      std::fprintf(stderr, "sox could not convert %s\n", sources[i % 3]);
      return 1;
    }
  }
  std::vector<loom::audio::EffectResult> loaded;
  double seconds_of_audio = 0;
  for (const fs::path& p : inputs) {
    loaded.push_back(loom::audio::apply_effects_file(p, {}));
    seconds_of_audio += static_cast<double>(loaded.back().samples.size(1)) / loaded.back().sample_rate;
  }
  const loom::audio::EffectChain chain = {{"rate", {std::to_string(rate)}}};
  std::fprintf(stderr, "# %s, %u hardware threads, %d files, %.1f s of audio\n", cpu_model().c_str(),
               std::thread::hardware_concurrency(), files, seconds_of_audio);
  for (int threads : thread_counts) {
    const double loom_file = loom::bench::median_seconds(
        [&] { parallel_for(files, threads, [&](int i) { loom::audio::apply_effects_file(inputs[i], chain); }); });
    auto loom_tensor_with = [&](loom::audio::ResampleEngine engine) {
      return loom::bench::median_seconds([&] {
        parallel_for(files, threads, [&](int i) {
          loom::audio::resample(loaded[i].samples, loaded[i].sample_rate, rate, loom::audio::ResampleQuality::kHigh,
                                true, engine);
        });
      });
    };
    const double loom_tensor = loom_tensor_with(loom::audio::ResampleEngine::kSoxr);
    const double loom_tensor_sox = loom_tensor_with(loom::audio::ResampleEngine::kSox);
    const double loom_tensor_sinc = loom_tensor_with(loom::audio::ResampleEngine::kSinc);
    std::atomic<int> failures{0};
    const double sox_cli = loom::bench::median_seconds([&] {
      parallel_for(files, threads, [&](int i) {
        const std::string out = (dir / fmt::format("out{:03}.wav", i)).string();
        if (run_process({"sox", inputs[i].string(), "-r", std::to_string(rate), out}) != 0) ++failures;
      });
    });
    if (failures) {
      std::fprintf(stderr, "sox failed %d times\n", failures.load());
      return 1;
    }
    std::printf(
        "{\"threads\": %d, \"files\": %d, \"audio_seconds\": %.2f, \"loom_file_s\": %.4f, \"loom_tensor_s\": %.4f, "
        "\"loom_tensor_sox_s\": %.4f, \"loom_tensor_sinc_s\": %.4f, \"sox_cli_s\": %.4f, \"ratio_sox_over_loom_file\": "
        "%.2f, "
        "\"ratio_sox_over_loom_tensor\": %.2f}\n",
        threads, files, seconds_of_audio, loom_file, loom_tensor, loom_tensor_sox, loom_tensor_sinc, sox_cli,
        sox_cli / loom_file, sox_cli / loom_tensor);
    std::fflush(stdout);
  }
  fs::remove_all(dir);
  return 0;
}
