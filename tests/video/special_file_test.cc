// Paths that are not regular files (CATALOG.md 45c): VideoDecoder::open refuses them before FFmpeg opens
// them.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "loom/video/decoder.h"
#include "special_file.h"
#include "test_media.h"

namespace loom::video {
namespace {
using loom::test::kRefusedAsSpecial;
using loom::test::make_fifo;
using loom::test::outcome_on_fifo;
using loom::test::TempDir;

TEST(SpecialFileTest, OpenRefusesAFifoWithoutBlocking) {
  TempDir dir;
  const auto fifo = make_fifo(dir / "pipe.mp4");
  EXPECT_EQ(outcome_on_fifo(fifo, [&] { VideoDecoder::open(fifo); }), kRefusedAsSpecial);
  EXPECT_EQ(test::error_code_of([] { VideoDecoder::open("/dev/zero"); }), ErrorCode::kIo);
}

}  // namespace
}  // namespace loom::video
