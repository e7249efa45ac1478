// audio::info on every file of the audio corpus, compared with ffprobe; refusals.
#include "loom/audio/info.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "../codec/ffprobe_util.h"
#include "loom/codec/error.h"
#include "test_media.h"

namespace loom::audio {
namespace {
namespace fs = std::filesystem;
using loom::test::FfprobeInfo;

std::vector<fs::path> audio_files() {
  return loom::test::files_in(loom::test::media("audio"));
}

// torchaudio's encoding word for each file of the corpus, from what the file is (SOURCES.md / its name).
const std::map<std::string, std::string>& expected_encodings() {
  static const std::map<std::string, std::string> kEncodings = {
      {"exo_bear-flac-24bit.mka", "FLAC"},
      {"exo_bear.flac", "FLAC"},
      {"exo_bear.opus", "OPUS"},
      {"exo_bear_vorbis.ogg", "VORBIS"},
      {"exo_dash_emsg_sample.audio.mp4", "AAC"},
      {"exo_sample.adts", "AAC"},
      {"exo_sample_ima_adpcm.wav", "ADPCM"},
      {"exo_sample_rf64.wav", "PCM_S"},
      {"nasa_13013.mp4.audio.mp3", "MP3"},
      {"pluck-alaw.aifc", "ALAW"},
      {"pluck-pcm16.aiff", "PCM_S"},
      {"pluck-pcm16.wav", "PCM_S"},
      {"pluck-pcm24.wav", "PCM_S"},
      {"pluck-pcm32.wav", "PCM_S"},
      {"pluck-pcm8.wav", "PCM_U"},
      {"pluck-ulaw.au", "ULAW"},
      {"sine_16ch_s16.wav", "PCM_S"},
      {"sine_mono_f32.wav", "PCM_F"},
      {"sine_mono_s16.wav", "PCM_S"},
      {"sine_mono_s32.wav", "PCM_S"},
      {"sine_mono_s32_44100.wav", "PCM_S"},
      {"tfio_ZASFX_ADSR_no_sustain.f32.wav", "PCM_F"},
      {"tfio_ZASFX_ADSR_no_sustain.flac", "FLAC"},
      {"tfio_ZASFX_ADSR_no_sustain.ogg", "VORBIS"},
      {"tfio_ZASFX_ADSR_no_sustain.s24.flac", "FLAC"},
      {"tfio_ZASFX_ADSR_no_sustain.s24.wav", "PCM_S"},
      {"tfio_ZASFX_ADSR_no_sustain.wav", "PCM_S"},
      {"tfio_gs-16b-2c-44100hz.mp4", "AAC"},
  };
  return kEncodings;
}

class AudioInfoCorpusTest : public ::testing::TestWithParam<fs::path> {};

TEST_P(AudioInfoCorpusTest, MatchesFfprobe) {
  const fs::path file = GetParam();
  const FfprobeInfo ff(file);
  const int a = ff.best("audio");
  ASSERT_GE(a, 0) << "ffprobe finds no audio stream";
  const AudioInfo info = loom::audio::info(file);

  EXPECT_EQ(info.stream_index, a);
  EXPECT_EQ(info.codec, ff.stream(a, "codec_name"));
  EXPECT_EQ(info.sample_rate, ff.stream_number(a, "sample_rate").value_or(-1));
  EXPECT_EQ(info.channels, ff.stream_number(a, "channels").value_or(-1));

  // The container word is one of ffprobe's demuxer names ("mp4" in "mov,mp4,m4a,...").
  const auto names = ff.format_names();
  EXPECT_NE(std::find(names.begin(), names.end(), info.format), names.end())
      << info.format << " vs " << ff.str("format.format_name");

  const auto enc = expected_encodings().find(file.filename().string());
  ASSERT_NE(enc, expected_encodings().end()) << "no expected encoding for " << file.filename();
  EXPECT_EQ(info.encoding, enc->second);

  // Duration: of the stream when ffprobe knows it, else of the container.
  const auto stream_duration = ff.stream_number(a, "duration");
  const double want_duration = stream_duration ? *stream_duration : ff.number("format.duration").value_or(-1);
  EXPECT_NEAR(info.duration_seconds, want_duration, 1.5e-6);
  // Frames per channel: the header's count, which is duration * sample_rate within rounding.
  EXPECT_NEAR(static_cast<double>(info.num_frames), want_duration * info.sample_rate, 1.0);

  EXPECT_EQ(info.bits_per_sample, loom::test::expected_bits_per_sample(ff, a));
}

INSTANTIATE_TEST_SUITE_P(Corpus, AudioInfoCorpusTest, ::testing::ValuesIn(audio_files()),
                         [](const ::testing::TestParamInfo<fs::path>& p) {
                           std::string name = p.param.filename().string();
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

TEST(AudioInfoTest, EveryCorpusFileHasAnExpectation) {
  const auto files = audio_files();
  EXPECT_EQ(files.size(), expected_encodings().size());
}

TEST(AudioInfoTest, PcmWidthsFromTheNames) {
  // The files name their sample width; loom must report it.
  EXPECT_EQ(info(loom::test::media("audio/pluck-pcm8.wav")).bits_per_sample, 8);
  EXPECT_EQ(info(loom::test::media("audio/pluck-pcm16.wav")).bits_per_sample, 16);
  EXPECT_EQ(info(loom::test::media("audio/pluck-pcm24.wav")).bits_per_sample, 24);
  EXPECT_EQ(info(loom::test::media("audio/pluck-pcm32.wav")).bits_per_sample, 32);
  EXPECT_EQ(info(loom::test::media("audio/sine_mono_f32.wav")).bits_per_sample, 32);
  EXPECT_EQ(info(loom::test::media("audio/sine_16ch_s16.wav")).channels, 16);
  EXPECT_EQ(info(loom::test::media("audio/sine_mono_s32_44100.wav")).sample_rate, 44100);
}

TEST(AudioInfoTest, AudioInsideAVideoFile) {
  // nasa_13013.mp4: the first audio stream follows a video stream.
  const fs::path file = loom::test::media("video/nasa_13013.mp4");
  const FfprobeInfo ff(file);
  const int a = ff.best("audio");
  ASSERT_GT(a, 0);
  const AudioInfo i = info(file);
  EXPECT_EQ(i.stream_index, a);
  EXPECT_EQ(i.codec, ff.stream(a, "codec_name"));
  EXPECT_EQ(i.sample_rate, ff.stream_number(a, "sample_rate").value_or(-1));
  EXPECT_EQ(i.format, "mp4");
}

TEST(AudioInfoTest, VideoOnlyFileHoldsNoAudioStream) {
  for (const char* rel : {"video/h264_10bits.mp4", "video/av1_video.mkv", "video/h265_video.mp4"}) {
    const fs::path file = loom::test::media(rel);
    ASSERT_LT(FfprobeInfo(file).best("audio"), 0) << rel << " has audio according to ffprobe";
    try {
      info(file);
      ADD_FAILURE() << rel << ": info() returned";
    } catch (const loom::Error& e) {
      EXPECT_EQ(e.code(), loom::ErrorCode::kInvalidInput) << e.what();
      EXPECT_EQ(e.input(), file.string());
      EXPECT_NE(std::string(e.what()).find("holds no audio stream"), std::string::npos) << e.what();
    }
  }
}

TEST(AudioInfoTest, MissingAndNonMediaFiles) {
  loom::test::TempDir dir;
  try {
    info(dir / "missing.wav");
    ADD_FAILURE() << "info() of a missing file returned";
  } catch (const loom::Error& e) {
    EXPECT_EQ(e.code(), loom::ErrorCode::kIo);
    EXPECT_EQ(e.input(), (dir / "missing.wav").string());
  }
  const std::string text = "not audio at all\n";
  loom::test::write_bytes(dir / "fake.wav", std::vector<uint8_t>(text.begin(), text.end()));
  EXPECT_THROW(info(dir / "fake.wav"), loom::Error);
  // A JPEG is an image, not audio.
  EXPECT_THROW(info(loom::test::media("images/jpeg/hopper.jpg")), loom::Error);
}

}  // namespace
}  // namespace loom::audio
