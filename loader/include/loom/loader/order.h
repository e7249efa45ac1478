// The order of samples: one global sequence per epoch, a pure function of (dataset size, options,
// epoch), partitioned among ranks exactly as torch.utils.data.DistributedSampler does.
//
// Global positions 0 .. total_size()-1 hold dataset indices. Rank r of W takes positions r, r+W, r+2W,
// ...: its i-th sample is at position i*W + r. With a per-rank batch B the k-th batch of every rank
// together covers positions [k*B*W, (k+1)*B*W), so a step consumes the same window of the sequence for
// any W at the same global batch B*W; that is what makes resume elastic.
//
// Shuffle modes:
// - kNone: 0, 1, ..., n-1.
// - kTorch: torch.randperm(n, generator=torch.Generator().manual_seed(seed + epoch)), bit for bit:
//   MT19937 seeded with the low 32 bits of seed + epoch; for n < 214,748,364 a forward Fisher-Yates with
//   swap(a[i], a[i + random() % (n - i)]), above an inside-out shuffle with 64-bit draws (torch >= 2.1).
//   Memory: 8 bytes per sample, built once per epoch.
// - kNative: a keyed bijection of 0..n-1 (a Feistel network with cycle walking), O(1) memory and
//   O(1) per position. Not torch's order; the same on every platform.
// - kCustom: the caller's sequence for each epoch (any indices in 0..n-1, repeats allowed; its length
//   becomes the epoch's length).
// Padding and dropping follow DistributedSampler: drop_last drops the tail so that every rank gets
// floor(n / W) samples; otherwise the sequence is padded to ceil(n / W) * W by repeating it from the
// start (several times when n < W).
// Thread safety: an EpochOrder is immutable; at() may be called from any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "loom/codec/api.h"

LOOM_API_BEGIN

namespace loom::loader {

enum class Shuffle { kNone, kTorch, kNative, kCustom };

struct OrderOptions {
  Shuffle shuffle = Shuffle::kNone;
  uint64_t seed = 0;  // DistributedSampler's seed (any 64-bit value; torch uses its low 32 bits + epoch)
  // kCustom: the sequence of dataset indices for an epoch.
  std::function<std::vector<int64_t>(int64_t epoch)> custom;
  int64_t rank = 0;        // 0 <= rank < world_size
  int64_t world_size = 1;  // > 0
  bool drop_last = false;  // DistributedSampler's drop_last (the partition's, not the batch's)
};

class EpochOrder {
 public:
  // Error(kInvalidInput, "order") for a bad rank or world size, a kCustom sequence with an index out
  // of range or without `custom`, and for a partition that leaves a rank without samples (n < W with
  // drop_last, or an empty dataset).
  EpochOrder(int64_t dataset_size, const OrderOptions& options, int64_t epoch);

  int64_t epoch() const { return epoch_; }
  int64_t dataset_size() const { return dataset_size_; }
  int64_t world_size() const { return world_size_; }
  // Samples per rank (DistributedSampler's num_samples) and world_size * that.
  int64_t num_samples() const { return num_samples_; }
  int64_t total_size() const { return num_samples_ * world_size_; }
  // The dataset index at global position `position` (0 <= position < total_size()).
  int64_t at(int64_t position) const;
  // The global position of `rank`'s i-th sample.
  int64_t position(int64_t rank, int64_t i) const { return i * world_size_ + rank; }
  // What DistributedSampler(dataset, W, rank, shuffle, seed, drop_last).set_epoch(epoch) yields for
  // `rank`: at(position(rank, i)) for i in 0..num_samples()-1.
  std::vector<int64_t> indices(int64_t rank) const;

 private:
  int64_t base(int64_t position) const;  // the unpadded sequence's element

  int64_t dataset_size_ = 0;
  int64_t world_size_ = 1;
  int64_t epoch_ = 0;
  int64_t length_ = 0;  // of the unpadded sequence
  int64_t num_samples_ = 0;
  Shuffle shuffle_ = Shuffle::kNone;
  std::vector<int64_t> sequence_;  // kTorch, kCustom
  uint64_t key_ = 0;               // kNative
};

// torch.randperm(n, generator=torch.Generator().manual_seed(seed)) (see kTorch).
std::vector<int64_t> torch_randperm(int64_t n, uint64_t seed);

// A keyed bijection of 0..n-1 in O(1) memory (see kNative). Thread safety: immutable.
class KeyedPermutation {
 public:
  KeyedPermutation(int64_t n, uint64_t key);
  int64_t operator()(int64_t i) const;  // 0 <= i < n
  int64_t size() const { return n_; }

 private:
  uint64_t feistel(uint64_t x) const;
  int64_t n_;
  int half_bits_;
  uint64_t half_mask_;
  uint64_t keys_[4];
};

// The seed a sample's random draws come from: every transform of the sample at global `position` of
// `epoch` draws from transforms::Rng(sample_seed(seed, epoch), position), whatever the thread or rank.
uint64_t sample_seed(uint64_t seed, int64_t epoch);

}  // namespace loom::loader

LOOM_API_END
