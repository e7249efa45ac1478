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
// - kTorch: torch.randperm(n, generator=torch.Generator().manual_seed(seed + epoch)), bit for bit.
//   torch's CPU generator is MT19937 seeded with the low 32 bits of its seed (the sequence of
//   std::mt19937(seed & 0xffffffff)). For n < 214,748,364 (uint32 max / 20) randperm is a forward
//   Fisher-Yates: r = 0..n-1, then for i in 0..n-2 swap(r[i], r[i + random() % (n - i)]) with one 32-bit
//   draw each. From 214,748,364 on, torch releases made after its PR #143682 (Dec 2024 / Jan 2025)
//   use an inside-out shuffle, r[i] = r[z]; r[z] = i with z = random64() % (i + 1), where random64()
//   is two draws, the first one the high word; loom follows them. Older releases (1.13 among them)
//   use the forward shuffle for every n, so above that size their order differs from loom's.
//   seed + epoch is computed modulo 2^64, which keeps the low 32 bits that torch uses: the result
//   equals torch's wherever torch accepts the sum (manual_seed takes -2^63 .. 2^64-1 and raises
//   outside; a negative value is taken as its two's complement).
//   Memory: 8 bytes per sample, built once per epoch.
// - kNative: a keyed bijection of 0..n-1 (KeyedPermutation, keyed by (seed, epoch)), O(1) memory
//   and O(1) expected time per position. Not torch's order; the same on every platform.
// - kCustom: the caller's sequence for each epoch (any indices in 0..n-1, repeats allowed; its length
//   becomes the epoch's length L, which replaces n below).
// - kShards: for datasets made of shards (consecutive runs of indices, `shard_sizes`): the shards in a
//   random order, each read front to back, through a shuffle buffer of `shuffle_buffer` samples (once
//   the buffer is full each new sample replaces a random one of it, which is emitted; at the end the
//   rest leave in random order). Reads stay nearly sequential within a shard, as webdataset's
//   shard shuffle + shuffle(bufsize) does; draws from loom's Rng keyed by (seed, epoch). 8 bytes per
//   sample, built once per epoch.
// Padding and dropping follow DistributedSampler: drop_last drops the tail so that every rank gets
// floor(n / W) samples; otherwise the sequence is padded to ceil(n / W) * W by repeating it from the
// start (several times when n < W): position p holds the sequence's element p % n.
// Thread safety: an EpochOrder is immutable; at() may be called from any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "loom/codec/api.h"

LOOM_API_BEGIN

namespace loom::loader {

enum class Shuffle { kNone, kTorch, kNative, kCustom, kShards };

struct OrderOptions {
  Shuffle shuffle = Shuffle::kNone;
  uint64_t seed = 0;  // DistributedSampler's seed (any 64-bit value; kTorch uses the low 32 bits of seed + epoch)
  // kCustom: the sequence of dataset indices for an epoch.
  std::function<std::vector<int64_t>(int64_t epoch)> custom;
  // kShards: samples per shard, in index order (they must add up to the dataset size). The loader
  // fills it from Dataset::shard_sizes() when empty.
  std::vector<int64_t> shard_sizes;
  int64_t shuffle_buffer = 1000;  // kShards: samples in the shuffle buffer (1: shard order only)
  int64_t rank = 0;               // 0 <= rank < world_size
  int64_t world_size = 1;         // > 0
  bool drop_last = false;         // DistributedSampler's drop_last (the partition's, not the batch's)
};

// A keyed bijection of 0..n-1 in O(1) memory (see kNative): a 4-round balanced Feistel network on
// the smallest even power of two >= n, walked until it lands below n (fewer than 4 steps on average).
// n == 0 is allowed (nothing may be asked of it). Error(kInvalidInput, "order") for n < 0 and for an
// index outside 0..n-1. Thread safety: immutable.
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

class EpochOrder {
 public:
  // Error(kInvalidInput, "order") for a negative dataset size, a bad rank or world size, kCustom
  // without `custom` or with an index outside 0..dataset_size-1, and for a partition that leaves a
  // rank without samples (an empty dataset or sequence, or fewer samples than ranks with drop_last).
  // kTorch builds its permutation here (O(n) time and memory); the other modes are O(1) here, but
  // kCustom's own cost.
  EpochOrder(int64_t dataset_size, const OrderOptions& options, int64_t epoch);

  int64_t epoch() const { return epoch_; }
  int64_t dataset_size() const { return dataset_size_; }
  int64_t world_size() const { return world_size_; }
  // Samples per rank (DistributedSampler's num_samples) and world_size * that.
  int64_t num_samples() const { return num_samples_; }
  int64_t total_size() const { return num_samples_ * world_size_; }
  // The dataset index at global position `position` (0 <= position < total_size(), else
  // Error(kInvalidInput, "order")).
  int64_t at(int64_t position) const;
  // The global position of `rank`'s i-th sample.
  int64_t position(int64_t rank, int64_t i) const { return i * world_size_ + rank; }
  // What DistributedSampler(dataset, W, rank, shuffle, seed, drop_last).set_epoch(epoch) yields for
  // `rank`: at(position(rank, i)) for i in 0..num_samples()-1. Error(kInvalidInput, "order") for a
  // rank outside 0..world_size()-1.
  std::vector<int64_t> indices(int64_t rank) const;

 private:
  int64_t base(int64_t index) const;  // the unpadded sequence's element (0 <= index < length_)

  int64_t dataset_size_ = 0;
  int64_t world_size_ = 1;
  int64_t epoch_ = 0;
  int64_t length_ = 0;  // of the unpadded sequence
  int64_t num_samples_ = 0;
  Shuffle shuffle_ = Shuffle::kNone;
  std::vector<int64_t> sequence_;  // kTorch, kCustom, kShards
  KeyedPermutation native_{0, 0};  // kNative
};

// torch.randperm(n, generator=torch.Generator().manual_seed(seed)) (see kTorch).
// Error(kInvalidInput, "order") for n < 0.
std::vector<int64_t> torch_randperm(int64_t n, uint64_t seed);

// The seed a sample's random draws come from: every transform of the sample at global `position` of
// `epoch` draws from transforms::Rng(sample_seed(seed, epoch), position), whatever the thread or rank.
// Unrelated to the kNative key of the same (seed, epoch).
uint64_t sample_seed(uint64_t seed, int64_t epoch);

}  // namespace loom::loader

LOOM_API_END
