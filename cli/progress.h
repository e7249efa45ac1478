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

// The counts of the run in progress, in static storage so that a fatal signal's handler can read them
// at any time (interrupt.cc: lock-free atomics). Written by the one Progress alive.
struct RunCounts {
  std::atomic<int64_t> total{-1};  // -1: no run in progress
  std::atomic<int64_t> ok{0}, failed{0};
  std::atomic<const char*> noun{"files"};
};
const RunCounts& run_counts();

// One per process at a time (it owns the RunCounts while alive).
class Progress {
 public:
  // `total` items called `noun` (a string literal: "files", "frames", "samples"); the bar is drawn only
  // when `enabled` and stderr is a terminal.
  Progress(int64_t total, bool enabled, const char* noun);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // One item finished; `bytes` of input were read for it.
  void record(bool ok, uint64_t bytes);
  // Prints `message` on its own line without garbling the bar.
  void print_error(const std::string& message);
  // Clears the bar and prints "N ok, M failed in S s (X <noun>/s, Y MB/s)<suffix>" unless quiet.
  void finish(bool quiet, const std::string& suffix = {});

  int64_t failed() const;

 private:
  void draw_locked(bool force);

  const bool bar_;
  const std::chrono::steady_clock::time_point start_;
  std::atomic<uint64_t> bytes_{0};
  std::mutex mutex_;  // guards stderr and last_draw_
  std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace loom::cli
