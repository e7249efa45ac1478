// EpochOrder, torch_randperm, KeyedPermutation and sample_seed: DistributedSampler and torch.randperm
// from Debian's torch 1.13 (tests/reference/distributed_sampler.py, randperm_torch.py), the partition's
// properties, the native permutation's bijectivity, errors.
#include "loom/loader/order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "loom/codec/error.h"
#include "python_reference.h"
#include "randperm.h"
#include "test_media.h"

namespace loom::loader {
namespace {

using loom::test::error_of;

std::vector<int64_t> to_vector(const Tensor& t) {
  const auto* p = static_cast<const int64_t*>(t.data());
  return {p, p + t.numel()};
}

// Row `row` of a 2-D int64 tensor.
std::vector<int64_t> row_of(const Tensor& t, int64_t row) {
  const int64_t width = t.shape()[1];
  const auto* p = static_cast<const int64_t*>(t.data()) + row * width;
  return {p, p + width};
}

std::vector<int64_t> iota(int64_t n) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = i;
  return v;
}

std::vector<int64_t> sorted(std::vector<int64_t> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// Seeds below and above 2^32 (torch keeps the low 32 bits of seed + epoch: 2^32 - 1 + 1 wraps to 0).
const std::vector<uint64_t> kSeeds = {0, 42, 4294967295ull, 4294967301ull, 9223372036854788153ull};

TEST(TorchRandpermTest, EqualsTorchAndBothAlgorithmsEqualTheirNumpyTranscription) {
  struct Case {
    int64_t n;
    uint64_t seed;
  };
  std::vector<Case> cases;
  for (int64_t n : {0, 1, 2, 3, 10, 100, 1000, 4097}) {
    for (uint64_t seed : {uint64_t{0}, uint64_t{1}, uint64_t{42}, uint64_t{4294967295ull}, uint64_t{4294967301ull},
                          uint64_t{9223372036854775815ull}, uint64_t{18446744073709551615ull}}) {
      cases.push_back({n, seed});
    }
  }
  std::string json = "{\"cases\": [";
  for (size_t k = 0; k < cases.size(); ++k) {
    json += (k ? "," : "") + std::string("{\"n\": ") + std::to_string(cases[k].n) +
            ", \"seed\": " + std::to_string(cases[k].seed) + "}";
  }
  json += "]}";
  const auto out = loom::test::run_python_reference("randperm_torch.py", {}, json);
  ASSERT_EQ(out.size(), 3 * cases.size());
  for (size_t k = 0; k < cases.size(); ++k) {
    const auto [n, seed] = cases[k];
    SCOPED_TRACE("n " + std::to_string(n) + " seed " + std::to_string(seed));
    const std::string id = std::to_string(k);
    EXPECT_EQ(torch_randperm(n, seed), to_vector(out.at("torch_" + id)));
    EXPECT_EQ(detail::randperm(n, seed, detail::RandpermAlgorithm::kForward32), to_vector(out.at("forward_" + id)));
    // torch 1.13 has no inside-out branch (torch added it for n >= 214,748,364 in PR #143682, Dec 2024), so it
    // is checked on small n against randperm_torch.py's transcription over NumPy's MT19937 instead.
    EXPECT_EQ(detail::randperm(n, seed, detail::RandpermAlgorithm::kInsideOut64),
              to_vector(out.at("inside_out_" + id)));
  }
}

TEST(TorchRandpermTest, PicksTheInsideOutShuffleFromTorchsThreshold) {
  EXPECT_EQ(detail::kRandpermInsideOutFrom, 214'748'364);
  EXPECT_EQ(detail::randperm_algorithm(0), detail::RandpermAlgorithm::kForward32);
  EXPECT_EQ(detail::randperm_algorithm(214'748'363), detail::RandpermAlgorithm::kForward32);
  EXPECT_EQ(detail::randperm_algorithm(214'748'364), detail::RandpermAlgorithm::kInsideOut64);
  EXPECT_EQ(detail::randperm_algorithm(int64_t{1} << 40), detail::RandpermAlgorithm::kInsideOut64);
}

TEST(TorchRandpermTest, UsesTheLowThirtyTwoBitsOfTheSeed) {
  EXPECT_EQ(torch_randperm(50, 7), torch_randperm(50, (uint64_t{1} << 32) + 7));
  EXPECT_EQ(torch_randperm(50, 0), torch_randperm(50, uint64_t{1} << 63));
  EXPECT_NE(torch_randperm(50, 7), torch_randperm(50, 8));
  EXPECT_EQ(error_of([] { torch_randperm(-1, 0); }).code(), ErrorCode::kInvalidInput);
}

struct SamplerCase {
  int64_t n;
  int64_t world;
  uint64_t seed;
  int64_t epoch;
  bool shuffle;
  bool drop_last;
};

std::string describe(const SamplerCase& c) {
  return "n " + std::to_string(c.n) + " W " + std::to_string(c.world) + " seed " + std::to_string(c.seed) + " epoch " +
         std::to_string(c.epoch) + (c.shuffle ? " shuffle" : "") + (c.drop_last ? " drop_last" : "");
}

TEST(EpochOrderTest, EqualsDistributedSamplerOfTorch) {
  std::vector<SamplerCase> cases;
  for (int64_t n : {0, 1, 2, 3, 7, 8, 10, 17, 100, 1000}) {
    for (int64_t world : {1, 2, 3, 8}) {
      for (bool drop_last : {false, true}) {
        for (int64_t epoch = 0; epoch < 4; ++epoch) {
          for (uint64_t seed : kSeeds) cases.push_back({n, world, seed, epoch, true, drop_last});
        }
        for (int64_t epoch = 0; epoch < 2; ++epoch) cases.push_back({n, world, 42, epoch, false, drop_last});
      }
    }
  }
  std::string json = "{\"cases\": [";
  for (size_t k = 0; k < cases.size(); ++k) {
    const SamplerCase& c = cases[k];
    json += (k ? "," : "") + std::string("{\"n\": ") + std::to_string(c.n) + ", \"world\": " + std::to_string(c.world) +
            ", \"seed\": " + std::to_string(c.seed) + ", \"epoch\": " + std::to_string(c.epoch) +
            ", \"shuffle\": " + (c.shuffle ? "true" : "false") +
            ", \"drop_last\": " + (c.drop_last ? "true" : "false") + "}";
  }
  json += "]}";
  const auto out = loom::test::run_python_reference("distributed_sampler.py", {}, json);
  ASSERT_EQ(out.size(), cases.size());
  int64_t compared = 0, refused = 0;
  for (size_t k = 0; k < cases.size(); ++k) {
    const SamplerCase& c = cases[k];
    SCOPED_TRACE(describe(c));
    const Tensor& want = out.at(std::to_string(k));
    ASSERT_EQ(want.shape()[0], c.world);
    OrderOptions options;
    options.shuffle = c.shuffle ? Shuffle::kTorch : Shuffle::kNone;
    options.seed = c.seed;
    options.world_size = c.world;
    options.drop_last = c.drop_last;
    if (want.shape()[1] == 0) {
      // torch hands every rank nothing (an empty dataset, or drop_last with n < W): loom refuses.
      const Error e = error_of([&] { EpochOrder(c.n, options, c.epoch); });
      EXPECT_EQ(e.code(), ErrorCode::kInvalidInput);
      EXPECT_EQ(e.input(), "order");
      ++refused;
      continue;
    }
    const EpochOrder order(c.n, options, c.epoch);
    EXPECT_EQ(order.num_samples(), want.shape()[1]);
    for (int64_t rank = 0; rank < c.world; ++rank) {
      EXPECT_EQ(order.indices(rank), row_of(want, rank)) << "rank " << rank;
      ++compared;
    }
  }
  EXPECT_GT(compared, 3000);
  EXPECT_GT(refused, 20);
}

// The ranks' samples, interleaved by position, are the padded (or cut) global sequence, and every
// index of the dataset is in it when nothing is dropped.
TEST(EpochOrderTest, RanksPartitionThePaddedSequence) {
  for (Shuffle shuffle : {Shuffle::kNone, Shuffle::kTorch, Shuffle::kNative}) {
    for (int64_t n : {1, 2, 5, 16, 33, 250}) {
      for (int64_t world : {1, 2, 3, 7, 8, 40}) {
        for (bool drop_last : {false, true}) {
          if (drop_last && n < world) continue;
          SCOPED_TRACE("shuffle " + std::to_string(static_cast<int>(shuffle)) + " n " + std::to_string(n) + " W " +
                       std::to_string(world) + (drop_last ? " drop_last" : ""));
          OrderOptions options;
          options.shuffle = shuffle;
          options.seed = 1234;
          options.world_size = world;
          options.drop_last = drop_last;
          const EpochOrder order(n, options, 3);
          EXPECT_EQ(order.num_samples(), drop_last ? n / world : (n + world - 1) / world);
          EXPECT_EQ(order.total_size(), order.num_samples() * world);
          std::vector<int64_t> global(static_cast<size_t>(order.total_size()), -1);
          for (int64_t rank = 0; rank < world; ++rank) {
            const std::vector<int64_t> mine = order.indices(rank);
            ASSERT_EQ(static_cast<int64_t>(mine.size()), order.num_samples());
            for (int64_t i = 0; i < order.num_samples(); ++i) global[order.position(rank, i)] = mine[i];
          }
          std::vector<int64_t> sequence;
          for (int64_t p = 0; p < order.total_size(); ++p) sequence.push_back(order.at(p));
          EXPECT_EQ(global, sequence);
          // The first n positions are a permutation; the padding repeats the sequence from its start.
          const int64_t first = std::min(n, order.total_size());
          const std::vector<int64_t> head(sequence.begin(), sequence.begin() + first);
          if (!drop_last) EXPECT_EQ(sorted(head), iota(n));
          for (int64_t p = n; p < order.total_size(); ++p) EXPECT_EQ(sequence[p], sequence[p % n]);
          std::set<int64_t> distinct(head.begin(), head.end());
          EXPECT_EQ(static_cast<int64_t>(distinct.size()), first);
        }
      }
    }
  }
}

TEST(EpochOrderTest, TorchShuffleAddsTheEpochToTheSeedModuloTwoToThe64) {
  OrderOptions options;
  options.shuffle = Shuffle::kTorch;
  options.seed = ~uint64_t{0};  // + 1 wraps to 0, as (2^64 - 1 + 1) mod 2^32 = 0 in torch's low bits
  EXPECT_EQ(EpochOrder(20, options, 1).indices(0), torch_randperm(20, 0));
  options.seed = 10;
  EXPECT_EQ(EpochOrder(20, options, -3).indices(0), torch_randperm(20, 7));
  EXPECT_EQ(EpochOrder(20, options, 5).indices(0), torch_randperm(20, 15));
}

TEST(EpochOrderTest, NativeShuffleDependsOnSeedAndEpochAndIsStable) {
  OrderOptions options;
  options.shuffle = Shuffle::kNative;
  options.seed = 5;
  const std::vector<int64_t> a = EpochOrder(1000, options, 0).indices(0);
  EXPECT_EQ(EpochOrder(1000, options, 0).indices(0), a);
  EXPECT_NE(EpochOrder(1000, options, 1).indices(0), a);
  options.seed = 6;
  EXPECT_NE(EpochOrder(1000, options, 0).indices(0), a);
  EXPECT_NE(a, iota(1000));
  EXPECT_EQ(sorted(a), iota(1000));
}

TEST(EpochOrderTest, CustomSequenceIsPaddedAndPartitionedLikeAnyOther) {
  OrderOptions options;
  options.shuffle = Shuffle::kCustom;
  options.world_size = 2;
  options.custom = [](int64_t epoch) { return std::vector<int64_t>{2, 2, 0, 1, epoch}; };
  const EpochOrder order(3, options, 1);
  EXPECT_EQ(order.num_samples(), 3);  // 5 entries for 2 ranks, padded to 6 from the start
  EXPECT_EQ(order.indices(0), (std::vector<int64_t>{2, 0, 1}));
  EXPECT_EQ(order.indices(1), (std::vector<int64_t>{2, 1, 2}));
  options.drop_last = true;
  const EpochOrder cut(3, options, 0);
  EXPECT_EQ(cut.num_samples(), 2);
  EXPECT_EQ(cut.indices(0), (std::vector<int64_t>{2, 0}));
  EXPECT_EQ(cut.indices(1), (std::vector<int64_t>{2, 1}));
}

TEST(EpochOrderTest, RefusesBadOptionsAndPartitionsWithoutSamples) {
  const auto refused = [](int64_t n, const OrderOptions& options, const std::string& words) {
    const Error e = error_of([&] { EpochOrder(n, options, 0); });
    EXPECT_EQ(e.code(), ErrorCode::kInvalidInput) << words;
    EXPECT_EQ(e.input(), "order");
    EXPECT_NE(e.message().find(words), std::string::npos) << e.message();
  };
  OrderOptions options;
  refused(0, options, "empty");
  refused(-1, options, "negative");
  options.world_size = 0;
  refused(10, options, "world size");
  options.world_size = 4;
  options.rank = 4;
  refused(10, options, "rank 4");
  options.rank = -1;
  refused(10, options, "rank -1");
  options.rank = 0;
  options.drop_last = true;
  refused(3, options, "drop_last with 3 samples");
  options.drop_last = false;
  options.shuffle = Shuffle::kCustom;
  refused(10, options, "without OrderOptions::custom");
  options.custom = [](int64_t) { return std::vector<int64_t>{0, 10}; };
  refused(10, options, "holds 10 at position 1");
  options.custom = [](int64_t) { return std::vector<int64_t>{-1}; };
  refused(10, options, "holds -1");
  options.custom = [](int64_t) { return std::vector<int64_t>{}; };
  refused(10, options, "is empty");

  OrderOptions fine;
  fine.world_size = 3;
  const EpochOrder order(10, fine, 0);
  EXPECT_EQ(error_of([&] { order.at(12); }).code(), ErrorCode::kInvalidInput);
  EXPECT_EQ(error_of([&] { order.at(-1); }).code(), ErrorCode::kInvalidInput);
  EXPECT_EQ(error_of([&] { order.indices(3); }).code(), ErrorCode::kInvalidInput);
  EXPECT_EQ(order.at(11), 1);  // padding: 10 samples for 3 ranks are 12 positions
}

TEST(KeyedPermutationTest, IsABijectionForEverySmallSize) {
  for (uint64_t key : {uint64_t{0}, uint64_t{1}, uint64_t{0x9e3779b97f4a7c15ull}}) {
    std::vector<int64_t> sizes;
    for (int64_t n = 0; n <= 1100; ++n) sizes.push_back(n);
    for (int bits = 11; bits <= 17; ++bits) {
      for (int64_t d : {-1, 0, 1}) sizes.push_back((int64_t{1} << bits) + d);
    }
    for (int64_t n : sizes) {
      const KeyedPermutation p(n, key);
      ASSERT_EQ(p.size(), n);
      std::vector<char> seen(static_cast<size_t>(n), 0);
      for (int64_t i = 0; i < n; ++i) {
        const int64_t v = p(i);
        ASSERT_TRUE(v >= 0 && v < n) << "n " << n << " i " << i << " -> " << v;
        ASSERT_FALSE(seen[v]) << "n " << n << " key " << key << ": " << v << " twice";
        seen[v] = 1;
      }
    }
  }
}

TEST(KeyedPermutationTest, LargeSizesGiveDistinctValuesInRange) {
  for (int64_t n : {int64_t{1'000'000'007}, (int64_t{1} << 40) + 3, int64_t{INT64_MAX}}) {
    const KeyedPermutation p(n, 77);
    std::set<int64_t> values;
    for (int64_t i = 0; i < 200'000; ++i) {
      const int64_t position = i < 100'000 ? i : n - 1 - (i - 100'000) * 7919;  // both ends of the range
      const int64_t v = p(position);
      ASSERT_TRUE(v >= 0 && v < n) << v;
      values.insert(v);
    }
    EXPECT_EQ(values.size(), 200'000u) << "n " << n;
    // Spread over the range, not clustered near the start.
    EXPECT_GT(*values.rbegin(), n / 2);
    EXPECT_LT(*values.begin(), n / 2);
  }
}

TEST(KeyedPermutationTest, KeysGiveDifferentPermutationsAndBadArgumentsAreRefused) {
  const KeyedPermutation a(500, 1), b(500, 2);
  int64_t same = 0, fixed = 0;
  for (int64_t i = 0; i < 500; ++i) {
    same += a(i) == b(i);
    fixed += a(i) == i;
  }
  EXPECT_LT(same, 20);
  EXPECT_LT(fixed, 20);
  EXPECT_EQ(error_of([] { KeyedPermutation(-1, 0); }).code(), ErrorCode::kInvalidInput);
  EXPECT_EQ(error_of([&] { a(500); }).code(), ErrorCode::kInvalidInput);
  EXPECT_EQ(error_of([&] { a(-1); }).code(), ErrorCode::kInvalidInput);
  EXPECT_EQ(error_of([] { KeyedPermutation(0, 3)(0); }).code(), ErrorCode::kInvalidInput);
}

TEST(SampleSeedTest, IsAFixedMixOfSeedAndEpoch) {
  std::set<uint64_t> seeds;
  for (uint64_t seed = 0; seed < 100; ++seed) {
    for (int64_t epoch = -5; epoch < 95; ++epoch) seeds.insert(sample_seed(seed, epoch));
  }
  EXPECT_EQ(seeds.size(), 10'000u);
  EXPECT_EQ(sample_seed(42, 3), sample_seed(42, 3));
  EXPECT_NE(sample_seed(42, 3), sample_seed(3, 42));
  // Neighbouring inputs give unrelated words: about half of the 64 bits flip.
  const int flipped = std::popcount(sample_seed(42, 3) ^ sample_seed(42, 4));
  EXPECT_GT(flipped, 16);
  EXPECT_LT(flipped, 48);
}

// Shards of 5, 0, 7, 3 and 9 samples (indices 0-4, 5-11, 12-14, 15-23).
OrderOptions shard_options(int64_t buffer) {
  OrderOptions o;
  o.shuffle = Shuffle::kShards;
  o.seed = 9;
  o.shard_sizes = {5, 0, 7, 3, 9};
  o.shuffle_buffer = buffer;
  return o;
}

int64_t shard_of(int64_t index) {
  return index < 5 ? 0 : index < 12 ? 2 : index < 15 ? 3 : 4;
}

TEST(ShardOrderTest, WithoutABufferShardsComeWholeAndInOrderInARandomShardOrder) {
  const EpochOrder order(24, shard_options(1), 0);
  std::vector<int64_t> seq = order.indices(0);
  ASSERT_EQ(seq.size(), 24u);
  std::vector<int64_t> shards;
  for (size_t i = 0; i < seq.size(); ++i) {
    if (i == 0 || shard_of(seq[i]) != shard_of(seq[i - 1]))
      shards.push_back(shard_of(seq[i]));
    else
      EXPECT_EQ(seq[i], seq[i - 1] + 1);  // front to back within a shard
  }
  EXPECT_EQ(std::set<int64_t>(shards.begin(), shards.end()).size(), shards.size());  // each shard once
  EXPECT_EQ(shards.size(), 4u);
  // Other epochs order the shards differently (at least one of the next few).
  bool differs = false;
  for (int64_t e = 1; e < 6; ++e) differs |= EpochOrder(24, shard_options(1), e).indices(0) != seq;
  EXPECT_TRUE(differs);
}

TEST(ShardOrderTest, TheBufferShufflesWithinItsReachAndKeepsAPermutation) {
  for (const int64_t buffer : {2, 4, 8, 100}) {
    const EpochOrder order(24, shard_options(buffer), 3);
    const EpochOrder shards_only(24, shard_options(1), 3);
    std::vector<int64_t> seq = order.indices(0), input = shards_only.indices(0);
    EXPECT_EQ(seq, EpochOrder(24, shard_options(buffer), 3).indices(0));  // a pure function
    std::vector<int64_t> sorted = seq;
    std::sort(sorted.begin(), sorted.end());
    for (int64_t i = 0; i < 24; ++i) EXPECT_EQ(sorted[i], i) << "buffer " << buffer;
    // A sample leaves the buffer only after it was read: its position in the output is at least its
    // position in the shard order minus (buffer - 1).
    for (size_t p = 0; p < seq.size(); ++p) {
      const auto q = std::find(input.begin(), input.end(), seq[p]) - input.begin();
      EXPECT_LE(q, static_cast<std::ptrdiff_t>(p) + buffer - 1) << "buffer " << buffer;
    }
    if (buffer > 1) EXPECT_NE(seq, input);
  }
}

TEST(ShardOrderTest, RefusesSizesThatDoNotDescribeTheDataset) {
  OrderOptions o = shard_options(4);
  EXPECT_EQ(error_of([&] { EpochOrder(25, o, 0); }).code(), ErrorCode::kInvalidInput);
  o.shard_sizes.clear();
  EXPECT_NE(std::string(error_of([&] { EpochOrder(24, o, 0); }).what()).find("shard sizes"), std::string::npos);
  o = shard_options(0);
  EXPECT_EQ(error_of([&] { EpochOrder(24, o, 0); }).code(), ErrorCode::kInvalidInput);
  o = shard_options(4);
  o.shard_sizes[1] = -1;
  EXPECT_EQ(error_of([&] { EpochOrder(24, o, 0); }).code(), ErrorCode::kInvalidInput);
}

}  // namespace
}  // namespace loom::loader
