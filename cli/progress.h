// Progress bar and end-of-run summary for batch commands, on stderr; the counts also feed the line
// printed if a signal interrupts the run (interrupt.h) and the JSON summary (summary.h).
// Thread safety: record() and record_skipped() may be called from any thread.
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
  std::atomic<int64_t> ok{0}, skipped{0}, failed{0};
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
  // One item skipped (its output exists and --skip-existing keeps it); nothing was read for it.
  void record_skipped();
  // The summary names the skipped count even when it is 0 (the run was asked to skip).
  void show_skipped() { show_skipped_ = true; }
  // Prints `message` on its own line without garbling the bar.
  void print_error(const std::string& message);
  // Clears the bar and, unless quiet, prints
  //   "N ok[, M skipped], K failed[, L not tried] in S s (X <noun>/s, Y MB/s)<suffix>"
  // where "M skipped" appears when M > 0 or show_skipped() was called, and "L not tried" when the run
  // stopped before its end (--fail-fast, or a command that stops at its first failure).
  void finish(bool quiet, const std::string& suffix = {});

  int64_t ok() const;
  int64_t skipped() const;
  int64_t failed() const;
  // Items neither done, skipped nor failed: total - ok - skipped - failed.
  int64_t not_tried() const;
  // Seconds since construction.
  double seconds() const;

 private:
  void draw_locked(bool force);

  const bool bar_;
  const std::chrono::steady_clock::time_point start_;
  bool show_skipped_ = false;
  std::atomic<uint64_t> bytes_{0};
  std::mutex mutex_;  // guards stderr and last_draw_
  std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace loom::cli
