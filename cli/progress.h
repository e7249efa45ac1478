// Progress bar and end-of-run summary for batch commands, on stderr; the counts also feed the line
// printed if a signal interrupts the run (interrupt.h).
// Thread safety: record() may be called from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

namespace loom::cli {

class Progress {
 public:
  // `total` items called `noun` (a string literal: "files", "frames", "samples"); the bar is drawn only
  // when `enabled` and stderr is a terminal.
  Progress(int64_t total, bool enabled, const char* noun);

  // One item finished; `bytes` of input were read for it.
  void record(bool ok, uint64_t bytes);
  // Prints `message` on its own line without garbling the bar.
  void print_error(const std::string& message);
  // Clears the bar and prints "N ok, M failed in S s (X <noun>/s, Y MB/s)<suffix>" unless quiet.
  void finish(bool quiet, const std::string& suffix = {});

  int64_t failed() const { return failed_.load(); }

 private:
  void draw_locked(bool force);

  const int64_t total_;
  const bool bar_;
  const char* const noun_;
  const std::chrono::steady_clock::time_point start_;
  std::atomic<int64_t> ok_{0}, failed_{0};
  std::atomic<uint64_t> bytes_{0};
  std::mutex mutex_;  // guards stderr and last_draw_
  std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace loom::cli
