// WebDataset shards written by Python's tarfile (GNU, pax, ustar; plain and compressed) read through
// the index and the stream exactly as tarfile + webdataset's grouping read them; the index against
// tarfile's offsets; invalidation; brace expansion; the member-name split against webdataset's regex.
#include "loom/loader/shards.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "loom/codec/error.h"
#include "shard_test_util.h"
#include "test_media.h"

namespace loom::loader {
namespace {
namespace fs = std::filesystem;
using loom::test::TempDir;
using test::as_json;
using test::quoted;
using test::run_reference;

nlohmann::json reference(const fs::path& shard) {
  return nlohmann::json::parse(run_reference("read " + quoted(shard)));
}

nlohmann::json streamed(const Storage& storage, const std::string& shard) {
  nlohmann::json out = nlohmann::json::array();
  for_each_sample(storage, shard, [&](Record&& r) { out.push_back(as_json(r)); });
  return out;
}

nlohmann::json indexed(const ShardDataset& d) {
  nlohmann::json out = nlohmann::json::array();
  for (int64_t i = 0; i < d.size(); ++i) out.push_back(as_json(d.read(i)));
  return out;
}

class ShardFormats : public ::testing::TestWithParam<const char*> {};

TEST_P(ShardFormats, IndexAndStreamReadWhatTarfileAndWebdatasetRead) {
  TempDir dir;
  const fs::path shard = dir / (std::string(GetParam()) + ".tar");
  run_reference(std::string("write ") + GetParam() + " " + quoted(shard));
  const nlohmann::json want = reference(shard);
  ASSERT_GT(want["samples"].size(), 5u);

  EXPECT_EQ(streamed(*local_storage(), shard.string()), want["samples"]);
  const auto d = ShardDataset::open({shard.string()});
  EXPECT_EQ(indexed(*d), want["samples"]);
  EXPECT_TRUE(fs::exists(index_path(shard.string())));

  // Every indexed member sits where tarfile says its data is.
  const ShardIndex& index = d->index(0);
  size_t checked = 0;
  for (const IndexedSample& s : index.samples) {
    for (const IndexedMember& m : s.members) {
      bool found = false;
      for (const auto& t : want["members"]) {
        const std::optional<SampleName> split = split_member_path(t[0].get<std::string>());
        if (split && split->key == s.key && split->name == m.name) {
          EXPECT_EQ(m.offset, t[1].get<uint64_t>()) << s.key << "." << m.name;
          EXPECT_EQ(m.size, t[2].get<uint64_t>()) << s.key << "." << m.name;
          found = true;
        }
      }
      EXPECT_TRUE(found) << s.key << "." << m.name;
      ++checked;
    }
  }
  EXPECT_GT(checked, 10u);

  // Labels and annotations come from .cls and .json.
  const Record first = d->read(0);
  EXPECT_EQ(first.key, "cat/001");
  EXPECT_EQ(first.source, shard.string());
  EXPECT_EQ(first.label, 0);
  EXPECT_EQ(first.annotations, R"({"boxes": [[1, 2, 3, 4]], "caption": "a cat"})");
  EXPECT_EQ(d->read(1).label, 1);  // " 1\n"
  EXPECT_FALSE(d->read(2).label.has_value());
  EXPECT_EQ(first.members[0].bytes.name(), shard.string() + ":cat/001.jpg");
  EXPECT_EQ(d->name(0), shard.string() + ":cat/001");
}

INSTANTIATE_TEST_SUITE_P(Tarfile, ShardFormats, ::testing::Values("gnu", "pax", "ustar"));

TEST(ShardsTest, PaxSizeAndPathRecordsOverrideTheUstarHeader) {
  TempDir dir;
  const fs::path shard = dir / "pax.tar";
  run_reference("pax_size " + quoted(shard));
  const nlohmann::json want = reference(shard);
  ASSERT_EQ(want["samples"].size(), 2u);
  EXPECT_EQ(want["samples"][1][1][0][1].get<std::string>().size(), 1400u);  // tarfile read 700 bytes
  EXPECT_EQ(streamed(*local_storage(), shard.string()), want["samples"]);
  EXPECT_EQ(indexed(*ShardDataset::open({shard.string()})), want["samples"]);
}

TEST(ShardsTest, CompressedShardsStreamButDoNotIndex) {
  TempDir dir;
  for (const char* name : {"s.tar.gz", "s.tar.bz2", "s.tar.xz"}) {
    const fs::path shard = dir / name;
    run_reference("write pax " + quoted(shard));
    EXPECT_EQ(streamed(*local_storage(), shard.string()), reference(shard)["samples"]) << name;
    const Error e = loom::test::error_of([&] { ShardDataset::open({shard.string()}); });
    EXPECT_EQ(e.code(), ErrorCode::kUnsupported) << name;
    EXPECT_EQ(e.input(), shard.string());
    EXPECT_NE(e.message().find("compressed"), std::string::npos) << e.what();
  }
}

TEST(ShardsTest, IndexIsReusedAndRebuiltWhenTheShardChanges) {
  TempDir dir;
  const fs::path shard = dir / "s.tar";
  run_reference("write gnu " + quoted(shard));
  const ShardIndex built = load_shard_index(shard.string());
  const std::string idx = index_path(shard.string());
  ASSERT_TRUE(fs::exists(idx));
  EXPECT_EQ(parse_shard_index(std::string(std::istreambuf_iterator<char>(std::ifstream(idx).rdbuf()), {}), idx), built);

  // A valid index is read, not rebuilt: plant one whose contents differ but that is self-consistent.
  ShardIndex planted = built;
  planted.samples.resize(1);
  { std::ofstream(idx) << format_shard_index(planted, shard.string()); }
  EXPECT_EQ(load_shard_index(shard.string()).samples.size(), 1u);

  // Touching the shard (a new mtime) makes it stale: rebuilt and rewritten.
  fs::last_write_time(shard, fs::last_write_time(shard) + std::chrono::seconds(5));
  EXPECT_EQ(load_shard_index(shard.string()), load_shard_index(shard.string()));
  EXPECT_EQ(load_shard_index(shard.string()).samples, built.samples);

  // Rewriting the shard with other contents: the new samples.
  run_reference("write ustar " + quoted(shard));
  const auto d = ShardDataset::open({shard.string()});
  EXPECT_EQ(indexed(*d), reference(shard)["samples"]);

  // A damaged index (its fingerprint no longer matches) is rebuilt.
  std::string text = format_shard_index(d->index(0), shard.string());
  text.replace(text.find("cat/001"), 7, "dog/001");
  std::ofstream(idx) << text;
  EXPECT_EQ(load_shard_index(shard.string()).samples[0].key, "cat/001");
  EXPECT_EQ(loom::test::error_code_of([&] { parse_shard_index(text, idx); }), ErrorCode::kInvalidInput);
}

// Memory storage whose "ro/" folder refuses writes, as a read-only folder would, and that counts the
// range reads (a scan reads ranges; reading an index does not).
class ReadOnlyFolder final : public Storage {
 public:
  MemoryStorage memory;
  mutable std::atomic<int> ranges{0};
  ByteSource read(const std::string& p, const Limits& l) const override { return memory.read(p, l); }
  ByteSource read_range(const std::string& p, uint64_t o, uint64_t n) const override {
    ++ranges;
    return memory.read_range(p, o, n);
  }
  ObjectStamp stat(const std::string& p) const override { return memory.stat(p); }
  void write(const std::string& p, std::span<const uint8_t> b) const override {
    if (p.starts_with("ro/")) throw Error(ErrorCode::kIo, p, "read-only");
    memory.write(p, b);
  }
};

TEST(ShardsTest, IndexFolderWhenTheShardFolderIsReadOnly) {
  TempDir dir;
  run_reference("write gnu " + quoted(dir / "s.tar"));
  auto storage = std::make_shared<ReadOnlyFolder>();
  storage->memory.put("ro/s.tar", loom::test::read_bytes(dir / "s.tar"));
  ShardOptions options;
  options.storage = storage;
  options.index_folder = "cache";
  const ShardIndex index = load_shard_index("ro/s.tar", options);
  EXPECT_GT(storage->ranges.load(), 0);
  EXPECT_EQ(loom::test::error_code_of([&] { storage->stat("ro/s.tar.idx"); }), ErrorCode::kIo);

  storage->ranges = 0;
  EXPECT_EQ(load_shard_index("ro/s.tar", options), index);
  EXPECT_EQ(storage->ranges.load(), 0);  // read from the index folder, not scanned

  // Without an index folder nothing can be written: every load scans, and succeeds.
  options.index_folder.clear();
  EXPECT_EQ(load_shard_index("ro/s.tar", options), index);
  EXPECT_GT(storage->ranges.load(), 0);

  // Replacing the shard makes the cached index stale.
  run_reference("write ustar " + quoted(dir / "s.tar"));
  storage->memory.put("ro/s.tar", loom::test::read_bytes(dir / "s.tar"));
  options.index_folder = "cache";
  EXPECT_EQ(load_shard_index("ro/s.tar", options).samples.size(), index.samples.size() - 1);  // no deep/ in ustar
}

TEST(ShardsTest, DatasetOverSeveralShardsAndBracePatterns) {
  TempDir dir;
  for (int i = 0; i < 3; ++i) run_reference("write gnu " + quoted(dir / ("train-00000" + std::to_string(i) + ".tar")));
  const auto d = ShardDataset::open({(dir / "train-{000000..000002}.tar").string()});
  ASSERT_EQ(d->shards().size(), 3u);
  const int64_t per = static_cast<int64_t>(d->index(0).samples.size());
  EXPECT_EQ(d->size(), 3 * per);
  EXPECT_EQ(d->name(per), (dir / "train-000001.tar").string() + ":cat/001");
  EXPECT_EQ(d->read(2 * per + 1).key, "cat/002");
  EXPECT_EQ(loom::test::error_code_of([&] { d->read(3 * per); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(loom::test::error_code_of([&] { d->read(-1); }), ErrorCode::kInvalidInput);

  // The fingerprint follows the listing: same shards, same fingerprint; another order, another.
  const auto again = ShardDataset::open({(dir / "train-{000000..000002}.tar").string()});
  EXPECT_EQ(again->fingerprint(), d->fingerprint());
  const auto reordered = ShardDataset::open({(dir / "train-{000002,000000,000001}.tar").string()});
  EXPECT_NE(reordered->fingerprint(), d->fingerprint());
  EXPECT_EQ(reordered->size(), d->size());

  // A missing shard is the error, named.
  const Error e = loom::test::error_of([&] { ShardDataset::open({(dir / "train-{000000..000003}.tar").string()}); });
  EXPECT_EQ(e.code(), ErrorCode::kIo);
  EXPECT_EQ(e.input(), (dir / "train-000003.tar").string());
}

TEST(ShardsTest, MemberLimit) {
  TempDir dir;
  run_reference("write gnu " + quoted(dir / "s.tar"));
  ShardOptions options;
  options.limits.max_bytes = 600;
  const auto d = ShardDataset::open({(dir / "s.tar").string()}, options);
  const Error e = loom::test::error_of([&] { d->read(0); });  // cat/001.jpg is 768 bytes
  EXPECT_EQ(e.code(), ErrorCode::kLimitExceeded);
  EXPECT_EQ(e.input(), (dir / "s.tar").string() + ":cat/001.jpg");
  EXPECT_EQ(loom::test::error_code_of([&] {
              for_each_sample(
                  *local_storage(), (dir / "s.tar").string(), [](Record&&) {}, options.limits);
            }),
            ErrorCode::kLimitExceeded);
}

// ---- names ----

TEST(ShardNamesTest, SplitIsWebdatasetsRegex) {
  const std::vector<std::string> paths = {
      "a/b/x.seg.png",
      "x.jpg",
      "x.JPG",
      "x",
      "a/b/x",
      "a.b/x.png",
      "a.b/x",
      "dir.d/file",
      "a/.hidden.png",
      ".hidden.png",
      "a/b/.x",
      "a.b/.x",
      "a/.png",
      "./x.jpg",
      "x.",
      ".",
      "..",
      "a/",
      "a/b.c/",
      "__meta__",
      "__meta__/x.json",
      "__k__.jpg",
      "___",
      "____",
      "a/__m__.x",
      "__x__\n",
      "nl\nx/y.txt",
      "a/b\n/c.d",
      "x.tar.gz",
      "v1.0/d.tar.gz",
      "a..b.jpg",
      "a/..b.jpg",
      "/abs/x.jpg",
      "日本/画像.JPEG",
      "a//b.c",
      "a/b/c/d.e.f/g.h",
      "x.y/z",
      ".x.y/z.w",
      "__/x.y",
      "____/a.b",
      "_a_/x.y",
      "a\n.b",
  };
  const nlohmann::json want = nlohmann::json::parse(run_reference("split", nlohmann::json(paths).dump()));
  ASSERT_EQ(want.size(), paths.size());
  for (size_t i = 0; i < paths.size(); ++i) {
    const std::optional<SampleName> got = split_member_path(paths[i]);
    if (want[i].is_null()) {
      EXPECT_FALSE(got.has_value()) << nlohmann::json(paths[i]).dump() << " -> " << got->key << " | " << got->name;
    } else {
      ASSERT_TRUE(got.has_value()) << nlohmann::json(paths[i]).dump();
      EXPECT_EQ(got->key, want[i][0].get<std::string>()) << nlohmann::json(paths[i]).dump();
      EXPECT_EQ(got->name, want[i][1].get<std::string>()) << nlohmann::json(paths[i]).dump();
    }
  }
}

TEST(ShardNamesTest, BraceExpansion) {
  using V = std::vector<std::string>;
  EXPECT_EQ(expand_braces("train.tar"), V{"train.tar"});
  EXPECT_EQ(expand_braces("train-{000000..000003}.tar"),
            (V{"train-000000.tar", "train-000001.tar", "train-000002.tar", "train-000003.tar"}));
  EXPECT_EQ(expand_braces("{07..10}"), (V{"07", "08", "09", "10"}));
  EXPECT_EQ(expand_braces("{8..11}"), (V{"8", "9", "10", "11"}));
  EXPECT_EQ(expand_braces("{4..1}"), (V{"4", "3", "2", "1"}));
  EXPECT_EQ(expand_braces("{2..-1}"), (V{"2", "1", "0", "-1"}));
  EXPECT_EQ(expand_braces("{0..10..5}"), (V{"0", "5", "10"}));
  EXPECT_EQ(expand_braces("{a..g..2}"), (V{"a", "c", "e", "g"}));
  EXPECT_EQ(expand_braces("{a..c}"), (V{"a", "b", "c"}));
  EXPECT_EQ(expand_braces("index.html{,.backup}"), (V{"index.html", "index.html.backup"}));
  EXPECT_EQ(expand_braces("python{2.{5..7},3.{2,3}}"),
            (V{"python2.5", "python2.6", "python2.7", "python3.2", "python3.3"}));
  EXPECT_EQ(expand_braces("{a,b}-{1,2}"), (V{"a-1", "a-2", "b-1", "b-2"}));
  EXPECT_EQ(expand_braces("{x}"), V{"{x}"});
  EXPECT_EQ(expand_braces("a{b}{c,d}"), (V{"a{b}c", "a{b}d"}));
  EXPECT_EQ(expand_braces(R"({1\{2,3})"), (V{"1{2", "3"}));
  EXPECT_EQ(expand_braces("s3/{train,val}/part-{00..01}.tar"),
            (V{"s3/train/part-00.tar", "s3/train/part-01.tar", "s3/val/part-00.tar", "s3/val/part-01.tar"}));
  EXPECT_EQ(loom::test::error_code_of([] { expand_braces("{1{2,3}"); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(loom::test::error_code_of([] { expand_braces("a}b"); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(loom::test::error_code_of([] { expand_braces("{0..9999999}"); }), ErrorCode::kLimitExceeded);
  EXPECT_EQ(loom::test::error_code_of([] { expand_braces("{0..999}{0..999}{0..9}"); }), ErrorCode::kLimitExceeded);
}

}  // namespace
}  // namespace loom::loader
