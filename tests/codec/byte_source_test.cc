// ByteSource (files read into memory, memory buffers).
#include "loom/codec/byte_source.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "loom/codec/error.h"
#include "special_file.h"
#include "test_media.h"

namespace loom {
namespace {
using loom::test::error_of;
namespace fs = std::filesystem;
using loom::test::pseudo_random_bytes;
using loom::test::read_bytes;
using loom::test::TempDir;
using loom::test::write_bytes;

std::vector<uint8_t> to_vector(const ByteSource& s) {
  return {s.data(), s.data() + s.size()};
}

// ---- from_file ----

TEST(ByteSourceTest, SmallFileIsReadWhole) {
  TempDir dir;
  const auto bytes = pseudo_random_bytes(4097, 1);
  write_bytes(dir / "small.bin", bytes);
  const ByteSource src = ByteSource::from_file(dir / "small.bin");
  EXPECT_EQ(src.size(), bytes.size());
  EXPECT_EQ(to_vector(src), bytes);
  EXPECT_EQ(src.name(), (dir / "small.bin").string());
  EXPECT_EQ(src.bytes().data(), src.data());
  EXPECT_EQ(src.bytes().size(), src.size());
}

// Sizes around the block cache's threshold (64 KiB, block_cache.h) and the old mapping threshold (1 MiB).
TEST(ByteSourceTest, FilesAroundTheBufferThresholds) {
  TempDir dir;
  for (size_t n : {(size_t{64} << 10) - 1, size_t{64} << 10, (size_t{64} << 10) + 1, (size_t{1} << 20) - 1,
                   size_t{1} << 20, (size_t{1} << 20) + 1, size_t{20} << 20}) {
    const auto bytes = pseudo_random_bytes(n, static_cast<uint32_t>(n));
    const fs::path p = dir / ("f" + std::to_string(n));
    write_bytes(p, bytes);
    const ByteSource src = ByteSource::from_file(p);
    ASSERT_EQ(src.size(), n);
    EXPECT_EQ(to_vector(src), bytes) << n << " bytes";
  }
}

TEST(ByteSourceTest, RealMediaMatchesTheFileBytes) {
  for (const char* rel :
       {"images/jpeg/hopper.jpg", "images/jpeg/xmp_test.jpg", "video/nasa_13013.mp4", "audio/sine_16ch_s16.wav"}) {
    const fs::path p = loom::test::media(rel);
    const ByteSource src = ByteSource::from_file(p);
    EXPECT_EQ(src.size(), fs::file_size(p)) << rel;
    EXPECT_TRUE(to_vector(src) == read_bytes(p)) << rel;
  }
}

TEST(ByteSourceTest, CopiesShareBytesAndOutliveTheOriginal) {
  TempDir dir;
  for (size_t n : {size_t{100}, size_t{20} << 20}) {  // a small block and a cached one
    const auto bytes = pseudo_random_bytes(n, 7);
    write_bytes(dir / "x", bytes);
    ByteSource copy;
    {
      const ByteSource src = ByteSource::from_file(dir / "x");
      copy = src;
      EXPECT_EQ(copy.data(), src.data());
    }
    fs::remove(dir / "x");
    EXPECT_EQ(to_vector(copy), bytes) << n;
  }
}

// Another process may truncate or rewrite a file at any time (CATALOG.md 55i). A source is a snapshot:
// touching its bytes afterwards is safe (a mapping of the file faulted with SIGBUS past the new end).
TEST(ByteSourceTest, ASourceOutlivesATruncationOrRewriteOfItsFile) {
  TempDir dir;
  for (size_t n : {size_t{5000}, size_t{3} << 20, size_t{20} << 20}) {
    const auto bytes = pseudo_random_bytes(n, 11);
    write_bytes(dir / "x", bytes);
    const ByteSource src = ByteSource::from_file(dir / "x");
    fs::resize_file(dir / "x", 0);
    EXPECT_EQ(to_vector(src), bytes) << n;
    write_bytes(dir / "x", pseudo_random_bytes(n, 12));
    EXPECT_EQ(to_vector(src), bytes) << n;
  }
}

TEST(ByteSourceTest, EmptyFileGivesAnEmptySource) {
  TempDir dir;
  write_bytes(dir / "empty", {});
  const ByteSource src = ByteSource::from_file(dir / "empty");
  EXPECT_EQ(src.size(), 0u);
  EXPECT_TRUE(src.bytes().empty());
  EXPECT_EQ(src.name(), (dir / "empty").string());
}

TEST(ByteSourceTest, MissingFileIsIoNamingThePath) {
  TempDir dir;
  const fs::path p = dir / "no-such-file.jpg";
  const Error e = error_of([&] { ByteSource::from_file(p); });
  EXPECT_EQ(e.code(), ErrorCode::kIo);
  EXPECT_EQ(e.input(), p.string());
  EXPECT_NE(std::string(e.what()).find(p.string()), std::string::npos) << e.what();
}

TEST(ByteSourceTest, FolderIsIo) {
  TempDir dir;
  const Error e = error_of([&] { ByteSource::from_file(dir.path()); });
  EXPECT_EQ(e.code(), ErrorCode::kIo);
  EXPECT_EQ(e.input(), dir.path().string());
}

TEST(ByteSourceTest, CharacterDeviceIsIo) {
  const Error e = error_of([] { ByteSource::from_file("/dev/null"); });
  EXPECT_EQ(e.code(), ErrorCode::kIo);
  EXPECT_EQ(e.input(), "/dev/null");
}

// A FIFO is "not a regular file": from_file must refuse it, not block forever in open() waiting for a
// writer (the design: nothing hangs because an input was bad).
TEST(ByteSourceTest, FifoIsRefusedWithoutBlocking) {
  TempDir dir;
  const fs::path fifo = loom::test::make_fifo(dir / "pipe");
  EXPECT_EQ(loom::test::outcome_on_fifo(fifo, [&] { ByteSource::from_file(fifo); }), loom::test::kRefusedAsSpecial);
}

TEST(ByteSourceTest, MaxBytesLimit) {
  TempDir dir;
  write_bytes(dir / "k", pseudo_random_bytes(1000, 3));
  Limits at_limit;
  at_limit.max_bytes = 1000;
  EXPECT_EQ(ByteSource::from_file(dir / "k", at_limit).size(), 1000u);
  Limits below;
  below.max_bytes = 999;
  const Error e = error_of([&] { ByteSource::from_file(dir / "k", below); });
  EXPECT_EQ(e.code(), ErrorCode::kLimitExceeded);
  EXPECT_EQ(e.input(), (dir / "k").string());
  Limits off;
  off.max_bytes = 0;
  EXPECT_EQ(ByteSource::from_file(dir / "k", off).size(), 1000u);
  // Large files obey the limit too.
  write_bytes(dir / "big", pseudo_random_bytes(size_t{2} << 20, 4));
  Limits one_mib;
  one_mib.max_bytes = 1 << 20;
  EXPECT_EQ(error_of([&] { ByteSource::from_file(dir / "big", one_mib); }).code(), ErrorCode::kLimitExceeded);
}

TEST(ByteSourceTest, SymlinkToAFileReadsTheTarget) {
  TempDir dir;
  const auto bytes = pseudo_random_bytes(321, 9);
  write_bytes(dir / "target", bytes);
  fs::create_symlink(dir / "target", dir / "link");
  EXPECT_EQ(to_vector(ByteSource::from_file(dir / "link")), bytes);
}

// ---- memory ----

TEST(ByteSourceTest, FromMemoryBorrows) {
  const std::vector<uint8_t> bytes = {1, 2, 3, 4};
  const ByteSource src = ByteSource::from_memory(bytes);
  EXPECT_EQ(src.data(), bytes.data());
  EXPECT_EQ(src.size(), 4u);
  EXPECT_EQ(src.name(), "<memory>");
  const ByteSource named = ByteSource::from_memory(bytes, "upload #3");
  EXPECT_EQ(named.name(), "upload #3");
  EXPECT_EQ(named.data(), bytes.data());
}

TEST(ByteSourceTest, FromVectorOwnsWithoutCopying) {
  std::vector<uint8_t> bytes = pseudo_random_bytes(5000, 11);
  const std::vector<uint8_t> expected = bytes;
  const uint8_t* original = bytes.data();
  ByteSource copy;
  {
    const ByteSource src = ByteSource::from_vector(std::move(bytes), "vec");
    EXPECT_EQ(src.data(), original);  // moved in, not copied
    copy = src;
  }
  EXPECT_EQ(copy.name(), "vec");
  EXPECT_EQ(to_vector(copy), expected);
  EXPECT_EQ(ByteSource::from_vector({}).size(), 0u);
}

TEST(ByteSourceTest, RenamedSharesTheBytes) {
  const std::vector<uint8_t> expected = pseudo_random_bytes(300, 12);
  ByteSource renamed;
  {
    const ByteSource src = ByteSource::from_vector(expected, "shard.tar");
    renamed = src.renamed("shard.tar:key.jpg");
    EXPECT_EQ(renamed.data(), src.data());
    EXPECT_EQ(src.name(), "shard.tar");
  }
  EXPECT_EQ(renamed.name(), "shard.tar:key.jpg");
  EXPECT_EQ(to_vector(renamed), expected);  // still owned after the original went away
}

TEST(ByteSourceTest, DefaultIsEmpty) {
  const ByteSource src;
  EXPECT_EQ(src.size(), 0u);
  EXPECT_TRUE(src.name().empty());
}

}  // namespace
}  // namespace loom
