// loom/loader/pack.h directly: planning (order, keys, labels, shards, errors) and write_pack_shard
// (members as planned, read back through ShardDataset; the same bytes for any thread count; a transform;
// verify failing a shard at the sample that does not decode, with nothing left behind).
#include "loom/loader/pack.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "loom/codec/error.h"
#include "loom/loader/file_list.h"
#include "loom/loader/shards.h"
#include "test_media.h"

namespace loom::loader {
namespace {
namespace fs = std::filesystem;
using loom::test::media;
using loom::test::read_bytes;
using loom::test::TempDir;
using loom::test::write_bytes;

// train/cat/{flower,hopper}.jpg, train/dog/{app13.jpg, hopper_bw_500.png}, train/dog/sub/iptc.jpg
fs::path make_tree(const TempDir& dir) {
  const fs::path root = dir / "train";
  fs::create_directories(root / "cat");
  fs::create_directories(root / "dog" / "sub");
  fs::copy_file(media("images/jpeg/flower.jpg"), root / "cat" / "flower.jpg");
  fs::copy_file(media("images/jpeg/hopper.jpg"), root / "cat" / "hopper.jpg");
  fs::copy_file(media("images/jpeg/app13.jpg"), root / "dog" / "app13.jpg");
  fs::copy_file(media("images/png/hopper_bw_500.png"), root / "dog" / "hopper_bw_500.png");
  fs::copy_file(media("images/jpeg/iptc.jpg"), root / "dog" / "sub" / "iptc.jpg");
  return root;
}

PackOptions options(int64_t shard_size) {
  PackOptions o;
  o.shard_size = shard_size;
  o.extensions = image_extensions();
  return o;
}

TEST(PackTest, PlanSortsKeysLabelsAndCutsShards) {
  const TempDir dir;
  const fs::path root = make_tree(dir);
  const std::vector<std::string> inputs = {root.string()};
  const PackPlan plan = plan_pack(inputs, options(2));
  ASSERT_TRUE(plan.errors.empty()) << plan.errors.front();
  std::vector<std::string> keys;
  std::vector<int64_t> labels;
  for (const PackEntry& e : plan.entries) {
    keys.push_back(e.key + "." + e.name);
    labels.push_back(e.label.value_or(-1));
    EXPECT_EQ(e.size, fs::file_size(e.path));
  }
  EXPECT_EQ(keys, (std::vector<std::string>{"cat/flower.jpg", "cat/hopper.jpg", "dog/app13.jpg",
                                            "dog/hopper_bw_500.png", "dog/sub/iptc.jpg"}));
  EXPECT_EQ(labels, (std::vector<int64_t>{0, 0, 1, 1, 1}));
  EXPECT_EQ(plan.shards, (std::vector<IndexRange>{{0, 2}, {2, 4}, {4, 5}}));

  PackOptions by_bytes = options(100);
  by_bytes.shard_bytes = plan.entries[0].size + plan.entries[1].size;  // the first two fit, not three
  EXPECT_EQ(plan_pack(inputs, by_bytes).shards.front(), (IndexRange{0, 2}));
}

TEST(PackTest, PlanListsProblemsAndRefusesMixedInputs) {
  const TempDir dir;
  const fs::path root = make_tree(dir);
  fs::copy_file(root / "cat" / "hopper.jpg", root / "cat" / "hopper.png");  // key cat/hopper twice
  const std::vector<std::string> inputs = {root.string(), (dir / "missing").string()};
  const PackPlan plan = plan_pack(inputs, options(2));
  ASSERT_EQ(plan.errors.size(), 2u);
  EXPECT_NE(plan.errors[0].find("missing"), std::string::npos) << plan.errors[0];
  EXPECT_NE(plan.errors[1].find("its key 'cat/hopper' is also the key of"), std::string::npos) << plan.errors[1];

  const std::vector<std::string> mixed = {root.string(), (dir / "rows.jsonl").string()};
  EXPECT_EQ(loom::test::error_code_of([&] { plan_pack(mixed, options(2)); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(loom::test::error_code_of([&] { plan_pack(inputs, options(0)); }), ErrorCode::kInvalidInput);
  EXPECT_TRUE(names_manifest("a/rows.JSONL"));
  EXPECT_FALSE(names_manifest(root.string()));
}

TEST(PackTest, ShardReadsBackAsPlannedWithTheSameBytesForAnyThreadCount) {
  const TempDir dir;
  const fs::path root = make_tree(dir);
  const std::vector<std::string> inputs = {root.string()};
  const PackPlan plan = plan_pack(inputs, options(5));
  int64_t written = 0;
  PackShardOptions one;
  one.on_written = [&](const PackEntry&) { ++written; };
  const PackShardResult result = write_pack_shard(dir / "out" / "a.tar", plan.entries, one);
  ASSERT_TRUE(result.ok) << result.error;
  EXPECT_EQ(result.samples, 5);
  EXPECT_EQ(written, 5);
  EXPECT_EQ(result.failed_sample, -1);
  PackShardOptions three;
  three.threads = 3;
  ASSERT_TRUE(write_pack_shard(dir / "out" / "b.tar", plan.entries, three).ok);
  EXPECT_EQ(read_bytes(dir / "out" / "a.tar"), read_bytes(dir / "out" / "b.tar"));

  const auto shards = ShardDataset::open({(dir / "out" / "a.tar").string()});
  ASSERT_EQ(shards->size(), 5);
  for (int64_t i = 0; i < shards->size(); ++i) {
    const Record record = shards->read(i);
    const PackEntry& e = plan.entries[static_cast<size_t>(i)];
    EXPECT_EQ(record.key, e.key);
    EXPECT_EQ(record.label, e.label);
    const std::vector<std::string> name = {e.name};
    ASSERT_NE(record.find(name), nullptr) << e.key;
    const auto bytes = record.find(name)->bytes.bytes();
    EXPECT_EQ(std::vector<uint8_t>(bytes.begin(), bytes.end()), read_bytes(e.path)) << e.key;
  }
}

TEST(PackTest, TransformNamesAndFillsTheDataMember) {
  const TempDir dir;
  const fs::path root = make_tree(dir);
  const std::vector<std::string> inputs = {root.string()};
  const PackPlan plan = plan_pack(inputs, options(5));
  PackShardOptions o;
  o.threads = 2;
  o.transform = [](const PackEntry& e, const ByteSource&) {
    return PackedImage{"txt", std::vector<uint8_t>(e.key.begin(), e.key.end())};
  };
  ASSERT_TRUE(write_pack_shard(dir / "t.tar", plan.entries, o).ok);
  const auto shards = ShardDataset::open({(dir / "t.tar").string()});
  const std::vector<std::string> txt = {"txt"};
  for (int64_t i = 0; i < shards->size(); ++i) {
    const Record record = shards->read(i);
    ASSERT_NE(record.find(txt), nullptr);
    const auto bytes = record.find(txt)->bytes.bytes();
    EXPECT_EQ(std::string(bytes.begin(), bytes.end()), record.key);
  }
}

TEST(PackTest, VerifyFailsTheShardAtTheSampleThatDoesNotDecode) {
  const TempDir dir;
  const fs::path root = make_tree(dir);
  write_bytes(root / "cat" / "garbage.jpg", std::vector<uint8_t>(300, 'x'));  // third in order
  const std::vector<std::string> inputs = {root.string()};
  const PackPlan plan = plan_pack(inputs, options(6));
  ASSERT_TRUE(plan.errors.empty());
  ASSERT_EQ(plan.entries[2].key, "cat/hopper");  // cat/flower, cat/garbage, cat/hopper, ...
  PackShardOptions unchecked;
  EXPECT_TRUE(write_pack_shard(dir / "raw.tar", plan.entries, unchecked).ok);  // bytes as they are

  PackShardOptions verify;
  verify.verify = true;
  verify.threads = 2;
  const PackShardResult result = write_pack_shard(dir / "checked.tar", plan.entries, verify);
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.failed_sample, 1);
  EXPECT_EQ(result.samples, 1);
  EXPECT_EQ(result.error.rfind((root / "cat" / "garbage.jpg").string() + ": ", 0), 0u) << result.error;
  EXPECT_FALSE(fs::exists(dir / "checked.tar"));
  EXPECT_FALSE(fs::exists(dir / "checked.tar.idx"));
  std::vector<std::string> left;  // no temporary left behind either
  for (const auto& f : fs::directory_iterator(dir.path())) left.push_back(f.path().filename().string());
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, (std::vector<std::string>{"raw.tar", "raw.tar.idx", "train"}));
}

TEST(PackTest, ShardPath) {
  EXPECT_EQ(shard_path("out/s-%06d.tar", 42), "out/s-000042.tar");
  EXPECT_EQ(shard_path("s-%3d-100%%.tar", 7), "s-  7-100%.tar");
  EXPECT_EQ(loom::test::error_code_of([] { shard_path("s.tar", 0); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(loom::test::error_code_of([] { shard_path("s-%d-%d.tar", 0); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(loom::test::error_code_of([] { shard_path("s-%x.tar", 0); }), ErrorCode::kInvalidInput);
}

}  // namespace
}  // namespace loom::loader
