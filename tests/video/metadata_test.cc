// video::read_metadata on every file of the video corpus, compared with ffprobe; refusals.
#include "loom/video/metadata.h"

#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <string>
#include <vector>

#include "../codec/ffprobe_util.h"
#include "loom/codec/error.h"
#include "test_media.h"

namespace loom::video {
namespace {
namespace fs = std::filesystem;
using loom::test::FfprobeInfo;

std::vector<fs::path> video_files() {
  return loom::test::files_in(loom::test::media("video"));
}

class VideoMetadataCorpusTest : public ::testing::TestWithParam<fs::path> {};

TEST_P(VideoMetadataCorpusTest, MatchesFfprobe) {
  const fs::path file = GetParam();
  const FfprobeInfo ff(file);
  const int v = ff.best("video");
  ASSERT_GE(v, 0) << "ffprobe finds no video stream";
  const VideoMetadata m = read_metadata(file);

  EXPECT_EQ(m.stream.index, v);
  EXPECT_EQ(m.container, ff.str("format.format_name"));
  EXPECT_EQ(m.stream.codec, ff.stream(v, "codec_name"));
  EXPECT_EQ(m.stream.width, ff.stream_number(v, "width").value_or(-1));
  EXPECT_EQ(m.stream.height, ff.stream_number(v, "height").value_or(-1));
  EXPECT_EQ(m.stream.pixel_format, ff.stream(v, "pix_fmt"));
  EXPECT_NEAR(m.stream.average_fps, ff.stream_rational(v, "avg_frame_rate"), 1e-9)
      << "ffprobe avg_frame_rate " << ff.stream(v, "avg_frame_rate");
  EXPECT_EQ(m.stream.num_frames, static_cast<int64_t>(ff.stream_number(v, "nb_frames").value_or(0)));

  const auto stream_duration = ff.stream_number(v, "duration");
  const double want_duration = stream_duration ? *stream_duration : ff.number("format.duration").value_or(-1);
  EXPECT_NEAR(m.stream.duration_seconds, want_duration, 1.5e-6);

  int audio_streams = 0;
  for (int i = 0; i < ff.num_streams(); ++i) audio_streams += ff.stream(i, "codec_type") == "audio";
  EXPECT_EQ(static_cast<int>(m.audio_streams.size()), audio_streams);
}

INSTANTIATE_TEST_SUITE_P(Corpus, VideoMetadataCorpusTest, ::testing::ValuesIn(video_files()),
                         [](const ::testing::TestParamInfo<fs::path>& p) {
                           std::string name = p.param.filename().string();
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

TEST(VideoMetadataTest, CorpusIsNotEmpty) {
  EXPECT_GE(video_files().size(), 15u);
}

TEST(VideoMetadataTest, FirstVideoStreamOfAMultiStreamFile) {
  // nasa_13013.mp4 holds two video streams (0: 320x180, 3: 480x270); the first is described.
  const fs::path file = loom::test::media("video/nasa_13013.mp4");
  const FfprobeInfo ff(file);
  const VideoMetadata m = read_metadata(file);
  EXPECT_EQ(m.stream.index, ff.best("video"));
  EXPECT_EQ(m.stream.width, ff.stream_number(ff.best("video"), "width").value_or(-1));
}

TEST(VideoMetadataTest, AudioOnlyFileIsInvalidInput) {
  for (const char* rel : {"audio/sine_mono_s16.wav", "audio/exo_bear.flac", "audio/tfio_gs-16b-2c-44100hz.mp4",
                          "audio/exo_bear-flac-24bit.mka", "audio/nasa_13013.mp4.audio.mp3"}) {
    const fs::path file = loom::test::media(rel);
    ASSERT_LT(FfprobeInfo(file).best("video"), 0) << rel << " has video according to ffprobe";
    try {
      read_metadata(file);
      ADD_FAILURE() << rel << ": read_metadata returned";
    } catch (const loom::Error& e) {
      EXPECT_EQ(e.code(), loom::ErrorCode::kInvalidInput) << e.what();
      EXPECT_EQ(e.input(), file.string());
    }
  }
}

TEST(VideoMetadataTest, MissingAndNonMediaFiles) {
  loom::test::TempDir dir;
  try {
    read_metadata(dir / "missing.mp4");
    ADD_FAILURE() << "read_metadata of a missing file returned";
  } catch (const loom::Error& e) {
    EXPECT_EQ(e.code(), loom::ErrorCode::kIo);
    EXPECT_EQ(e.input(), (dir / "missing.mp4").string());
  }
  const std::string text = "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\n" +
                           loom::test::media("video/nasa_13013.mp4").string() + "\n#EXT-X-ENDLIST\n";
  loom::test::write_bytes(dir / "list.mp4", std::vector<uint8_t>(text.begin(), text.end()));
  EXPECT_THROW(read_metadata(dir / "list.mp4"), loom::Error);
}

}  // namespace
}  // namespace loom::video
