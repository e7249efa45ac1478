// Paths that are not regular files (CATALOG.md 45c): sniff_file and probe_container refuse them before
// opening, as ByteSource::from_file does.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "loom/codec/media_probe.h"
#include "loom/codec/sniff.h"
#include "special_file.h"
#include "test_media.h"

namespace loom {
namespace {
using loom::test::outcome_on_fifo;
using loom::test::TempDir;

constexpr const char* kRefused = "io: is not a regular file";

TEST(SpecialFileTest, SniffFileRefusesAFifoWithoutBlocking) {
  TempDir dir;
  const auto fifo = dir / "pipe.jpg";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(outcome_on_fifo(fifo, [&] { sniff_file(fifo); }), kRefused);
}

TEST(SpecialFileTest, ProbeContainerRefusesAFifoWithoutBlocking) {
  TempDir dir;
  const auto fifo = dir / "pipe.mp4";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(outcome_on_fifo(fifo, [&] { probe_container(fifo); }), kRefused);
}

TEST(SpecialFileTest, CharacterDevicesAreRefusedNotRead) {
  EXPECT_EQ(test::error_code_of([] { sniff_file("/dev/zero"); }), ErrorCode::kIo);
  EXPECT_EQ(test::error_code_of([] { probe_container("/dev/zero"); }), ErrorCode::kIo);
}

TEST(SpecialFileTest, RegularFilesAndMissingOnesAreUnchanged) {
  EXPECT_EQ(sniff_file(test::media("images/png/tiny.png")), Format::kPng);
  EXPECT_EQ(sniff_file("/nonexistent/loom-missing.png"), Format::kUnknown);  // unreadable: kUnknown, as before
}

}  // namespace
}  // namespace loom
