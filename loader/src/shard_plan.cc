#include "loom/loader/shard_plan.h"

#include <fmt/format.h>

#include "loom/codec/error.h"

namespace loom::loader {
namespace {

constexpr int64_t kMaxParts = int64_t{1} << 31;

}  // namespace

IndexRange split_range(int64_t count, int64_t part, int64_t num_parts) {
  if (count < 0 || num_parts < 1 || num_parts > kMaxParts || part < 0 || part >= num_parts) {
    throw Error(ErrorCode::kInvalidInput, "split",
                fmt::format("part {} of {} of {} items: need 0 <= part < parts <= {} and items >= 0", part, num_parts,
                            count, kMaxParts));
  }
  // count * p / num_parts without overflow: (q * num_parts + r) * p / num_parts with r < num_parts.
  const int64_t q = count / num_parts, r = count % num_parts;
  const auto at = [&](int64_t p) { return q * p + r * p / num_parts; };
  return {at(part), at(part + 1)};
}

std::vector<IndexRange> plan_shards(std::span<const uint64_t> sizes, int64_t max_samples, uint64_t max_bytes) {
  if (max_samples < 1)
    throw Error(ErrorCode::kInvalidInput, "shards", fmt::format("{} samples per shard", max_samples));
  std::vector<IndexRange> shards;
  IndexRange current;
  uint64_t bytes = 0;
  for (int64_t i = 0; i < static_cast<int64_t>(sizes.size()); ++i) {
    const uint64_t size = sizes[static_cast<size_t>(i)];
    const bool full = current.size() >= max_samples ||
                      (max_bytes && current.size() > 0 && size > max_bytes - std::min(bytes, max_bytes));
    if (full) {
      shards.push_back(current);
      current = {i, i};
      bytes = 0;
    }
    current.end = i + 1;
    bytes += size;
  }
  if (current.size() > 0) shards.push_back(current);
  return shards;
}

}  // namespace loom::loader
