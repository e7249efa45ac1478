// audio::AudioReader: chunks concatenate to load(), exact seeks, flat memory on long files.
#include "loom/audio/reader.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "../codec/ffprobe_util.h"
#include "audio_reference.h"
#include "loom/audio/load.h"
#include "loom/codec/error.h"
#include "test_media.h"

namespace loom::audio {
namespace {
namespace fs = std::filesystem;
using loom::test::same_samples;

std::vector<fs::path> corpus() {
  return loom::test::files_in(loom::test::media("audio"));
}

// Concatenates [C, n] chunks along frames.
Tensor concat(const std::vector<Tensor>& chunks, int channels, DType dtype) {
  int64_t total = 0;
  for (const Tensor& c : chunks) total += c.size(1);
  Tensor out = Tensor::empty({channels, total}, dtype);
  int64_t at = 0;
  for (const Tensor& c : chunks) {
    out.slice(1, at, at + c.size(1)).copy_from(c);
    at += c.size(1);
  }
  return out;
}

Tensor read_all(AudioReader& r, int64_t chunk, DType dtype) {
  std::vector<Tensor> chunks;
  for (;;) {
    Tensor t = r.read(chunk);
    EXPECT_TRUE(t.defined());
    EXPECT_LE(t.size(1), chunk);
    if (t.size(1) == 0) break;
    chunks.push_back(t);
  }
  return concat(chunks, r.channels(), dtype);
}

class AudioReaderCorpusTest : public ::testing::TestWithParam<fs::path> {};

TEST_P(AudioReaderCorpusTest, ChunksConcatenateToLoad) {
  const fs::path file = GetParam();
  const Audio whole = load(file);
  const int64_t frames = whole.samples.size(1);
  for (int64_t chunk : {int64_t{1000}, int64_t{4097}, frames + 1}) {
    AudioReader r(file);
    EXPECT_EQ(r.sample_rate(), whole.sample_rate);
    EXPECT_EQ(r.channels(), whole.samples.size(0));
    if (r.num_frames()) EXPECT_EQ(*r.num_frames(), frames);
    EXPECT_TRUE(same_samples(read_all(r, chunk, DType::kFloat32), whole.samples)) << "chunk " << chunk;
    EXPECT_EQ(r.position(), frames);
    EXPECT_EQ(r.read(10).size(1), 0);  // stays at the end
  }
}

TEST_P(AudioReaderCorpusTest, ExactSeeksBothWays) {
  const fs::path file = GetParam();
  LoadOptions lo;
  lo.normalize = false;
  const Tensor whole = load(file, lo).samples;
  const int64_t frames = whole.size(1);
  ReaderOptions ro;
  ro.normalize = false;
  AudioReader r(ByteSource::from_file(file), ro);
  for (int64_t target : {frames / 2, frames / 5, frames - 3, int64_t{0}, frames / 3 + 11}) {
    r.seek(target);
    EXPECT_EQ(r.position(), target);
    const Tensor got = r.read(777);
    EXPECT_TRUE(same_samples(got, whole.slice(1, target, std::min(frames, target + 777)).contiguous()))
        << "seek to " << target;
  }
  r.seek(frames + 100);
  EXPECT_EQ(r.read(5).size(1), 0);
  r.seek(1);  // back from past the end
  EXPECT_TRUE(same_samples(r.read(5), whole.slice(1, 1, 6).contiguous()));
}

INSTANTIATE_TEST_SUITE_P(Corpus, AudioReaderCorpusTest, ::testing::ValuesIn(corpus()),
                         [](const ::testing::TestParamInfo<fs::path>& p) {
                           std::string name = p.param.filename().string();
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

TEST(AudioReaderTest, FramesFirstLayoutAndKnownCounts) {
  ReaderOptions o;
  o.channels_first = false;
  AudioReader r(loom::test::media("audio/sine_16ch_s16.wav"), o);
  const Tensor t = r.read(100);
  EXPECT_EQ(t.size(0), 100);
  EXPECT_EQ(t.size(1), 16);
  LoadOptions lo;
  lo.channels_first = false;
  lo.num_frames = 100;
  EXPECT_TRUE(same_samples(t, load(loom::test::media("audio/sine_16ch_s16.wav"), lo).samples));
  EXPECT_EQ(r.num_frames().value_or(-1), 16000);
  EXPECT_FALSE(AudioReader(loom::test::media("audio/nasa_13013.mp4.audio.mp3")).num_frames().has_value());
}

TEST(AudioReaderTest, BadArguments) {
  AudioReader r(loom::test::media("audio/pluck-pcm16.wav"));
  EXPECT_EQ(loom::test::error_code_of([&] { r.read(0); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(loom::test::error_code_of([&] { r.seek(-1); }), ErrorCode::kInvalidInput);
  ReaderOptions o;
  o.limits.max_bytes = 1000;  // one chunk of 1000 frames x 2 channels x 4 bytes is too much
  AudioReader small(loom::test::media("audio/pluck-pcm16.wav"), o);
  EXPECT_EQ(small.read(100).size(1), 100);
  EXPECT_EQ(loom::test::error_code_of([&] { small.read(1000); }), ErrorCode::kLimitExceeded);
  loom::test::TempDir dir;
  EXPECT_EQ(loom::test::error_code_of([&] { AudioReader x(dir / "missing.flac"); }), ErrorCode::kIo);
}

// Peak resident memory (VmHWM) in bytes, after resetting it to the current RSS.
int64_t status_kb(const char* key) {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(key, 0) == 0) return std::stoll(line.substr(std::string(key).size()));
  }
  return -1;
}

void reset_peak() {
  std::ofstream("/proc/self/clear_refs") << "5";
}

// Reads `file` in chunks; returns (frames, peak RSS growth in bytes).
std::pair<int64_t, int64_t> stream_through(const fs::path& file) {
  reset_peak();
  const int64_t before = status_kb("VmRSS:");
  AudioReader r(file);
  int64_t frames = 0;
  double sum = 0;
  for (;;) {
    const Tensor t = r.read(48000);
    if (t.size(1) == 0) break;
    frames += t.size(1);
    sum += t.data<float>()[0];
  }
  EXPECT_TRUE(std::isfinite(sum));
  return {frames, (status_kb("VmHWM:") - before) * 1024};
}

TEST(AudioReaderTest, FlatMemoryOnLongFiles) {
  loom::test::TempDir dir;
  // 10 minutes of 48 kHz stereo s16: 115 MB on disk, 230 MB as float32.
  const fs::path wav = dir / "long.wav";
  ASSERT_EQ(std::system(("ffmpeg -v error -f lavfi -i sine=frequency=440:sample_rate=48000:duration=600 -ac 2 "
                         "-c:a pcm_s16le " +
                         wav.string())
                            .c_str()),
            0);
  // 10 minutes of MP3 (FFmpeg path): a 10 s stream repeated 60 times (MP3 frames concatenate).
  const fs::path piece = dir / "piece.mp3";
  ASSERT_EQ(std::system(("ffmpeg -v error -f lavfi -i sine=frequency=440:sample_rate=44100:duration=10 -ac 2 "
                         "-c:a libmp3lame -write_xing 0 -id3v2_version 0 " +
                         piece.string())
                            .c_str()),
            0);
  const auto bytes = loom::test::read_bytes(piece);
  std::vector<uint8_t> repeated;
  for (int i = 0; i < 60; ++i) repeated.insert(repeated.end(), bytes.begin(), bytes.end());
  loom::test::write_bytes(dir / "long.mp3", repeated);

#if defined(__SANITIZE_ADDRESS__)
  // AddressSanitizer keeps freed chunks in a quarantine (256 MiB by default) before reusing them, so
  // every freed chunk still counts in RSS; the Release run checks the bound without it.
  constexpr int64_t kMaxGrowth = (40 << 20) + (256 << 20);
#else
  constexpr int64_t kMaxGrowth = 40 << 20;
#endif
  const auto [wav_frames, wav_growth] = stream_through(wav);
  EXPECT_EQ(wav_frames, 600 * 48000);
  EXPECT_LT(wav_growth, kMaxGrowth) << "peak RSS grew by " << wav_growth << " bytes reading " << wav;
  const auto [mp3_frames, mp3_growth] = stream_through(dir / "long.mp3");
  EXPECT_GT(mp3_frames, 599 * 44100);
  EXPECT_LT(mp3_growth, kMaxGrowth) << "peak RSS grew by " << mp3_growth << " bytes reading long.mp3";
  // The check can fail: load() of the same file holds all of it.
  reset_peak();
  const int64_t before = status_kb("VmRSS:");
  const Audio all = load(wav);
  EXPECT_GT((status_kb("VmHWM:") - before) * 1024, int64_t{200} << 20);
  EXPECT_EQ(all.samples.size(1), 600 * 48000);
}

}  // namespace
}  // namespace loom::audio
