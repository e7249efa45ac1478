// Unsafe and damaged shards (tests/reference/tar_shards.py bad CASE): each is a clear loom::Error naming
// the shard and the member, through the index and the stream alike, or the documented result.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "loom/codec/error.h"
#include "loom/loader/shards.h"
#include "shard_test_util.h"
#include "test_media.h"

namespace loom::loader {
namespace {
namespace fs = std::filesystem;
using loom::test::TempDir;
using test::quoted;
using test::run_reference;

struct BadCase {
  const char* name;
  ErrorCode code;
  const char* message;  // a part of the message
};

void PrintTo(const BadCase& c, std::ostream* os) {
  *os << c.name;
}

class BadShards : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadShards, IndexAndStreamRefuseWithTheSameError) {
  const BadCase& c = GetParam();
  TempDir dir;
  const fs::path shard = dir / (std::string(c.name) + ".tar");
  run_reference(std::string("bad ") + c.name + " " + quoted(shard));

  const Error indexed = loom::test::error_of([&] { ShardDataset::open({shard.string()}); });
  EXPECT_EQ(indexed.code(), c.code) << indexed.what();
  EXPECT_EQ(indexed.input(), shard.string());
  EXPECT_NE(indexed.message().find(c.message), std::string::npos) << indexed.what();
  EXPECT_FALSE(fs::exists(index_path(shard.string())));

  std::vector<std::string> keys;
  const Error streamed = loom::test::error_of(
      [&] { for_each_sample(*local_storage(), shard.string(), [&](Record&& r) { keys.push_back(r.key); }); });
  EXPECT_EQ(streamed.code(), c.code) << streamed.what();
  EXPECT_NE(streamed.message().find(c.message), std::string::npos) << streamed.what();
  // The stream delivers the samples completed before the problem (all but the 0-byte, non-tar and
  // damaged-first-header cases start with the good samples "ok0" and "ok"; "ok" may be the one read).
  const std::string name = c.name;
  if (name == "empty" || name == "not_tar" || name == "bad_checksum") {
    EXPECT_TRUE(keys.empty());
  } else {
    ASSERT_FALSE(keys.empty());
    EXPECT_EQ(keys[0], "ok0");
  }
}

INSTANTIATE_TEST_SUITE_P(
    Catalog, BadShards,
    ::testing::Values(BadCase{"dotdot", ErrorCode::kInvalidInput, "member '../../x.jpg' has a '..' component"},
                      BadCase{"absolute", ErrorCode::kInvalidInput, "member '/abs/x.jpg' is an absolute path"},
                      BadCase{"symlink", ErrorCode::kInvalidInput, "member 'link.jpg' is a symbolic link"},
                      BadCase{"hardlink", ErrorCode::kInvalidInput, "member 'hard.jpg' is a hard link"},
                      BadCase{"chardev", ErrorCode::kInvalidInput, "member 'dev.jpg' is a character device"},
                      BadCase{"blockdev", ErrorCode::kInvalidInput, "member 'blk.jpg' is a block device"},
                      BadCase{"fifo", ErrorCode::kInvalidInput, "member 'fifo.jpg' is a FIFO"},
                      BadCase{"truncated", ErrorCode::kInvalidInput, "cut.jpg"},
                      BadCase{"truncated_header", ErrorCode::kInvalidInput, "Truncated"},
                      BadCase{"duplicate_name", ErrorCode::kInvalidInput, "already has a member 'jpg'"},
                      BadCase{"split_key", ErrorCode::kInvalidInput, "key 'a' comes back after other keys"},
                      BadCase{"empty", ErrorCode::kInvalidInput, "is empty (0 bytes)"},
                      BadCase{"not_tar", ErrorCode::kInvalidInput, "not a readable tar archive"},
                      BadCase{"bad_checksum", ErrorCode::kInvalidInput, "tar"}));

TEST(ShardRobustnessTest, EightGibDeclaredMemberIsRefusedBeforeAnyAllocation) {
  TempDir dir;
  const fs::path shard = dir / "huge.tar";
  run_reference("bad huge " + quoted(shard));
  const Error indexed = loom::test::error_of([&] { ShardDataset::open({shard.string()}); });
  EXPECT_EQ(indexed.code(), ErrorCode::kInvalidInput);
  EXPECT_NE(indexed.message().find("member 'huge.jpg' declares 8589934592 bytes"), std::string::npos) << indexed.what();
  // The stream reads what is there, growing its buffer with the data, and stops at the truncation
  // (under the default 4 GiB member limit the 8 GiB member is refused first).
  const Error streamed =
      loom::test::error_of([&] { for_each_sample(*local_storage(), shard.string(), [](Record&&) {}); });
  EXPECT_EQ(streamed.code(), ErrorCode::kLimitExceeded) << streamed.what();
  Limits unlimited;
  unlimited.max_bytes = 0;
  const Error cut = loom::test::error_of([&] {
    for_each_sample(
        *local_storage(), shard.string(), [](Record&&) {}, unlimited);
  });
  EXPECT_EQ(cut.code(), ErrorCode::kInvalidInput) << cut.what();
}

TEST(ShardRobustnessTest, AShardOfOnlyEndBlocksHasNoSamples) {
  TempDir dir;
  const fs::path shard = dir / "end_only.tar";
  run_reference("bad end_only " + quoted(shard));
  const auto d = ShardDataset::open({shard.string()});
  EXPECT_EQ(d->size(), 0);
  int n = 0;
  for_each_sample(*local_storage(), shard.string(), [&](Record&&) { ++n; });
  EXPECT_EQ(n, 0);
}

TEST(ShardRobustnessTest, BadLabelsAndAnnotationsNameTheMember) {
  TempDir dir;
  for (const char* c : {"bad_cls", "bad_json"}) {
    const fs::path shard = dir / (std::string(c) + ".tar");
    run_reference(std::string("bad ") + c + " " + quoted(shard));
    const auto d = ShardDataset::open({shard.string()});  // indexing reads no member
    ASSERT_EQ(d->size(), 1);
    const Error e = loom::test::error_of([&] { d->read(0); });
    EXPECT_EQ(e.code(), ErrorCode::kInvalidInput);
    EXPECT_EQ(e.input(), shard.string() + (std::string(c) == "bad_cls" ? ":x.cls" : ":x.json"));
  }
}

TEST(ShardRobustnessTest, ArbitraryBytesThroughMemoryStorage) {
  // What the fuzzer does, on a few fixed inputs: every outcome is a success or a loom::Error.
  auto storage = std::make_shared<MemoryStorage>();
  ShardOptions options;
  options.storage = storage;
  for (uint32_t seed = 0; seed < 50; ++seed) {
    std::vector<uint8_t> bytes = loom::test::pseudo_random_bytes(512 * (1 + seed % 7), seed);
    if (seed % 2) std::copy_n("ustar", 5, bytes.begin() + 257);  // looks like a header
    storage->put("s.tar", bytes);
    try {
      const auto d = ShardDataset::open({"s.tar"}, options);
      for (int64_t i = 0; i < d->size(); ++i) d->read(i);
    } catch (const Error&) {
    }
  }
}

}  // namespace
}  // namespace loom::loader
