#include "progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

#include "interrupt.h"

namespace loom::cli {

Progress::Progress(int64_t total, bool enabled, const char* noun)
    : total_(total), bar_(enabled && ::isatty(STDERR_FILENO)), noun_(noun), start_(std::chrono::steady_clock::now()) {
  interrupt_tally_begin(total, noun);
}

void Progress::record(bool ok, uint64_t bytes) {
  (ok ? ok_ : failed_).fetch_add(1);
  interrupt_tally_record(ok);
  bytes_.fetch_add(bytes);
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
  const int64_t done = ok_.load() + failed_.load();
  if (!force && done != total_ && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  constexpr int kWidth = 30;
  const int filled = total_ > 0 ? static_cast<int>(kWidth * done / total_) : kWidth;
  const std::string bar = std::string(filled, '#') + std::string(kWidth - filled, '.');
  std::fputs(fmt::format("\r\033[K[{}] {}/{} ({} failed)", bar, done, total_, failed_.load()).c_str(), stderr);
  std::fflush(stderr);
}

void Progress::finish(bool quiet, const std::string& suffix) {
  interrupt_tally_end();
  std::lock_guard lock(mutex_);
  if (bar_) std::fputs("\r\033[K", stderr);
  if (quiet) return;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double s = seconds > 0 ? seconds : 1e-9;
  std::fputs(fmt::format("{} ok, {} failed in {:.2f} s ({:.1f} {}/s, {:.1f} MB/s){}\n", ok_.load(), failed_.load(),
                         seconds, static_cast<double>(ok_.load() + failed_.load()) / s, noun_,
                         static_cast<double>(bytes_.load()) / 1e6 / s, suffix)
                 .c_str(),
             stderr);
}

}  // namespace loom::cli
