// Without a stream index, every entry point picks the same stream: FFmpeg's best (av_find_best_stream,
// as TorchCodec). The file holds a small video and an 8 kHz audio stream first, then a larger video and
// a 16 kHz audio stream that carry the default disposition, which the rule ranks first; ffprobe
// confirms the layout, and the index asked for explicitly is always honoured.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "decoder_util.h"
#include "loom/audio/info.h"
#include "loom/audio/load.h"
#include "loom/codec/media_probe.h"
#include "loom/video/decoder.h"
#include "loom/video/metadata.h"

namespace loom::video {
namespace {

namespace fs = std::filesystem;

// Made once per test process, in a folder of its own: ctest runs these tests as parallel processes.
const fs::path& two_of_each() {
  static const loom::test::TempDir folder;
  static const fs::path path = [] {
    const fs::path p = folder / "two_of_each.mkv";
    const std::string cmd =
        "ffmpeg -v error -y -f lavfi -i testsrc=size=64x48:rate=10:duration=1 "
        "-f lavfi -i testsrc2=size=96x64:rate=10:duration=1 "
        "-f lavfi -i sine=frequency=440:sample_rate=8000:duration=1 "
        "-f lavfi -i sine=frequency=1000:sample_rate=16000:duration=1 "
        "-map 0:v -map 2:a -map 1:v -map 3:a -c:v libx264 -c:a flac "
        "-disposition:v:0 0 -disposition:v:1 default -disposition:a:0 0 -disposition:a:1 default " +
        p.string();
    EXPECT_EQ(std::system(cmd.c_str()), 0);
    return p;
  }();
  return path;
}

TEST(DefaultStream, EveryEntryPointPicksFfmpegsBest) {
  const fs::path& file = two_of_each();
  const loom::test::FfprobeInfo ff(file);
  ASSERT_EQ(ff.stream(0, "disposition.default"), "0");
  ASSERT_EQ(ff.stream(2, "disposition.default"), "1");
  ASSERT_EQ(ff.best("video"), 2);
  ASSERT_EQ(ff.best("audio"), 3);

  const ContainerInfo container = probe_container(file);
  EXPECT_EQ(container.best_video, 2);
  EXPECT_EQ(container.best_audio, 3);
  EXPECT_EQ(read_metadata(file).stream.index, 2);
  const VideoDecoder decoder = VideoDecoder::open(file);
  EXPECT_EQ(decoder.metadata().stream.index, 2);
  EXPECT_EQ(decoder.metadata().stream.width, 96);
  EXPECT_EQ(audio::info(file).stream_index, 3);
  EXPECT_EQ(audio::load(file).sample_rate, 16000);
}

TEST(DefaultStream, AnAskedForStreamIsHonoured) {
  const fs::path& file = two_of_each();
  DecoderOptions options;
  options.stream_index = 0;
  EXPECT_EQ(VideoDecoder::open(file, options).metadata().stream.width, 64);
  audio::LoadOptions load;
  load.stream_index = 1;
  EXPECT_EQ(audio::load(file, load).sample_rate, 8000);
  EXPECT_EQ(audio::info(file, {}, 1).sample_rate, 8000);
  try {
    audio::info(file, {}, 0);
    FAIL() << "a video stream was described as audio";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("stream 0 is not an audio stream"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace loom::video
