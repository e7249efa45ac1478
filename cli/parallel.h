// parallel_for for the CLI's batch commands: `threads` workers take indices 0..n-1 in order from a
// shared counter (files differ in cost, so dynamic assignment balances best). With one thread it runs
// on the calling thread. `fn` must be safe to call concurrently for different indices.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace loom::cli {

// The worker count for a -j/--jobs value: `jobs` when positive, else one per core.
inline int worker_count(int jobs) {
  return jobs > 0 ? jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

template <typename Fn>
void parallel_for(size_t n, int threads, Fn&& fn) {
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next.fetch_add(1); i < n; i = next.fetch_add(1)) fn(i);
  };
  const size_t helpers = std::min<size_t>(n, static_cast<size_t>(std::max(threads, 1))) - (n > 0 ? 1 : 0);
  std::vector<std::jthread> pool;
  pool.reserve(helpers);
  for (size_t t = 0; t < helpers; ++t) pool.emplace_back(worker);
  worker();
}  // the jthreads join here

}  // namespace loom::cli
