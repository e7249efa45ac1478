// ShardDataset: a map-style Dataset over the indexes of uncompressed WebDataset shards.
#include <fmt/format.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <exception>

#include "dataset_common.h"
#include "loom/codec/error.h"
#include "loom/loader/shards.h"
#include "tar_reader.h"

namespace loom::loader {

std::shared_ptr<const ShardDataset> ShardDataset::open(const std::vector<std::string>& patterns,
                                                       const ShardOptions& options) {
  if (patterns.empty()) throw Error(ErrorCode::kInvalidInput, "shards", "no shard pattern given");
  std::shared_ptr<ShardDataset> d(new ShardDataset());
  d->options_ = options;
  if (!d->options_.storage) d->options_.storage = local_storage();
  for (const std::string& pattern : patterns) {
    for (std::string& shard : expand_braces(pattern)) d->shards_.push_back(std::move(shard));
  }
  // Every shard is indexed (in parallel); the error reported is the first failing shard's, whatever
  // the thread timing.
  const size_t n = d->shards_.size();
  d->indexes_.resize(n);
  std::vector<std::exception_ptr> errors(n);
  tbb::parallel_for(size_t{0}, n, [&](size_t i) {
    try {
      d->indexes_[i] = load_shard_index(d->shards_[i], d->options_);
    } catch (...) {
      errors[i] = std::current_exception();
    }
  });
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  detail::Fingerprint h;
  h.add(n);
  d->starts_.reserve(n + 1);
  int64_t total = 0;
  for (size_t i = 0; i < n; ++i) {
    d->starts_.push_back(total);
    total += static_cast<int64_t>(d->indexes_[i].samples.size());
    h.add(d->shards_[i]);
    h.add(d->indexes_[i].fingerprint());
  }
  d->starts_.push_back(total);
  d->fingerprint_ = h.value();
  return d;
}

std::vector<int64_t> ShardDataset::shard_sizes() const {
  std::vector<int64_t> sizes;
  for (size_t i = 0; i + 1 < starts_.size(); ++i) sizes.push_back(starts_[i + 1] - starts_[i]);
  return sizes;
}

int64_t ShardDataset::size() const {
  return starts_.empty() ? 0 : starts_.back();
}

std::pair<size_t, size_t> ShardDataset::locate(int64_t index) const {
  detail::check_index(index, size(), "shards");
  // The last shard whose first sample is at or before `index` (empty shards share their start).
  const auto it = std::upper_bound(starts_.begin(), starts_.end(), index) - 1;
  const auto shard = static_cast<size_t>(it - starts_.begin());
  return {shard, static_cast<size_t>(index - *it)};
}

Record ShardDataset::read(int64_t index) const {
  const auto [shard, position] = locate(index);
  const std::string& path = shards_[shard];
  const IndexedSample& sample = indexes_[shard].samples[position];
  std::vector<Member> members;
  members.reserve(sample.members.size());
  for (const IndexedMember& m : sample.members) {
    std::string name = member_source_name(path, sample.key, m.name);
    const uint64_t max = options_.limits.max_bytes;
    if (max && m.size > max) {
      throw Error(ErrorCode::kLimitExceeded, name, fmt::format("is {} bytes, more than the limit of {}", m.size, max));
    }
    members.push_back({m.name, options_.storage->read_range(path, m.offset, m.size).renamed(std::move(name))});
  }
  return make_shard_record(path, sample.key, std::move(members));
}

std::string ShardDataset::name(int64_t index) const {
  const auto [shard, position] = locate(index);
  return shards_[shard] + ":" + indexes_[shard].samples[position].key;
}

uint64_t ShardDataset::fingerprint() const {
  return fingerprint_;
}

}  // namespace loom::loader
