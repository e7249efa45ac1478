// Paths that are not regular files (CATALOG.md 45c): sniff_file and probe_container refuse them before
// opening, as ByteSource::from_file does.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "loom/codec/media_probe.h"
#include "loom/codec/sniff.h"
#include "special_file.h"
#include "test_media.h"

namespace loom {
namespace {
using loom::test::kRefusedAsSpecial;
using loom::test::make_fifo;
using loom::test::outcome_on_fifo;
using loom::test::TempDir;

TEST(SpecialFileTest, SniffFileRefusesAFifoWithoutBlocking) {
  TempDir dir;
  const auto fifo = make_fifo(dir / "pipe.jpg");
  EXPECT_EQ(outcome_on_fifo(fifo, [&] { sniff_file(fifo); }), kRefusedAsSpecial);
}

TEST(SpecialFileTest, ProbeContainerRefusesAFifoWithoutBlocking) {
  TempDir dir;
  const auto fifo = make_fifo(dir / "pipe.mp4");
  EXPECT_EQ(outcome_on_fifo(fifo, [&] { probe_container(fifo); }), kRefusedAsSpecial);
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
