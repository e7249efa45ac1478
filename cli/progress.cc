#include "progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

namespace loom::cli {

namespace {

RunCounts counts;

}  // namespace

const RunCounts& run_counts() {
  return counts;
}

Progress::Progress(int64_t total, bool enabled, const char* noun)
    : bar_(enabled && ::isatty(STDERR_FILENO)), start_(std::chrono::steady_clock::now()) {
  counts.ok = 0;
  counts.skipped = 0;
  counts.failed = 0;
  counts.noun = noun;
  counts.total = total;
}

Progress::~Progress() {
  counts.total = -1;
}

int64_t Progress::ok() const {
  return counts.ok.load();
}

int64_t Progress::skipped() const {
  return counts.skipped.load();
}

int64_t Progress::failed() const {
  return counts.failed.load();
}

int64_t Progress::not_tried() const {
  return counts.total.load() - counts.ok.load() - counts.skipped.load() - counts.failed.load();
}

double Progress::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void Progress::record(bool ok, uint64_t bytes) {
  (ok ? counts.ok : counts.failed).fetch_add(1);
  bytes_.fetch_add(bytes);
  if (!bar_) return;
  std::lock_guard lock(mutex_);
  draw_locked(false);
}

void Progress::record_skipped() {
  counts.skipped.fetch_add(1);
  if (!bar_) return;
  std::lock_guard lock(mutex_);
  draw_locked(false);
}

void Progress::print_error(const std::string& message) {
  std::lock_guard lock(mutex_);
  if (bar_) std::fputs("\r\033[K", stderr);
  std::fputs(message.c_str(), stderr);
  std::fputc('\n', stderr);
  if (bar_) draw_locked(true);
}

void Progress::draw_locked(bool force) {
  const auto now = std::chrono::steady_clock::now();
  const int64_t total = counts.total.load();
  const int64_t done = counts.ok.load() + counts.skipped.load() + counts.failed.load();
  if (!force && done != total && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  constexpr int kWidth = 30;
  const int filled = total > 0 ? static_cast<int>(kWidth * done / total) : kWidth;
  const std::string bar = std::string(filled, '#') + std::string(kWidth - filled, '.');
  std::fputs(fmt::format("\r\033[K[{}] {}/{} ({} failed)", bar, done, total, counts.failed.load()).c_str(), stderr);
  std::fflush(stderr);
}

void Progress::finish(bool quiet, const std::string& suffix) {
  std::lock_guard lock(mutex_);
  if (bar_) std::fputs("\r\033[K", stderr);
  if (quiet) return;
  const double elapsed = seconds();
  const double s = elapsed > 0 ? elapsed : 1e-9;
  const int64_t ok = counts.ok.load(), skipped = counts.skipped.load(), failed = counts.failed.load();
  std::string line = fmt::format("{} ok, ", ok);
  if (skipped > 0 || show_skipped_) line += fmt::format("{} skipped, ", skipped);
  line += fmt::format("{} failed", failed);
  if (not_tried() > 0) line += fmt::format(", {} not tried", not_tried());
  line += fmt::format(" in {:.2f} s ({:.1f} {}/s, {:.1f} MB/s){}\n", elapsed, static_cast<double>(ok + failed) / s,
                      counts.noun.load(), static_cast<double>(bytes_.load()) / 1e6 / s, suffix);
  std::fputs(line.c_str(), stderr);
}

}  // namespace loom::cli
