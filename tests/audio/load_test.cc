// audio::load / decode on every file of the audio corpus, compared with soundfile (libsndfile formats)
// and PyAV (the rest); slices, dtypes, layouts; bad inputs.
#include "loom/audio/load.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "../codec/ffprobe_util.h"
#include "audio_reference.h"
#include "loom/codec/error.h"
#include "test_media.h"

namespace loom::audio {
namespace {
namespace fs = std::filesystem;
using loom::test::same_samples;

std::vector<fs::path> corpus() {
  return loom::test::files_in(loom::test::media("audio"));
}

std::string test_name(const ::testing::TestParamInfo<fs::path>& p) {
  std::string name = p.param.filename().string();
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

// Files whose codec is lossy or otherwise decoded by FFmpeg: PyAV is their reference.
bool expect_pyav(const fs::path& file) {
  const std::string n = file.filename().string();
  return n.ends_with(".mka") || n.ends_with(".opus") || n.ends_with(".mp4") || n.ends_with(".adts") ||
         n.ends_with(".mp3") || n.find("adpcm") != std::string::npos;
}

class AudioLoadCorpusTest : public ::testing::TestWithParam<fs::path> {};

TEST_P(AudioLoadCorpusTest, NormalizedEqualsReference) {
  const fs::path file = GetParam();
  const auto ref = loom::test::reference_audio(file, true);
  ASSERT_TRUE(ref.samples.defined()) << "no reference for " << file;
  EXPECT_EQ(ref.soundfile, !expect_pyav(file)) << "reference decoder";
  const int64_t frames = ref.samples.size(0);
  ASSERT_GT(frames, 0);

  LoadOptions o;
  o.channels_first = false;
  const Audio a = load(file, o);
  EXPECT_EQ(a.sample_rate, ref.sample_rate);
  EXPECT_TRUE(same_samples(a.samples, ref.samples));

  // channels_first is the transpose, contiguous.
  const Audio cf = load(file);
  EXPECT_TRUE(cf.samples.is_contiguous());
  EXPECT_TRUE(same_samples(cf.samples, ref.samples.permute({1, 0})));

  // Exact slices, including at and past the end.
  const int64_t cases[][2] = {
      {0, 1}, {1, -1}, {frames / 3, 1000}, {frames / 2 + 7, 4097}, {frames - 5, 100}, {frames, -1}, {frames + 10, 10},
      {0, 0}};
  for (const auto& [offset, count] : cases) {
    LoadOptions s;
    s.frame_offset = offset;
    s.num_frames = count;
    s.channels_first = false;
    const int64_t stop = count < 0 ? frames : std::min(frames, offset + count);
    EXPECT_TRUE(same_samples(load(file, s).samples, ref.samples.slice(0, std::min(offset, frames), stop)))
        << "frame_offset " << offset << " num_frames " << count;
  }

  // Memory input decodes the same.
  const ByteSource bytes = ByteSource::from_file(file);
  EXPECT_TRUE(same_samples(decode(bytes, o).samples, ref.samples));
}

TEST_P(AudioLoadCorpusTest, NativeDtypeEqualsReference) {
  const fs::path file = GetParam();
  const auto ref = loom::test::reference_audio(file, false);
  ASSERT_TRUE(ref.samples.defined()) << "no reference for " << file;
  LoadOptions o;
  o.normalize = false;
  o.channels_first = false;
  const Audio a = load(file, o);
  EXPECT_TRUE(same_samples(a.samples, ref.samples));
  LoadOptions s = o;
  s.frame_offset = ref.samples.size(0) / 4;
  s.num_frames = 333;
  EXPECT_TRUE(same_samples(load(file, s).samples, ref.samples.slice(0, s.frame_offset, s.frame_offset + 333)));
  // channels_first (decoded planar, straight into the output): the transpose, whole and sliced.
  LoadOptions cf = o;
  cf.channels_first = true;
  EXPECT_TRUE(same_samples(load(file, cf).samples, ref.samples.permute({1, 0})));
  cf.frame_offset = s.frame_offset;
  cf.num_frames = 333;
  EXPECT_TRUE(
      same_samples(load(file, cf).samples, ref.samples.slice(0, s.frame_offset, s.frame_offset + 333).permute({1, 0})));
}

INSTANTIATE_TEST_SUITE_P(Corpus, AudioLoadCorpusTest, ::testing::ValuesIn(corpus()), test_name);

TEST(AudioLoadTest, CorpusIsComplete) {
  EXPECT_EQ(corpus().size(), 28u);
}

TEST(AudioLoadTest, NativeDtypesByEncoding) {
  auto dtype = [](const char* rel) {
    LoadOptions o;
    o.normalize = false;
    return load(loom::test::media(std::string("audio/") + rel), o).samples.dtype();
  };
  EXPECT_EQ(dtype("pluck-pcm8.wav"), DType::kUInt8);
  EXPECT_EQ(dtype("pluck-pcm16.wav"), DType::kInt16);
  EXPECT_EQ(dtype("pluck-pcm16.aiff"), DType::kInt16);
  EXPECT_EQ(dtype("pluck-pcm24.wav"), DType::kInt32);
  EXPECT_EQ(dtype("pluck-pcm32.wav"), DType::kInt32);
  EXPECT_EQ(dtype("pluck-ulaw.au"), DType::kInt16);
  EXPECT_EQ(dtype("pluck-alaw.aifc"), DType::kInt16);
  EXPECT_EQ(dtype("sine_mono_f32.wav"), DType::kFloat32);
  EXPECT_EQ(dtype("tfio_ZASFX_ADSR_no_sustain.s24.flac"), DType::kInt32);
  EXPECT_EQ(dtype("exo_bear.opus"), DType::kFloat32);
  EXPECT_EQ(dtype("nasa_13013.mp4.audio.mp3"), DType::kFloat32);
  EXPECT_EQ(dtype("exo_bear_vorbis.ogg"), DType::kFloat32);
  EXPECT_EQ(dtype("exo_sample_ima_adpcm.wav"), DType::kInt16);
  // 24-bit samples are left-aligned in int32: the low byte is zero.
  LoadOptions o;
  o.normalize = false;
  const Tensor s24 = load(loom::test::media("audio/pluck-pcm24.wav"), o).samples;
  const int32_t* p = s24.data<int32_t>();
  bool low_zero = true, nonzero = false;
  for (int64_t i = 0; i < s24.numel(); ++i) low_zero &= (p[i] & 0xff) == 0, nonzero |= p[i] != 0;
  EXPECT_TRUE(low_zero && nonzero);
}

TEST(AudioLoadTest, AudioStreamOfAVideoFile) {
  const fs::path file = loom::test::media("video/nasa_13013.mp4");
  const loom::test::FfprobeInfo ff(file);
  // Streams 1 (8 kHz) and 4 (16 kHz, the higher bit rate) are both default: FFmpeg's best is 4.
  const int a = ff.best("audio");
  ASSERT_EQ(a, 4);
  const auto ref = loom::test::reference_audio(file, true, a);
  ASSERT_TRUE(ref.samples.defined());
  LoadOptions o;
  o.channels_first = false;
  EXPECT_TRUE(same_samples(load(file, o).samples, ref.samples));
  o.stream_index = a;
  EXPECT_TRUE(same_samples(load(file, o).samples, ref.samples));
  o.stream_index = ff.best("video");
  const Error e = loom::test::error_of([&] { load(file, o); });
  EXPECT_EQ(e.code(), ErrorCode::kInvalidInput);
  EXPECT_NE(std::string(e.what()).find("is not an audio stream"), std::string::npos) << e.what();
}

TEST(AudioLoadTest, WrongExtensionDecodesByContent) {
  loom::test::TempDir dir;
  const fs::path src = loom::test::media("audio/exo_bear.flac");
  fs::copy_file(src, dir / "bear.mp3");
  fs::copy_file(loom::test::media("audio/nasa_13013.mp4.audio.mp3"), dir / "nasa.wav");
  EXPECT_TRUE(same_samples(load(dir / "bear.mp3").samples, load(src).samples));
  EXPECT_TRUE(
      same_samples(load(dir / "nasa.wav").samples, load(loom::test::media("audio/nasa_13013.mp4.audio.mp3")).samples));
}

TEST(AudioLoadTest, MissingEmptyRandomAndVideoOnly) {
  loom::test::TempDir dir;
  EXPECT_EQ(loom::test::error_code_of([&] { load(dir / "missing.wav"); }), ErrorCode::kIo);
  EXPECT_EQ(loom::test::error_code_of([&] { load(dir.path()); }), ErrorCode::kIo);
  loom::test::write_bytes(dir / "empty.wav", {});
  const Error empty = loom::test::error_of([&] { load(dir / "empty.wav"); });
  EXPECT_EQ(empty.code(), ErrorCode::kInvalidInput) << empty.what();
  EXPECT_EQ(empty.input(), (dir / "empty.wav").string());
  EXPECT_EQ(loom::test::error_code_of([&] { decode(ByteSource::from_vector({}, "zero")); }), ErrorCode::kInvalidInput);
  std::mt19937 rng(7);
  std::vector<uint8_t> noise(4096);
  for (auto& b : noise) b = static_cast<uint8_t>(rng());
  loom::test::write_bytes(dir / "noise.wav", noise);
  const Error e = loom::test::error_of([&] { load(dir / "noise.wav"); });
  EXPECT_EQ(e.code(), ErrorCode::kInvalidInput) << e.what();
  EXPECT_EQ(e.input(), (dir / "noise.wav").string());
  const Error m = loom::test::error_of([&] { decode(ByteSource::from_vector(noise, "noise-buffer")); });
  EXPECT_EQ(m.input(), "noise-buffer");
  const Error v = loom::test::error_of([&] { load(loom::test::media("video/h264_10bits.mp4")); });
  EXPECT_EQ(v.code(), ErrorCode::kInvalidInput);
  EXPECT_NE(std::string(v.what()).find("holds no audio stream"), std::string::npos) << v.what();
}

TEST(AudioLoadTest, BadOptionsAndLimits) {
  const fs::path file = loom::test::media("audio/sine_16ch_s16.wav");
  LoadOptions o;
  o.frame_offset = -1;
  EXPECT_EQ(loom::test::error_code_of([&] { load(file, o); }), ErrorCode::kInvalidInput);
  o = {};
  o.num_frames = -2;
  EXPECT_EQ(loom::test::error_code_of([&] { load(file, o); }), ErrorCode::kInvalidInput);
  o = {};
  o.stream_index = 1;
  EXPECT_EQ(loom::test::error_code_of([&] { load(file, o); }), ErrorCode::kInvalidInput);
  o = {};
  o.limits.max_audio_channels = 8;
  EXPECT_EQ(loom::test::error_code_of([&] { load(file, o); }), ErrorCode::kLimitExceeded);
  o = {};
  o.limits.max_sample_rate = 8000;
  EXPECT_EQ(loom::test::error_code_of([&] { load(file, o); }), ErrorCode::kLimitExceeded);
  // 16000 frames x 16 channels x 4 bytes = 1 MiB of float32 output; the file itself is 512 KiB.
  o = {};
  o.limits.max_bytes = 700'000;
  const Error e = loom::test::error_of([&] { load(file, o); });
  EXPECT_EQ(e.code(), ErrorCode::kLimitExceeded) << e.what();
  o.num_frames = 100;  // a small slice fits
  EXPECT_EQ(load(file, o).samples.size(1), 100);
  o.normalize = false;  // int16: 512 000 bytes of output fits too
  o.num_frames = -1;
  EXPECT_EQ(load(file, o).samples.size(1), 16000);
  o.limits.max_bytes = 1000;  // the input itself is too large
  EXPECT_EQ(loom::test::error_code_of([&] { load(file, o); }), ErrorCode::kLimitExceeded);
  EXPECT_EQ(loom::test::error_code_of([&] { decode(ByteSource::from_file(file), o); }), ErrorCode::kLimitExceeded);
  // The same for an FFmpeg-decoded stream.
  LoadOptions m;
  m.limits.max_bytes = 200'000;
  EXPECT_EQ(loom::test::error_code_of([&] { load(loom::test::media("audio/nasa_13013.mp4.audio.mp3"), m); }),
            ErrorCode::kLimitExceeded);
}

// A canonical 44-byte WAV header.
std::vector<uint8_t> wav_header(uint16_t format, uint16_t channels, uint32_t rate, uint16_t bits, uint32_t data_bytes) {
  std::vector<uint8_t> h;
  auto u32 = [&](uint32_t v) {
    for (int i = 0; i < 4; ++i) h.push_back(static_cast<uint8_t>(v >> (8 * i)));
  };
  auto u16 = [&](uint16_t v) {
    h.push_back(static_cast<uint8_t>(v));
    h.push_back(static_cast<uint8_t>(v >> 8));
  };
  auto tag = [&](const char* t) { h.insert(h.end(), t, t + 4); };
  const uint16_t align = static_cast<uint16_t>(channels * (bits / 8));
  tag("RIFF");
  u32(36 + data_bytes);
  tag("WAVE");
  tag("fmt ");
  u32(16);
  u16(format);
  u16(channels);
  u32(rate);
  u32(rate * align);
  u16(align);
  u16(bits);
  tag("data");
  u32(data_bytes);
  return h;
}

TEST(AudioLoadTest, CraftedWavHeaders) {
  loom::test::TempDir dir;
  auto with_data = [](std::vector<uint8_t> h, size_t n) {
    h.resize(h.size() + n, 0x11);
    return h;
  };
  // 0 channels, 1,000,000 channels (the field is 16 bits: 65535), rate 0, block_align 0: clean errors.
  struct Case {
    const char* name;
    std::vector<uint8_t> bytes;
    ErrorCode code;
  };
  std::vector<Case> cases = {
      {"ch0.wav", with_data(wav_header(1, 0, 16000, 16, 64), 64), ErrorCode::kInvalidInput},
      {"ch65535.wav", with_data(wav_header(1, 65535, 16000, 16, 65535 * 2), 65535 * 2), ErrorCode::kLimitExceeded},
      {"rate0.wav", with_data(wav_header(1, 2, 0, 16, 64), 64), ErrorCode::kInvalidInput},
  };
  for (const Case& c : cases) {
    loom::test::write_bytes(dir / c.name, c.bytes);
    const Error e = loom::test::error_of([&] { load(dir / c.name); });
    EXPECT_TRUE(e.code() == c.code || e.code() == ErrorCode::kInvalidInput) << c.name << ": " << e.what();
    EXPECT_EQ(e.input(), (dir / c.name).string());
  }
  // A data chunk that claims more than the file holds: the samples present are returned, as libsndfile does.
  auto long_claim = wav_header(1, 2, 8000, 16, 1'000'000);
  for (int i = 0; i < 400; ++i) long_claim.push_back(static_cast<uint8_t>(i));
  loom::test::write_bytes(dir / "short.wav", long_claim);
  const Audio a = load(dir / "short.wav");
  EXPECT_EQ(a.samples.size(0), 2);
  EXPECT_EQ(a.samples.size(1), 100);
  EXPECT_EQ(a.sample_rate, 8000);
}

TEST(AudioLoadTest, TruncatedFiles) {
  loom::test::TempDir dir;
  // PCM WAV cut mid-data: what is there (whole frames) is returned and equals the full file's start.
  {
    auto bytes = loom::test::read_bytes(loom::test::media("audio/pluck-pcm16.wav"));
    bytes.resize(bytes.size() / 2 + 1);
    loom::test::write_bytes(dir / "cut.wav", bytes);
    const Tensor cut = load(dir / "cut.wav").samples;
    const Tensor full = load(loom::test::media("audio/pluck-pcm16.wav")).samples;
    ASSERT_GT(cut.size(1), 1000);
    ASSERT_LT(cut.size(1), full.size(1));
    EXPECT_TRUE(same_samples(cut, full.slice(1, 0, cut.size(1)).contiguous()));
  }
  // Compressed files cut in half: either the decodable part (a prefix of the full decode) or a clean
  // loom::Error naming the file; never a crash.
  for (const char* rel : {"audio/exo_bear.flac", "audio/nasa_13013.mp4.audio.mp3", "audio/exo_bear.opus",
                          "audio/exo_bear_vorbis.ogg", "audio/tfio_gs-16b-2c-44100hz.mp4", "audio/exo_sample.adts"}) {
    auto bytes = loom::test::read_bytes(loom::test::media(rel));
    bytes.resize(bytes.size() / 2);
    const fs::path cut = dir / fs::path(rel).filename();
    loom::test::write_bytes(cut, bytes);
    try {
      const Tensor part = load(cut).samples;
      const Tensor full = load(loom::test::media(rel)).samples;
      ASSERT_LT(part.size(1), full.size(1)) << rel;
      // Decoders may treat the last (cut) packet differently: compare all but the last 4096 frames.
      const int64_t n = std::max<int64_t>(0, part.size(1) - 4096);
      EXPECT_GT(n, 0) << rel;
      EXPECT_TRUE(same_samples(part.slice(1, 0, n).contiguous(), full.slice(1, 0, n).contiguous())) << rel;
      // Both layouts hold the same samples when the data ends before the header's frame count.
      LoadOptions last;
      last.channels_first = false;
      EXPECT_TRUE(same_samples(part, load(cut, last).samples.permute({1, 0}))) << rel;
    } catch (const Error& e) {
      EXPECT_EQ(e.input(), cut.string()) << e.what();
      EXPECT_NE(e.code(), ErrorCode::kInternal) << e.what();
    }
  }
}

}  // namespace
}  // namespace loom::audio
