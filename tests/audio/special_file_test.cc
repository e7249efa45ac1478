// Paths that are not regular files (CATALOG.md 45c): the audio entry points refuse them before FFmpeg,
// libsndfile or libsox opens them.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "loom/audio/effects.h"
#include "loom/audio/info.h"
#include "loom/audio/load.h"
#include "special_file.h"
#include "test_media.h"

namespace loom::audio {
namespace {
using loom::test::kRefusedAsSpecial;
using loom::test::make_fifo;
using loom::test::outcome_on_fifo;
using loom::test::TempDir;

TEST(SpecialFileTest, InfoLoadAndFileEffectsRefuseAFifoWithoutBlocking) {
  TempDir dir;
  const auto fifo = make_fifo(dir / "pipe.wav");
  EXPECT_EQ(outcome_on_fifo(fifo, [&] { info(fifo); }), kRefusedAsSpecial);
  EXPECT_EQ(outcome_on_fifo(fifo, [&] { load(fifo); }), kRefusedAsSpecial);
  EXPECT_EQ(outcome_on_fifo(fifo, [&] { apply_effects_file(fifo, {{"gain", {"-3"}}}); }), kRefusedAsSpecial);
}

TEST(SpecialFileTest, ACharacterDeviceIsRefusedNotRead) {
  EXPECT_EQ(test::error_code_of([] { info("/dev/zero"); }), ErrorCode::kIo);
  EXPECT_EQ(test::error_code_of([] { load("/dev/zero"); }), ErrorCode::kIo);
}

}  // namespace
}  // namespace loom::audio
