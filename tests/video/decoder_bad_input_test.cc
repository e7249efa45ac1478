// VideoDecoder: metadata vs ffprobe, colour matrices, argument errors, bad inputs (truncated, missing
// moov, random and empty bytes, corrupt packets, playlists, huge dimensions, deadline) and a
// open/close loop that must not leak.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <random>

#include "decoder_util.h"
#include "loom/codec/error.h"
#include "loom/video/decoder.h"

namespace loom::video {
namespace {
using namespace loom::video::test;
using loom::test::error_code_of;
using loom::test::error_of;
using loom::test::FfprobeInfo;

class DecoderMetadataTest : public ::testing::TestWithParam<fs::path> {};

TEST_P(DecoderMetadataTest, MatchesFfprobe) {
  const fs::path file = GetParam();
  DecoderOptions approx;
  approx.seek_mode = SeekMode::kApproximate;
  for (const DecoderOptions& o : {DecoderOptions{}, approx}) {
    VideoDecoder dec = VideoDecoder::open(file, o);
    const StreamMetadata& m = dec.metadata();
    const FfprobeInfo ff(file);
    const int v = m.stream.index;
    EXPECT_EQ(ff.stream(v, "codec_type"), "video");
    EXPECT_EQ(m.stream.codec, ff.stream(v, "codec_name"));
    EXPECT_EQ(m.stream.width, ff.stream_number(v, "width").value_or(-1));
    EXPECT_EQ(m.stream.height, ff.stream_number(v, "height").value_or(-1));
    EXPECT_EQ(m.stream.pixel_format, ff.stream(v, "pix_fmt"));
    EXPECT_EQ(m.stream.color_space, ff.stream(v, "color_space"));
    EXPECT_EQ(m.stream.color_range, ff.stream(v, "color_range"));
    EXPECT_NEAR(m.stream.average_fps, ff.stream_rational(v, "avg_frame_rate"), 1e-9);
    EXPECT_EQ(m.stream.num_frames, static_cast<int64_t>(ff.stream_number(v, "nb_frames").value_or(0)));
    EXPECT_EQ(m.container, ff.str("format.format_name"));
    int audio = 0;
    for (int i = 0; i < ff.num_streams(); ++i) audio += ff.stream(i, "codec_type") == "audio";
    EXPECT_EQ(static_cast<int>(m.audio_streams.size()), audio);
    EXPECT_LT(m.begin_stream_seconds, m.end_stream_seconds);
    EXPECT_EQ(m.num_frames_from_content.has_value(),
              o.seek_mode == SeekMode::kExact || m.stream.num_frames == 0 && m.stream.duration_seconds <= 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, DecoderMetadataTest, ::testing::ValuesIn(video_corpus()),
                         [](const ::testing::TestParamInfo<fs::path>& p) { return param_name(p.param); });

TEST(DecoderMetadataTest, RotationStreamChoiceAndKeyframes) {
  EXPECT_EQ(VideoDecoder::open(loom::test::media("video/decord_video_90.mov")).metadata().stream.rotation, -90);
  EXPECT_EQ(VideoDecoder::open(loom::test::media("video/exo_video_1.mp4")).metadata().stream.rotation, 90);
  EXPECT_EQ(VideoDecoder::open(loom::test::media("video/h265_video.mp4")).metadata().stream.rotation, 0);
  // nasa_13013.mp4: FFmpeg's best video stream is stream 3 (480x270), as in TorchCodec.
  VideoDecoder nasa = VideoDecoder::open(loom::test::media("video/nasa_13013.mp4"));
  EXPECT_EQ(nasa.metadata().stream.index, 3);
  EXPECT_EQ(nasa.num_frames(), 390);
  DecoderOptions s0;
  s0.stream_index = 0;
  VideoDecoder first = VideoDecoder::open(loom::test::media("video/nasa_13013.mp4"), s0);
  EXPECT_EQ(first.metadata().stream.width, 320);
  EXPECT_EQ(first.num_frames(), 325);
  // Keyframe indices vs ffprobe's key_frame flags in presentation order.
  const FrameIndex ff = ffprobe_frame_index(loom::test::media("video/nasa_13013.mp4"), 3);
  std::vector<int64_t> keys;
  for (size_t i = 0; i < ff.size(); ++i) {
    if (ff[i].key_frame) keys.push_back(static_cast<int64_t>(i));
  }
  EXPECT_EQ(nasa.metadata().key_frame_indices, keys);
  // VP9 alt-ref frames in packets of their own are not frames: 80 packets, 72 frames.
  VideoDecoder vp9 = VideoDecoder::open(loom::test::media("video/exo_roadtrip-vp92-10bit.webm"));
  EXPECT_EQ(vp9.num_frames(), 72);
}

// The matrix matters: on BT.709 and BT.2020 sources loom (and ffmpeg, checked in the corpus test)
// differ clearly from PyAV's default conversion (BT.601, range from the pixel format); on untagged and
// BT.601 full-range (yuvj420p) sources they agree with it.
TEST(DecoderColorTest, MatrixFollowsTheStream) {
  struct Case {
    const char* file;
    bool differs_from_bt601;
  };
  for (const Case c : {Case{"video/nasa_13013.mp4", true}, Case{"video/exo_roadtrip-vp92-10bit.webm", true},
                       Case{"video/exo_sample_with_increasing_timestamps_320w_240h.mp4", false},
                       Case{"video/exo_bear-vp9.webm", false}, Case{"video/h264_10bits.mp4", false}}) {
    const fs::path file = loom::test::media(c.file);
    DecoderOptions o;
    o.dimension_order = Layout::kHWC;
    VideoDecoder dec = VideoDecoder::open(file, o);
    nlohmann::json p;
    p["file"] = file.string();
    p["stream"] = dec.metadata().stream.index;
    p["bt601_index"] = dec.num_frames() / 2;
    auto ref = loom::test::run_python_reference("video_timestamps_pyav.py", {}, p.dump());
    ASSERT_TRUE(ref.count("bt601_frame")) << c.file;
    const int d = max_abs_diff(dec.get_frame_at(dec.num_frames() / 2).data, ref["bt601_frame"]);
    RecordProperty(std::string("diff_vs_bt601_") + c.file, d);
    if (c.differs_from_bt601) {
      EXPECT_GT(d, 4) << c.file << " (" << dec.metadata().stream.color_space << ") converted like BT.601";
    } else {
      EXPECT_LE(d, 2) << c.file;
    }
  }
}

TEST(DecoderArgumentsTest, IndexTimeAndOptionErrors) {
  const fs::path file = loom::test::media("video/h265_video.mp4");
  VideoDecoder dec = VideoDecoder::open(file);
  ASSERT_EQ(dec.num_frames(), 10);
  EXPECT_NEAR(dec.get_frame_at(-10).pts_seconds, dec.get_frame_at(0).pts_seconds, 0);
  EXPECT_NEAR(dec.get_frame_at(-1).pts_seconds, 0.9, 1e-9);
  for (int64_t bad : {int64_t{10}, int64_t{-11}, int64_t{1} << 40}) {
    const Error e = error_of([&] { dec.get_frame_at(bad); });
    EXPECT_EQ(e.code(), ErrorCode::kInvalidInput);
    EXPECT_NE(e.message().find("out of range"), std::string::npos) << e.what();
    EXPECT_EQ(e.input(), file.string());
  }
  const std::vector<int64_t> some_bad = {0, 10};
  EXPECT_EQ(error_code_of([&] { dec.get_frames_at(some_bad); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(error_code_of([&] { dec.get_frames_in_range(0, 5, 0); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(dec.get_frames_in_range(-3, 100).data.size(0), 3);  // Python slice clamping
  EXPECT_EQ(dec.get_frames_in_range(0, 10, 3).pts_seconds, (std::vector<double>{0, 0.3, 0.6, 0.9}));
  EXPECT_EQ(dec.get_frames_in_range(5, 2).data.size(0), 0);
  for (double t : {-0.01, 1.0, 5.0}) {
    EXPECT_EQ(error_code_of([&] { dec.get_frame_played_at(t); }), ErrorCode::kInvalidInput) << t;
  }
  EXPECT_NEAR(dec.get_frame_played_at(0.999).pts_seconds, 0.9, 1e-9);
  EXPECT_EQ(error_code_of([&] { dec.get_frames_played_in_range(0.5, 0.4); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(dec.get_frames_played_in_range(0.25, 0.5).pts_seconds, (std::vector<double>{0.2, 0.3, 0.4}));

  DecoderOptions o;
  o.output_size = Size{0, 10};
  EXPECT_EQ(error_code_of([&] { VideoDecoder::open(file, o); }), ErrorCode::kInvalidInput);
  o = {};
  o.stream_index = 7;
  EXPECT_EQ(error_code_of([&] { VideoDecoder::open(file, o); }), ErrorCode::kInvalidInput);
  o.stream_index = 1;  // nasa's audio stream
  EXPECT_EQ(error_code_of([&] { VideoDecoder::open(loom::test::media("video/nasa_13013.mp4"), o); }),
            ErrorCode::kInvalidInput);
  EXPECT_EQ(error_code_of([&] { VideoDecoder::open(loom::test::media("audio/sine_mono_s16.wav")); }),
            ErrorCode::kInvalidInput);
  EXPECT_EQ(error_code_of([&] { VideoDecoder::open(loom::test::media("video/none.mp4")); }), ErrorCode::kIo);
  o = {};
  o.custom_index = FrameIndex{};
  EXPECT_EQ(error_code_of([&] { VideoDecoder::open(file, o); }), ErrorCode::kInvalidInput);
  o.custom_index = FrameIndex{{0, 1024, true}, {0, 1024, false}};
  EXPECT_EQ(error_code_of([&] { VideoDecoder::open(file, o); }), ErrorCode::kInvalidInput);
  // A custom index naming a frame the file does not have: a clear error when it is asked for.
  o.custom_index = FrameIndex{{0, 1024, true}, {1024, 1024, false}, {1536, 512, false}};
  VideoDecoder wrong = VideoDecoder::open(file, o);
  EXPECT_EQ(wrong.get_frame_at(1).pts_seconds, 0.1);
  EXPECT_EQ(error_code_of([&] { wrong.get_frame_at(2); }), ErrorCode::kInvalidInput);
}

TEST(DecoderBadInputTest, TruncatedFileGivesFramesUpToTheCut) {
  // exo_video_1.mp4 has its moov before mdat, so a cut leaves the index intact and the data short.
  const std::vector<uint8_t> full = loom::test::read_bytes(loom::test::media("video/exo_video_1.mp4"));
  const std::vector<uint8_t> cut(full.begin(), full.begin() + static_cast<long>(405181 + (full.size() - 405181) / 2));
  loom::test::TempDir dir;
  loom::test::write_bytes(dir / "cut.mp4", cut);

  VideoDecoder exact = VideoDecoder::open(dir / "cut.mp4");
  const int64_t n = exact.num_frames();
  EXPECT_GT(n, 3);
  EXPECT_LT(n, 23);
  for (int64_t i = 0; i < n; ++i) EXPECT_NO_THROW(exact.get_frame_at(i)) << i;
  EXPECT_EQ(error_code_of([&] { exact.get_frame_at(n); }), ErrorCode::kInvalidInput);

  // Approximate mode trusts the header (23 frames): frames before the cut decode, later ones fail clearly.
  DecoderOptions o;
  o.seek_mode = SeekMode::kApproximate;
  VideoDecoder approx = VideoDecoder::open(dir / "cut.mp4", o);
  EXPECT_EQ(approx.num_frames(), 23);
  EXPECT_NO_THROW(approx.get_frame_at(0));
  const Error e = error_of([&] { approx.get_frame_at(22); });
  EXPECT_EQ(e.code(), ErrorCode::kInvalidInput) << e.what();
  EXPECT_NE(e.message().find("cannot decode"), std::string::npos) << e.what();
  EXPECT_EQ(e.input(), (dir / "cut.mp4").string());
}

TEST(DecoderBadInputTest, MissingMoovRandomAndEmptyBytes) {
  loom::test::TempDir dir;
  const std::vector<uint8_t> nasa = loom::test::read_bytes(loom::test::media("video/nasa_13013.mp4"));
  // moov at the end: cutting the file in half removes it.
  loom::test::write_bytes(dir / "half.mp4", std::vector<uint8_t>(nasa.begin(), nasa.begin() + nasa.size() / 2));
  EXPECT_EQ(error_code_of([&] { VideoDecoder::open(dir / "half.mp4"); }), ErrorCode::kInvalidInput);
  // moov renamed to an unknown box type (FFmpeg still finds a moov renamed to free or skip).
  std::vector<uint8_t> renamed = loom::test::read_bytes(loom::test::media("video/exo_video_1.mp4"));
  ASSERT_EQ(std::string(renamed.begin() + 28, renamed.begin() + 32), "moov");
  std::memcpy(renamed.data() + 28, "zzzz", 4);
  loom::test::write_bytes(dir / "nomoov.mp4", renamed);
  EXPECT_EQ(error_code_of([&] { VideoDecoder::open(dir / "nomoov.mp4"); }), ErrorCode::kInvalidInput);

  std::mt19937 rng(1);
  std::vector<uint8_t> noise(100000);
  for (uint8_t& b : noise) b = static_cast<uint8_t>(rng());
  loom::test::write_bytes(dir / "noise.mp4", noise);
  EXPECT_EQ(error_code_of([&] { VideoDecoder::open(dir / "noise.mp4"); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(error_code_of([&] { VideoDecoder::open(ByteSource::from_memory(noise, "noise")); }),
            ErrorCode::kInvalidInput);
  loom::test::write_bytes(dir / "empty.mp4", {});
  EXPECT_EQ(error_code_of([&] { VideoDecoder::open(dir / "empty.mp4"); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(error_code_of([&] { VideoDecoder::open(ByteSource::from_memory({}, "empty")); }), ErrorCode::kInvalidInput);
}

TEST(DecoderBadInputTest, PlaylistsAndConcatListsAreRefused) {
  loom::test::TempDir dir;
  const std::string target = loom::test::media("video/nasa_13013.mp4").string();
  const std::string m3u8 = "#EXTM3U\n#EXT-X-TARGETDURATION:13\n#EXTINF:13,\n" + target + "\n#EXT-X-ENDLIST\n";
  const std::string concat = "ffconcat version 1.0\nfile '" + target + "'\n";
  for (const auto& [name, text] : {std::pair<std::string, std::string>{"list.m3u8", m3u8},
                                   {"video.mp4", m3u8},
                                   {"concat.txt", concat},
                                   {"concat.mp4", concat}}) {
    const std::vector<uint8_t> bytes(text.begin(), text.end());
    loom::test::write_bytes(dir / name, bytes);
    const Error e = error_of([&] { VideoDecoder::open(dir / name); });
    EXPECT_TRUE(e.code() == ErrorCode::kUnsupported || e.code() == ErrorCode::kInvalidInput) << e.what();
    const Error m = error_of([&] { VideoDecoder::open(ByteSource::from_memory(bytes, name)); });
    EXPECT_TRUE(m.code() == ErrorCode::kUnsupported || m.code() == ErrorCode::kInvalidInput) << m.what();
  }
}

TEST(DecoderBadInputTest, HugeDimensionsAreLimited) {
  loom::test::TempDir dir;
  // A raw-video AVI whose header declares 16000x16000 (256M pixels, over the default max_pixels of
  // 179M) for 16x16 frames: refused before anything is allocated.
  const std::string make = "ffmpeg -v error -f lavfi -i testsrc=s=16x16:r=5 -t 1 -c:v rawvideo -pix_fmt bgr24 " +
                           loom::test::shell_quote((dir / "raw.avi").string());
  ASSERT_EQ(std::system(make.c_str()), 0);
  std::vector<uint8_t> avi = loom::test::read_bytes(dir / "raw.avi");
  const auto strf = std::search(avi.begin(), avi.end(), std::begin("strf"), std::begin("strf") + 4) - avi.begin();
  ASSERT_LT(strf, static_cast<long>(avi.size()));
  for (int k = 0; k < 2; ++k) {  // biWidth, biHeight (little-endian int32) = 16000
    avi[strf + 12 + 4 * k] = 16000 & 0xff;
    avi[strf + 13 + 4 * k] = 16000 >> 8;
    avi[strf + 14 + 4 * k] = avi[strf + 15 + 4 * k] = 0;
  }
  loom::test::write_bytes(dir / "huge.avi", avi);
  const Error e = error_of([&] { VideoDecoder::open(dir / "huge.avi"); });
  EXPECT_EQ(e.code(), ErrorCode::kLimitExceeded) << e.what();
  // An IVF header declaring 65535x65535 for a 320x240 VP9 stream: FFmpeg takes the size from the
  // stream itself, and loom decodes 320x240 frames.
  const std::string cmd = "ffmpeg -v error -i " +
                          loom::test::shell_quote(loom::test::media("video/exo_bear-vp9.webm").string()) +
                          " -c copy -f ivf " + loom::test::shell_quote((dir / "bear.ivf").string());
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  std::vector<uint8_t> ivf = loom::test::read_bytes(dir / "bear.ivf");
  ASSERT_EQ(std::string(ivf.begin(), ivf.begin() + 4), "DKIF");
  for (int i = 12; i < 16; ++i) ivf[i] = 0xff;
  loom::test::write_bytes(dir / "huge.ivf", ivf);
  VideoDecoder bear = VideoDecoder::open(dir / "huge.ivf");
  EXPECT_EQ(bear.metadata().stream.width, 320);
  EXPECT_EQ(bear.get_frame_at(-1).data.size(2), 320);
  // The same limit on a real stream.
  DecoderOptions o;
  o.limits.max_pixels = 320 * 240 - 1;
  EXPECT_EQ(error_code_of([&] { VideoDecoder::open(loom::test::media("video/exo_bear-vp9.webm"), o); }),
            ErrorCode::kLimitExceeded);
  o.limits.max_pixels = 320 * 240;
  EXPECT_NO_THROW(VideoDecoder::open(loom::test::media("video/exo_bear-vp9.webm"), o));
  // Output size and batch size are limited too.
  o = {};
  o.output_size = Size{100000, 100000};
  EXPECT_EQ(error_code_of([&] { VideoDecoder::open(loom::test::media("video/exo_bear-vp9.webm"), o); }),
            ErrorCode::kLimitExceeded);
  o = {};
  o.limits.max_bytes = 320 * 240 * 3 * 4;
  VideoDecoder dec = VideoDecoder::open(loom::test::media("video/exo_bear-vp9.webm"), o);
  EXPECT_EQ(dec.get_frames_in_range(0, 4).data.size(0), 4);
  EXPECT_EQ(error_code_of([&] { dec.get_frames_in_range(0, 5); }), ErrorCode::kLimitExceeded);
}

TEST(DecoderBadInputTest, FrameCountIsLimited) {
  // h265_video.mp4 holds 10 frames: the scan, the header count (approximate mode) and a caller's index
  // are each refused above Limits::max_video_frames and accepted at it.
  const auto path = loom::test::media("video/h265_video.mp4");
  for (SeekMode mode : {SeekMode::kExact, SeekMode::kApproximate}) {
    DecoderOptions o;
    o.seek_mode = mode;
    o.limits.max_video_frames = 9;
    const Error e = error_of([&] { VideoDecoder::open(path, o); });
    EXPECT_EQ(e.code(), ErrorCode::kLimitExceeded);
    EXPECT_NE(std::string(e.what()).find("max_video_frames"), std::string::npos) << e.what();
    o.limits.max_video_frames = 10;
    EXPECT_EQ(VideoDecoder::open(path, o).num_frames(), 10);
  }
  DecoderOptions custom;
  custom.custom_index = FrameIndex(11, FrameIndexEntry{});
  for (int64_t i = 0; i < 11; ++i) (*custom.custom_index)[i] = {i * 1000, 1000, i == 0};
  custom.limits.max_video_frames = 10;
  EXPECT_EQ(error_code_of([&] { VideoDecoder::open(path, custom); }), ErrorCode::kLimitExceeded);
}

TEST(DecoderBadInputTest, CorruptPacketsNeverCrash) {
  std::vector<uint8_t> bytes = loom::test::read_bytes(loom::test::media("video/nasa_13013.mp4"));
  // Flip bytes inside mdat (44 .. 654816), after the first frames.
  std::mt19937 rng(3);
  for (int i = 0; i < 400; ++i) bytes[100000 + rng() % 500000] ^= static_cast<uint8_t>(1 + rng() % 255);
  for (Layout layout : {Layout::kCHW, Layout::kHWC}) {
    DecoderOptions o;
    o.dimension_order = layout;
    VideoDecoder dec = VideoDecoder::open(ByteSource::from_memory(bytes, "corrupt.mp4"), o);
    int64_t decoded = 0, failed = 0;
    for (int64_t i = 0; i < dec.num_frames(); i += 7) {
      try {
        dec.get_frame_at(i);
        ++decoded;
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::kInvalidInput) << e.what();
        ++failed;
      }
    }
    EXPECT_GT(decoded, 0);
    RecordProperty("corrupt_failed", static_cast<int>(failed));
  }
}

TEST(DecoderBadInputTest, DeadlineBoundsOpening) {
  DecoderOptions o;
  o.limits.deadline_seconds = 1e-9;
  EXPECT_EQ(error_code_of([&] { VideoDecoder::open(loom::test::media("video/nasa_13013.mp4"), o); }),
            ErrorCode::kLimitExceeded);
}

long resident_kib() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * 4;
}

TEST(DecoderLeakTest, OpenAndCloseManyTimes) {
#if defined(__SANITIZE_ADDRESS__)
  constexpr int kOpens = 500;  // LeakSanitizer checks every allocation
#else
  constexpr int kOpens = 10000;
#endif
  // h265_video.mp4 (128x128, 10 frames) opens in ~0.2 ms, so 10,000 opens take about 2 s.
  const std::vector<uint8_t> bytes = loom::test::read_bytes(loom::test::media("video/h265_video.mp4"));
  const ByteSource source = ByteSource::from_memory(bytes, "h265_video.mp4");
  for (int i = 0; i < 200; ++i) VideoDecoder::open(source);  // warm-up
  const long before = resident_kib();
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kOpens; ++i) {
    VideoDecoder dec = VideoDecoder::open(source);
    if (i % 1000 == 0) EXPECT_EQ(dec.get_frame_at(i % 10).data.size(0), 3);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const long growth = resident_kib() - before;
  RecordProperty("opens_per_second", static_cast<int>(kOpens / seconds));
  EXPECT_LT(growth, 16 * 1024) << "resident memory grew by " << growth << " KiB over " << kOpens << " opens";
  EXPECT_LT(seconds, 10.0);
}

}  // namespace
}  // namespace loom::video
