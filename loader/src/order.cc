#include "loom/loader/order.h"

#include <bit>
#include <limits>
#include <random>
#include <string>
#include <utility>

#include "loom/codec/error.h"
#include "loom/transforms/random.h"
#include "randperm.h"

namespace loom::loader {
namespace {

[[noreturn]] void invalid(const std::string& message) {
  throw Error(ErrorCode::kInvalidInput, "order", message);
}

// What a (seed, epoch) pair keys: the first two outputs of transforms::Rng(seed, epoch), the per-sample
// seed and the key of kNative and kShards, so that neither tells anything about the other.
struct EpochKeys {
  uint64_t sample_seed;
  uint64_t native_key;
};

EpochKeys epoch_keys(uint64_t seed, int64_t epoch) {
  transforms::Rng rng(seed, static_cast<uint64_t>(epoch));
  const uint64_t first = rng.next();
  return {first, rng.next()};
}

// The Feistel round function: murmur3's 64-bit finalizer of the half block and the round key.
uint64_t round_function(uint64_t half, uint64_t key) {
  uint64_t x = half ^ key;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  return x ^ (x >> 33);
}

// Shuffle::kShards: the shards in random order, each front to back, through a shuffle buffer.
std::vector<int64_t> shard_sequence(int64_t dataset_size, const OrderOptions& options, uint64_t key) {
  const std::vector<int64_t>& sizes = options.shard_sizes;
  if (sizes.empty()) invalid("Shuffle::kShards without shard sizes (the dataset is not made of shards)");
  if (options.shuffle_buffer < 1) invalid("shuffle_buffer must be >= 1, not " + std::to_string(options.shuffle_buffer));
  std::vector<int64_t> starts;
  int64_t total = 0;
  for (const int64_t n : sizes) {
    if (n < 0) invalid("a shard of negative size (" + std::to_string(n) + ")");
    starts.push_back(total);
    total += n;
  }
  if (total != dataset_size)
    invalid("the shard sizes add up to " + std::to_string(total) + ", not the dataset's " +
            std::to_string(dataset_size));
  transforms::Rng rng(key);
  std::vector<size_t> shards(sizes.size());
  for (size_t i = 0; i < shards.size(); ++i) shards[i] = i;
  for (size_t i = shards.size(); i > 1; --i) std::swap(shards[i - 1], shards[rng.integer(0, static_cast<int64_t>(i))]);

  std::vector<int64_t> out, buffer;
  out.reserve(static_cast<size_t>(dataset_size));
  const auto capacity = static_cast<size_t>(options.shuffle_buffer);
  for (const size_t s : shards) {
    for (int64_t index = starts[s]; index < starts[s] + sizes[s]; ++index) {
      if (buffer.size() < capacity) {
        buffer.push_back(index);
        continue;
      }
      int64_t& slot = buffer[rng.integer(0, static_cast<int64_t>(capacity))];
      out.push_back(slot);
      slot = index;
    }
  }
  while (!buffer.empty()) {
    int64_t& slot = buffer[rng.integer(0, static_cast<int64_t>(buffer.size()))];
    out.push_back(slot);
    slot = buffer.back();
    buffer.pop_back();
  }
  return out;
}

}  // namespace

namespace detail {

RandpermAlgorithm randperm_algorithm(int64_t n) {
  return n < kRandpermInsideOutFrom ? RandpermAlgorithm::kForward32 : RandpermAlgorithm::kInsideOut64;
}

std::vector<int64_t> randperm(int64_t n, uint64_t seed, RandpermAlgorithm algorithm) {
  std::mt19937 engine(static_cast<uint32_t>(seed));
  std::vector<int64_t> r(static_cast<size_t>(n));
  if (algorithm == RandpermAlgorithm::kForward32) {
    for (int64_t i = 0; i < n; ++i) r[i] = i;
    for (int64_t i = 0; i + 1 < n; ++i) {
      const auto z = static_cast<int64_t>(engine() % static_cast<uint64_t>(n - i));
      std::swap(r[i], r[i + z]);
    }
    return r;
  }
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t high = engine();
    const uint64_t random64 = (high << 32) | engine();
    const auto z = static_cast<int64_t>(random64 % static_cast<uint64_t>(i + 1));
    r[i] = r[z];
    r[z] = i;
  }
  return r;
}

}  // namespace detail

std::vector<int64_t> torch_randperm(int64_t n, uint64_t seed) {
  if (n < 0) invalid("randperm of a negative size (" + std::to_string(n) + ")");
  return detail::randperm(n, seed, detail::randperm_algorithm(n));
}

KeyedPermutation::KeyedPermutation(int64_t n, uint64_t key) : n_(n) {
  if (n < 0) invalid("permutation of a negative size (" + std::to_string(n) + ")");
  // The smallest even b with 2^b >= n; b <= 64 (n < 2^63), so half_bits_ <= 32.
  const int bits = n <= 1 ? 0 : std::bit_width(static_cast<uint64_t>(n - 1));
  half_bits_ = (bits + 1) / 2;
  half_mask_ = (uint64_t{1} << half_bits_) - 1;
  transforms::Rng rng(key);
  for (uint64_t& k : keys_) k = rng.next();
}

uint64_t KeyedPermutation::feistel(uint64_t x) const {
  uint64_t left = x >> half_bits_;
  uint64_t right = x & half_mask_;
  for (const uint64_t k : keys_) {
    const uint64_t next = left ^ (round_function(right, k) & half_mask_);
    left = right;
    right = next;
  }
  return (left << half_bits_) | right;
}

int64_t KeyedPermutation::operator()(int64_t i) const {
  if (i < 0 || i >= n_) invalid("index " + std::to_string(i) + " outside 0.." + std::to_string(n_ - 1));
  // Cycle walking: the Feistel network permutes 0..2^(2*half_bits_)-1, which holds 0..n-1; following
  // its cycle from i until it is back below n stays a bijection of 0..n-1.
  uint64_t x = static_cast<uint64_t>(i);
  do {
    x = feistel(x);
  } while (x >= static_cast<uint64_t>(n_));
  return static_cast<int64_t>(x);
}

uint64_t sample_seed(uint64_t seed, int64_t epoch) {
  return epoch_keys(seed, epoch).sample_seed;
}

EpochOrder::EpochOrder(int64_t dataset_size, const OrderOptions& options, int64_t epoch)
    : dataset_size_(dataset_size), world_size_(options.world_size), epoch_(epoch), shuffle_(options.shuffle) {
  if (dataset_size < 0) invalid("negative dataset size (" + std::to_string(dataset_size) + ")");
  if (world_size_ <= 0) invalid("world size " + std::to_string(world_size_) + " is not positive");
  if (options.rank < 0 || options.rank >= world_size_) {
    invalid("rank " + std::to_string(options.rank) + " outside 0.." + std::to_string(world_size_ - 1));
  }
  if (shuffle_ == Shuffle::kCustom) {
    if (!options.custom) invalid("Shuffle::kCustom without OrderOptions::custom");
    sequence_ = options.custom(epoch);
    for (size_t i = 0; i < sequence_.size(); ++i) {
      if (sequence_[i] < 0 || sequence_[i] >= dataset_size) {
        invalid("the custom order of epoch " + std::to_string(epoch) + " holds " + std::to_string(sequence_[i]) +
                " at position " + std::to_string(i) + ", outside 0.." + std::to_string(dataset_size - 1));
      }
    }
    length_ = static_cast<int64_t>(sequence_.size());
  } else if (shuffle_ == Shuffle::kShards) {
    sequence_ = shard_sequence(dataset_size, options, epoch_keys(options.seed, epoch).native_key);
    length_ = dataset_size;
  } else if (shuffle_ == Shuffle::kNone || shuffle_ == Shuffle::kTorch || shuffle_ == Shuffle::kNative) {
    length_ = dataset_size;
  } else {
    invalid("unknown shuffle mode " + std::to_string(static_cast<int>(shuffle_)));
  }

  // DistributedSampler: with drop_last and a remainder, ceil((L - W) / W), which is floor(L / W) (0 when
  // L < W); otherwise ceil(L / W).
  num_samples_ = length_ / world_size_ + (!options.drop_last && length_ % world_size_ != 0 ? 1 : 0);
  if (num_samples_ == 0) {
    const std::string what = shuffle_ == Shuffle::kCustom ? "the custom order of epoch " + std::to_string(epoch)
                                                          : std::string("the dataset");
    if (length_ == 0) invalid(what + " is empty: no rank would get a sample");
    invalid("drop_last with " + std::to_string(length_) + " samples in " + what + " for " +
            std::to_string(world_size_) + " ranks leaves every rank without samples");
  }
  if (num_samples_ > std::numeric_limits<int64_t>::max() / world_size_) {
    invalid("world size " + std::to_string(world_size_) + " is too large for " + std::to_string(length_) + " samples");
  }

  if (shuffle_ == Shuffle::kTorch) sequence_ = torch_randperm(length_, options.seed + static_cast<uint64_t>(epoch));
  if (shuffle_ == Shuffle::kNative) native_ = KeyedPermutation(length_, epoch_keys(options.seed, epoch).native_key);
}

int64_t EpochOrder::base(int64_t index) const {
  switch (shuffle_) {
    case Shuffle::kNone: return index;
    case Shuffle::kNative: return native_(index);
    case Shuffle::kTorch:
    case Shuffle::kCustom:
    case Shuffle::kShards: return sequence_[static_cast<size_t>(index)];
  }
  return index;  // unreachable: the constructor refuses other values
}

int64_t EpochOrder::at(int64_t position) const {
  if (position < 0 || position >= total_size()) {
    invalid("position " + std::to_string(position) + " outside 0.." + std::to_string(total_size() - 1));
  }
  return base(position % length_);
}

std::vector<int64_t> EpochOrder::indices(int64_t rank) const {
  if (rank < 0 || rank >= world_size_) {
    invalid("rank " + std::to_string(rank) + " outside 0.." + std::to_string(world_size_ - 1));
  }
  std::vector<int64_t> out(static_cast<size_t>(num_samples_));
  for (int64_t i = 0; i < num_samples_; ++i) out[static_cast<size_t>(i)] = at(position(rank, i));
  return out;
}

}  // namespace loom::loader
