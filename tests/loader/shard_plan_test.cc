// split_range and plan_shards: pure splits that cover every item exactly once.
#include "loom/loader/shard_plan.h"

#include <gtest/gtest.h>

#include <vector>

#include "loom/codec/error.h"
#include "test_media.h"

namespace loom::loader {
namespace {

TEST(ShardPlanTest, SplitRangeCoversEveryItemOnceInOrder) {
  for (int64_t count : {0, 1, 5, 7, 100, 101}) {
    for (int64_t parts : {1, 2, 3, 7, 8, 200}) {
      int64_t next = 0;
      for (int64_t p = 0; p < parts; ++p) {
        const IndexRange r = split_range(count, p, parts);
        EXPECT_EQ(r.begin, next);
        EXPECT_LE(r.size(), count / parts + 1);
        EXPECT_GE(r.size(), count / parts);
        next = r.end;
      }
      EXPECT_EQ(next, count);
    }
  }
  EXPECT_EQ(split_range(10, 0, 3), (IndexRange{0, 3}));
  EXPECT_EQ(split_range(10, 1, 3), (IndexRange{3, 6}));
  EXPECT_EQ(split_range(10, 2, 3), (IndexRange{6, 10}));
  const int64_t big = int64_t{1} << 62;
  EXPECT_EQ(split_range(big, 2, 3).end, big);  // no overflow
  EXPECT_EQ(loom::test::error_code_of([] { split_range(10, 3, 3); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(loom::test::error_code_of([] { split_range(10, -1, 3); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(loom::test::error_code_of([] { split_range(10, 0, 0); }), ErrorCode::kInvalidInput);
}

TEST(ShardPlanTest, PlanShardsBySamplesAndBytes) {
  using V = std::vector<IndexRange>;
  const std::vector<uint64_t> sizes = {10, 10, 10, 10, 10, 10, 10};
  EXPECT_EQ(plan_shards(sizes, 3), (V{{0, 3}, {3, 6}, {6, 7}}));
  EXPECT_EQ(plan_shards(sizes, 100, 25), (V{{0, 2}, {2, 4}, {4, 6}, {6, 7}}));
  EXPECT_EQ(plan_shards(sizes, 100, 30), (V{{0, 3}, {3, 6}, {6, 7}}));
  EXPECT_EQ(plan_shards(sizes, 2, 30), (V{{0, 2}, {2, 4}, {4, 6}, {6, 7}}));
  // An item larger than the byte limit gets a shard of its own.
  EXPECT_EQ(plan_shards(std::vector<uint64_t>{5, 100, 5, 5}, 10, 20), (V{{0, 1}, {1, 2}, {2, 4}}));
  EXPECT_EQ(plan_shards(std::vector<uint64_t>{}, 10), V{});
  EXPECT_EQ(loom::test::error_code_of([&] { plan_shards(sizes, 0); }), ErrorCode::kInvalidInput);
}

}  // namespace
}  // namespace loom::loader
