// TarWriter: shards Python's tarfile reads back identically (names, bytes, deterministic headers),
// byte-identical for equal inputs, with an index equal to a fresh scan; refused samples; atomicity.
#include "loom/loader/tar_writer.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
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
using test::hex;
using test::quoted;
using test::run_reference;

std::vector<uint8_t> bytes_of(const std::string& s) {
  return {s.begin(), s.end()};
}

struct Sample {
  std::string key;
  std::vector<std::pair<std::string, std::vector<uint8_t>>> members;
};

std::vector<Sample> samples() {
  return {
      {"cat/001", {{"jpg", loom::test::pseudo_random_bytes(5000, 1)}, {"cls", bytes_of("3")}}},
      {"cat/002", {{"png", loom::test::pseudo_random_bytes(512, 2)}, {"json", bytes_of(R"({"a": [1, 2]})")}}},
      {"a/b/x", {{"seg.png", loom::test::pseudo_random_bytes(1, 3)}, {"jpg", {}}}},
      {"long/" + std::string(120, 'd') + "/s", {{"txt", bytes_of("past 100 bytes")}}},
      {"deep/" + std::string(300, 'e'), {{"bin", bytes_of("past 255 bytes")}}},
      {"unicode/\u00fcn\u00efc\u00f6d\u00e9/\u65e5\u672c", {{"txt", bytes_of("\u65e5\u672c")}}},
  };
}

void write_shard(const fs::path& path, const std::vector<Sample>& ss, const TarWriterOptions& options = {}) {
  TarWriter w = TarWriter::create(path, options);
  for (const Sample& s : ss) {
    std::vector<TarMember> members;
    for (const auto& [name, data] : s.members) members.push_back({name, data});
    w.write(s.key, members);
  }
  EXPECT_EQ(w.samples(), static_cast<int64_t>(ss.size()));
  w.commit();
}

TEST(TarWriterTest, TarfileReadsItBackIdentically) {
  TempDir dir;
  const fs::path shard = dir / "w.tar";
  write_shard(shard, samples());
  const nlohmann::json got = nlohmann::json::parse(run_reference("read " + quoted(shard)));
  nlohmann::json want_members = nlohmann::json::array(), want_samples = nlohmann::json::array();
  for (const Sample& s : samples()) {
    nlohmann::json members = nlohmann::json::array();
    for (const auto& [name, data] : s.members) {
      want_members.push_back(s.key + "." + name);
      members.push_back({name, hex(data)});
    }
    want_samples.push_back({s.key, members});
  }
  nlohmann::json names = nlohmann::json::array();
  for (const auto& m : got["members"]) names.push_back(m[0]);
  EXPECT_EQ(names, want_members);
  EXPECT_EQ(got["samples"], want_samples);
  EXPECT_EQ(fs::file_size(shard) % 10240, 0u);

  // The index written with the shard is what a scan of it gives, and current.
  const std::string idx = index_path(shard.string());
  ASSERT_TRUE(fs::exists(idx));
  const ShardIndex written = parse_shard_index(
      std::string(std::istreambuf_iterator<char>(std::ifstream(idx).rdbuf()), std::istreambuf_iterator<char>()), idx);
  EXPECT_EQ(written, build_shard_index(shard.string()));
  EXPECT_EQ(written.stamp, local_storage()->stat(shard.string()));
  // Its offsets are where tarfile finds the data.
  size_t m = 0;
  for (const IndexedSample& s : written.samples) {
    for (const IndexedMember& member : s.members) EXPECT_EQ(member.offset, got["members"][m++][1].get<uint64_t>());
  }
}

TEST(TarWriterTest, HeadersAreDeterministic) {
  TempDir dir;
  write_shard(dir / "a.tar", samples());
  write_shard(dir / "b.tar", samples());
  EXPECT_EQ(loom::test::read_bytes(dir / "a.tar"), loom::test::read_bytes(dir / "b.tar"));
  const std::string check = R"(
import sys, tarfile
for m in tarfile.open(sys.argv[1]):
    assert (m.mtime, m.uid, m.gid, m.uname, m.gname, m.mode, m.type) == (0, 0, 0, "", "", 0o644, tarfile.REGTYPE), m
)";
  loom::test::write_bytes(dir / "check.py", bytes_of(check));
  EXPECT_EQ(std::system(("/usr/bin/python3 " + quoted(dir / "check.py") + " " + quoted(dir / "a.tar")).c_str()), 0);
}

TEST(TarWriterTest, RefusesSamplesThatWouldNotReadBack) {
  TempDir dir;
  TarWriter w = TarWriter::create(dir / "r.tar");
  const std::vector<uint8_t> data = {1, 2, 3};
  auto code = [&](const std::string& key, std::vector<TarMember> members) {
    return loom::test::error_code_of([&] { w.write(key, members); });
  };
  EXPECT_EQ(code("a.b", {{"jpg", data}}), ErrorCode::kInvalidInput);         // dot in the key's file name
  EXPECT_EQ(code("a", {{"JPG", data}}), ErrorCode::kInvalidInput);           // reads back as "jpg"
  EXPECT_EQ(code("a", {{"x/jpg", data}}), ErrorCode::kInvalidInput);         // '/' in the name
  EXPECT_EQ(code("../a", {{"jpg", data}}), ErrorCode::kInvalidInput);        // escapes
  EXPECT_EQ(code("/a", {{"jpg", data}}), ErrorCode::kInvalidInput);          // absolute
  EXPECT_EQ(code("__meta__/a", {{"jpg", data}}), ErrorCode::kInvalidInput);  // skipped by readers
  EXPECT_EQ(code("a", {}), ErrorCode::kInvalidInput);
  EXPECT_EQ(code("a", {{"jpg", data}, {"jpg", data}}), ErrorCode::kInvalidInput);
  EXPECT_EQ(code("\xff", {{"jpg", data}}), ErrorCode::kInvalidInput);  // not UTF-8
  w.write("a", std::vector<TarMember>{{"jpg", data}});
  EXPECT_EQ(code("a", {{"cls", data}}), ErrorCode::kInvalidInput);  // key written before
  w.commit();
  const auto d = ShardDataset::open({(dir / "r.tar").string()});
  ASSERT_EQ(d->size(), 1);  // nothing of the refused samples was written
  EXPECT_EQ(d->read(0).key, "a");
}

TEST(TarWriterTest, NothingAppearsUntilCommitAndAbandonLeavesNothing) {
  TempDir dir;
  const std::vector<uint8_t> data = {1, 2, 3};
  {
    TarWriter w = TarWriter::create(dir / "x.tar");
    w.write("a", std::vector<TarMember>{{"jpg", data}});
    EXPECT_FALSE(fs::exists(dir / "x.tar"));
  }  // destroyed uncommitted
  EXPECT_TRUE(fs::is_empty(dir.path()));
  {
    TarWriter w = TarWriter::create(dir / "x.tar");
    w.write("a", std::vector<TarMember>{{"jpg", data}});
    w.abandon();
    EXPECT_EQ(loom::test::error_code_of([&] {
                w.write("b", std::vector<TarMember>{{"jpg", data}});
              }),
              ErrorCode::kInvalidInput);
  }
  EXPECT_TRUE(fs::is_empty(dir.path()));

  write_shard(dir / "x.tar", {{"a", {{"jpg", data}}}});
  TarWriterOptions keep;
  keep.overwrite = false;
  EXPECT_EQ(loom::test::error_code_of([&] { TarWriter::create(dir / "x.tar", keep); }), ErrorCode::kIo);
  TarWriterOptions no_index;
  no_index.write_index = false;
  write_shard(dir / "y.tar", {{"a", {{"jpg", data}}}}, no_index);
  EXPECT_FALSE(fs::exists(dir / "y.tar.idx"));
}

}  // namespace
}  // namespace loom::loader
