// probe_container on the real corpus, compared stream by stream with ffprobe; refusals of non-media.
#include "loom/codec/media_probe.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "ffprobe_util.h"
#include "loom/codec/error.h"
#include "test_media.h"

namespace loom {
namespace {
using loom::test::error_of;
namespace fs = std::filesystem;
using loom::test::FfprobeInfo;
using loom::test::TempDir;

std::vector<fs::path> corpus() {
  std::vector<fs::path> files = loom::test::files_in(loom::test::media("audio"));
  for (const fs::path& p : loom::test::files_in(loom::test::media("video"))) files.push_back(p);
  return files;
}

// ffprobe prints seconds with 6 decimals.
void expect_seconds(double loom_value, std::optional<double> ffprobe_value, const std::string& what) {
  if (!ffprobe_value) {
    EXPECT_EQ(loom_value, -1) << what << ": ffprobe says N/A";
  } else {
    EXPECT_NEAR(loom_value, *ffprobe_value, 1.5e-6) << what;
  }
}

// av_rescale_q(duration_ts, time_base, 1/sample_rate): round to nearest, halves away from zero.
int64_t samples_from(const std::string& duration_ts, const std::string& time_base, int sample_rate) {
  if (duration_ts.empty() || duration_ts == "N/A") return 0;
  const size_t slash = time_base.find('/');
  const long double num = std::stold(time_base.substr(0, slash));
  const long double den = std::stold(time_base.substr(slash + 1));
  const long double exact = std::stold(duration_ts) * num * sample_rate / den;
  return static_cast<int64_t>(std::llround(exact));
}

class ProbeCorpusTest : public ::testing::TestWithParam<fs::path> {};

TEST_P(ProbeCorpusTest, MatchesFfprobe) {
  const fs::path file = GetParam();
  const FfprobeInfo ff(file);
  const ContainerInfo info = probe_container(file);

  EXPECT_EQ(info.demuxer, ff.str("format.format_name"));
  expect_seconds(info.duration_seconds, ff.number("format.duration"), "container duration");
  EXPECT_EQ(info.bit_rate, static_cast<int64_t>(ff.number("format.bit_rate").value_or(0)));
  ASSERT_EQ(static_cast<int>(info.streams.size()), ff.num_streams());

  for (int i = 0; i < ff.num_streams(); ++i) {
    SCOPED_TRACE("stream " + std::to_string(i));
    const StreamInfo& s = info.streams[i];
    EXPECT_EQ(s.index, static_cast<int>(ff.stream_number(i, "index").value_or(-1)));
    EXPECT_EQ(s.type, ff.stream(i, "codec_type"));
    EXPECT_EQ(s.codec, ff.stream(i, "codec_name"));
    expect_seconds(s.duration_seconds, ff.stream_number(i, "duration"), "stream duration");
    EXPECT_EQ(s.bit_rate, static_cast<int64_t>(ff.stream_number(i, "bit_rate").value_or(0)));
    if (s.type == "video") {
      EXPECT_EQ(s.width, ff.stream_number(i, "width").value_or(-1));
      EXPECT_EQ(s.height, ff.stream_number(i, "height").value_or(-1));
      EXPECT_EQ(s.pixel_format, ff.stream(i, "pix_fmt"));
      EXPECT_NEAR(s.average_fps, ff.stream_rational(i, "avg_frame_rate"), 1e-9);
      EXPECT_EQ(s.num_frames, static_cast<int64_t>(ff.stream_number(i, "nb_frames").value_or(0)));
      EXPECT_EQ(s.attached_picture, ff.stream(i, "disposition.attached_pic") == "1");
    } else if (s.type == "audio") {
      EXPECT_EQ(s.sample_rate, ff.stream_number(i, "sample_rate").value_or(-1));
      EXPECT_EQ(s.channels, ff.stream_number(i, "channels").value_or(-1));
      EXPECT_EQ(s.sample_format, ff.stream(i, "sample_fmt"));
      EXPECT_EQ(s.bits_per_sample, loom::test::expected_bits_per_sample(ff, i));
      EXPECT_EQ(s.num_samples, samples_from(ff.stream(i, "duration_ts"), ff.stream(i, "time_base"), s.sample_rate));
      EXPECT_EQ(s.width, 0);
      EXPECT_TRUE(s.pixel_format.empty());
    } else {
      EXPECT_EQ(s.sample_rate, 0);
      EXPECT_EQ(s.channels, 0);
    }
  }

  for (const char* type : {"video", "audio"}) {
    const StreamInfo* best = info.best(type);
    const int want = ff.best(type);
    if (want < 0) {
      EXPECT_EQ(best, nullptr) << type;
    } else {
      ASSERT_NE(best, nullptr) << type;
      EXPECT_EQ(best->index, want) << type;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, ProbeCorpusTest, ::testing::ValuesIn(corpus()),
                         [](const ::testing::TestParamInfo<fs::path>& p) {
                           std::string name =
                               p.param.parent_path().filename().string() + "_" + p.param.filename().string();
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

TEST(MediaProbeTest, CorpusIsNotEmpty) {
  EXPECT_GE(corpus().size(), 40u);
}

TEST(MediaProbeTest, BestNamesTheChosenStreams) {
  ContainerInfo info;
  StreamInfo audio;
  audio.index = 1;
  audio.type = "audio";
  StreamInfo video;
  video.index = 2;
  video.type = "video";
  info.streams = {audio, video};
  info.best_video = 2;
  info.best_audio = 1;
  ASSERT_NE(info.best("video"), nullptr);
  EXPECT_EQ(info.best("video")->index, 2);
  EXPECT_EQ(info.best("audio")->index, 1);
  EXPECT_EQ(info.best("subtitle"), nullptr);
  info.best_video = -1;
  EXPECT_EQ(info.best("video"), nullptr);
}

void write_text(const fs::path& p, const std::string& text) {
  loom::test::write_bytes(p, std::vector<uint8_t>(text.begin(), text.end()));
}

// A refused input: a loom::Error naming the file, and not an I/O error (the file itself is readable).
void expect_refused(const fs::path& p) {
  const Error e = error_of([&] { probe_container(p); });
  EXPECT_NE(e.code(), ErrorCode::kIo) << p << ": " << e.what();
  EXPECT_NE(e.code(), ErrorCode::kInternal) << p << ": " << e.what();
  EXPECT_EQ(e.input(), p.string()) << e.what();
}

TEST(MediaProbeTest, MissingFileIsIo) {
  TempDir dir;
  const fs::path p = dir / "missing.mp4";
  const Error e = error_of([&] { probe_container(p); });
  EXPECT_EQ(e.code(), ErrorCode::kIo) << e.what();
  EXPECT_EQ(e.input(), p.string());
}

TEST(MediaProbeTest, TextFileIsRefused) {
  TempDir dir;
  const std::string text = "This is a plain text file.\nIt is not media, whatever its name says.\n";
  for (const char* name : {"notes.txt", "notes.mp3", "notes.mp4", "notes.wav"}) {
    write_text(dir / name, text);
    expect_refused(dir / name);
  }
}

TEST(MediaProbeTest, EmptyFileIsRefused) {
  TempDir dir;
  write_text(dir / "empty.mp4", "");
  expect_refused(dir / "empty.mp4");
}

// An HLS playlist names other files (or URLs): FFmpeg's hls demuxer would open them. loom must not.
TEST(MediaProbeTest, M3u8PlaylistIsRefused) {
  TempDir dir;
  const std::string target = loom::test::media("audio/sine_mono_s16.wav").string();
  const std::string playlist =
      "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:5\n#EXT-X-MEDIA-SEQUENCE:0\n"
      "#EXTINF:4.0,\n" +
      target + "\n#EXT-X-ENDLIST\n";
  for (const char* name : {"list.m3u8", "list.mp4", "list.ts"}) {
    write_text(dir / name, playlist);
    expect_refused(dir / name);
  }
}

// An ffconcat list names other files: FFmpeg's concat demuxer would open them. loom must not.
TEST(MediaProbeTest, FfconcatListIsRefused) {
  TempDir dir;
  const std::string target = loom::test::media("audio/sine_mono_s16.wav").string();
  const std::string list = "ffconcat version 1.0\nfile '" + target + "'\nfile '" + target + "'\n";
  for (const char* name : {"list.ffconcat", "list.wav", "list.mkv"}) {
    write_text(dir / name, list);
    expect_refused(dir / name);
  }
}

TEST(MediaProbeTest, FolderIsRefused) {
  TempDir dir;
  const Error e = error_of([&] { probe_container(dir.path()); });
  EXPECT_NE(e.code(), ErrorCode::kInternal) << e.what();
}

// "file:" is prepended by loom; a colon or percent sign in the name must not change what is opened.
TEST(MediaProbeTest, OddCharactersInThePath) {
  TempDir dir;
  const fs::path src = loom::test::media("audio/pluck-pcm16.wav");
  for (const char* name : {"http:x.wav", "a%d.wav", "sp ace's.wav", "concat:y.wav"}) {
    fs::copy_file(src, dir / name);
    const ContainerInfo info = probe_container(dir / name);
    ASSERT_EQ(info.streams.size(), 1u) << name;
    EXPECT_EQ(info.streams[0].codec, "pcm_s16le") << name;
    EXPECT_EQ(info.streams[0].sample_rate, 11025) << name;
  }
}

TEST(MediaProbeTest, StreamLimit) {
  // nasa_13013.mp4 holds 6 streams (checked against ffprobe here, not assumed).
  const fs::path nasa = loom::test::media("video/nasa_13013.mp4");
  ASSERT_EQ(FfprobeInfo(nasa).num_streams(), 6);
  Limits l;
  l.max_streams = 6;
  EXPECT_EQ(probe_container(nasa, l).streams.size(), 6u);
  l.max_streams = 2;
  const Error e = error_of([&] { probe_container(nasa, l); });
  EXPECT_EQ(e.code(), ErrorCode::kLimitExceeded) << e.what();
}

TEST(MediaProbeTest, ExpiredDeadline) {
  Limits l;
  l.deadline_seconds = 0;
  const Error e = error_of([&] { probe_container(loom::test::media("video/nasa_13013.mp4"), l); });
  EXPECT_EQ(e.code(), ErrorCode::kLimitExceeded) << e.what();
}

}  // namespace
}  // namespace loom
