// --shard-index/--num-shards: one job split among machines (a Slurm array, a Kubernetes Indexed Job,
// several hosts). Every worker lists the same inputs, sorts them the same way and keeps its part
// (loom::loader::split_range), so the workers together do what one run does, each input once.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <vector>

#include "batch.h"
#include "loom/loader/shard_plan.h"

namespace loom::cli {

struct ShardFlags {
  std::optional<int64_t> index;  // --shard-index
  std::optional<int64_t> count;  // --num-shards
};

// This worker's part: `index` of `count` (0 of 1 when the job is not split).
struct ShardSplit {
  int64_t index = 0;
  int64_t count = 1;
};

// Adds --shard-index and --num-shards to `cmd`, into `flags`; `what` names what is split ("input
// files", "shards", "frames") in the help.
void add_shard_flags(CLI::App& cmd, ShardFlags& flags, const char* what);

// The split the flags ask for. With --num-shards N, the index is --shard-index, else
// $SLURM_ARRAY_TASK_ID, else $JOB_COMPLETION_INDEX; without --num-shards the job is not split and
// those variables are ignored. Throws CLI::ValidationError for --shard-index without --num-shards,
// no index at all, an index outside 0..N-1, or a variable that is not a number.
ShardSplit shard_split(const ShardFlags& flags);

// The jobs of this worker's part: all jobs sorted by input path (byte order of the generic form, then
// position), then split_range over them. The order of the command line or of a shell glob does not
// change which worker does what.
std::vector<BatchJob> select_part(std::vector<BatchJob> jobs, const ShardSplit& split);

}  // namespace loom::cli
