// parallel_for for the CLI's batch commands, on a oneTBB arena of `threads` threads (the loader's
// thread pool: one per process). Indices are split recursively down to single items and idle threads
// steal work, so files of different cost balance; with one thread they run in order on the calling
// thread. `fn` must be safe to call concurrently for different indices.
#pragma once

#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cstddef>
#include <thread>

namespace loom::cli {

// The worker count for a -j/--jobs value: `jobs` when positive, else one per core.
inline int worker_count(int jobs) {
  return jobs > 0 ? jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

template <typename Fn>
void parallel_for(size_t n, int threads, Fn&& fn) {
  // More threads than cores (-j 8 on 2 cores) is what was asked: lift oneTBB's limit (one per core),
  // which it would otherwise enforce with a warning on stderr, while this call runs.
  const size_t limit = tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism);
  const tbb::global_control allow(tbb::global_control::max_allowed_parallelism,
                                  std::max(limit, static_cast<size_t>(std::max(threads, 1))));
  tbb::task_arena arena(std::max(threads, 1));
  arena.execute([&] {
    tbb::parallel_for(
        tbb::blocked_range<size_t>(0, n, 1),
        [&](const tbb::blocked_range<size_t>& range) {
          for (size_t i = range.begin(); i != range.end(); ++i) fn(i);
        },
        tbb::simple_partitioner());
  });
}

}  // namespace loom::cli
