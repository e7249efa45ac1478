#include "shard_args.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <string>

namespace loom::cli {
namespace {

// A worker index from the environment variable `name`, or nullopt when it is unset.
std::optional<int64_t> env_index(const char* name) {
  const char* text = std::getenv(name);
  if (text == nullptr) return std::nullopt;
  const std::string_view s(text);
  int64_t value = -1;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || value < 0) {
    throw CLI::ValidationError("--shard-index", fmt::format("${} is '{}', not a worker index (0, 1, ...)", name, s));
  }
  return value;
}

}  // namespace

void add_shard_flags(CLI::App& cmd, ShardFlags& flags, const char* what) {
  cmd.add_option("--num-shards", flags.count,
                 fmt::format("Split the job among N workers: each does its part of the {} (sorted)", what))
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 31));
  cmd.add_option("--shard-index", flags.index,
                 "This worker's part, 0..N-1 (default with --num-shards: $SLURM_ARRAY_TASK_ID, else "
                 "$JOB_COMPLETION_INDEX)")
      ->check(CLI::NonNegativeNumber);
}

ShardSplit shard_split(const ShardFlags& flags) {
  if (!flags.count) {
    if (flags.index) throw CLI::ValidationError("--shard-index", "--shard-index needs --num-shards");
    return {};
  }
  std::optional<int64_t> index = flags.index;
  if (!index) index = env_index("SLURM_ARRAY_TASK_ID");
  if (!index) index = env_index("JOB_COMPLETION_INDEX");
  if (!index) {
    throw CLI::ValidationError("--shard-index",
                               "--num-shards needs --shard-index (or $SLURM_ARRAY_TASK_ID or $JOB_COMPLETION_INDEX)");
  }
  if (*index >= *flags.count) {
    throw CLI::ValidationError("--shard-index",
                               fmt::format("shard index {} is not below --num-shards {}", *index, *flags.count));
  }
  return {*index, *flags.count};
}

std::vector<BatchJob> select_part(std::vector<BatchJob> jobs, const ShardSplit& split) {
  if (split.count == 1) return jobs;
  std::stable_sort(jobs.begin(), jobs.end(), [](const BatchJob& a, const BatchJob& b) {
    return a.input.generic_string() < b.input.generic_string();
  });
  const loader::IndexRange part = loader::split_range(static_cast<int64_t>(jobs.size()), split.index, split.count);
  return {jobs.begin() + part.begin, jobs.begin() + part.end};
}

}  // namespace loom::cli
