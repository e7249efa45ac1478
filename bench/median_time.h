// Timing for loom's C++ benchmarks: the median of repeated calls after a warm-up.
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

namespace loom::bench {

// Median seconds of one call of fn, over repetitions filling 0.2 s (at least 5) after 0.1 s of warm-up.
template <typename Fn>
double median_seconds(Fn&& fn) {
  using Clock = std::chrono::steady_clock;
  auto since = [](Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  for (auto t0 = Clock::now(); since(t0) < 0.1;) fn();
  std::vector<double> times;
  for (auto t0 = Clock::now(); since(t0) < 0.2 || times.size() < 5;) {
    const auto t = Clock::now();
    fn();
    times.push_back(since(t));
  }
  std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
  return times[times.size() / 2];
}

}  // namespace loom::bench
