// Splitting work among machines: pure functions of their arguments, so that every worker of a Slurm
// array, a Kubernetes Indexed Job or a Ray cluster computes the same split and together they do what one
// machine would, byte for byte.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "loom/codec/api.h"

LOOM_API_BEGIN

namespace loom::loader {

// The half-open range [begin, end) of item positions.
struct IndexRange {
  int64_t begin = 0;
  int64_t end = 0;
  int64_t size() const { return end - begin; }
  bool operator==(const IndexRange&) const = default;
};

// Part `part` of `num_parts` of `count` items: contiguous, in order, sizes differing by at most one:
// [count * part / num_parts, count * (part + 1) / num_parts). The parts cover 0..count-1 exactly once.
// Error(kInvalidInput) unless count >= 0 and 0 <= part < num_parts <= 2^31.
IndexRange split_range(int64_t count, int64_t part, int64_t num_parts);

// Cuts items of `sizes` bytes (in order) into shards: a shard ends after `max_samples` items, or before
// the item that would take its bytes past `max_bytes` (0: no byte limit). An item larger than max_bytes
// gets a shard of its own. Error(kInvalidInput) when max_samples < 1.
std::vector<IndexRange> plan_shards(std::span<const uint64_t> sizes, int64_t max_samples, uint64_t max_bytes = 0);

}  // namespace loom::loader

LOOM_API_END
