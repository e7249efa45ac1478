// load() and decode() of PCM WAV files, which skip libsndfile's reads (audio/src/decoder_pcm.cc), against
// libsndfile itself: random samples of every encoding (u8, s16, s24, s32, float; plain and extensible
// headers), 1, 2, 3 and 6 channels, odd chunks before the data (padded), LIST chunks before and after
// it; normalized and native, both layouts, slices, from a path and from memory; a file that ends early.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sndfile.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "audio_reference.h"
#include "loom/audio/load.h"
#include "test_media.h"

namespace loom::audio {
namespace {
namespace fs = std::filesystem;
using loom::test::same_samples;

enum class Chunks { kPlain, kBefore, kAfter };  // LIST and an odd-sized chunk before the data, or LIST after

struct WavSpec {
  uint16_t bits = 16;
  bool is_float = false;
  bool extensible = false;
  int channels = 2;
  Chunks chunks = Chunks::kPlain;
};

class Writer {
 public:
  void u16(uint16_t v) { bytes.insert(bytes.end(), {static_cast<uint8_t>(v), static_cast<uint8_t>(v >> 8)}); }
  void u32(uint32_t v) {
    for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  void tag(const char* t) {
    for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<uint8_t>(t[i]));
  }
  // A chunk of `size` bytes of `fill`, padded to an even size as RIFF requires.
  void chunk(const char* t, uint32_t size, uint8_t fill) {
    tag(t);
    u32(size);
    bytes.insert(bytes.end(), size + (size & 1), fill);
  }
  std::vector<uint8_t> bytes;
};

// A WAV of `frames` frames of random samples (floats: random values in [-1.5, 1.5], no NaN).
std::vector<uint8_t> make_wav(const WavSpec& s, int64_t frames, uint32_t seed) {
  const uint16_t block = static_cast<uint16_t>(s.channels * s.bits / 8);
  const auto data_bytes = static_cast<uint32_t>(frames * block);
  std::mt19937 rng(seed);
  std::vector<uint8_t> data(data_bytes);
  if (s.is_float) {
    std::uniform_real_distribution<float> value(-1.5f, 1.5f);
    for (size_t i = 0; i + 4 <= data.size(); i += 4) {
      const float f = value(rng);
      std::memcpy(data.data() + i, &f, 4);
    }
  } else {
    for (uint8_t& b : data) b = static_cast<uint8_t>(rng());
  }
  Writer w;
  w.tag("RIFF");
  w.u32(0);  // set below
  w.tag("WAVE");
  w.tag("fmt ");
  w.u32(s.extensible ? 40 : 16);
  w.u16(s.extensible ? 0xFFFE : (s.is_float ? 3 : 1));
  w.u16(static_cast<uint16_t>(s.channels));
  w.u32(16000);
  w.u32(16000u * block);
  w.u16(block);
  w.u16(s.bits);
  if (s.extensible) {
    w.u16(22);
    w.u16(s.bits);  // valid bits
    w.u32(0);       // channel mask: unspecified
    // KSDATAFORMAT_SUBTYPE_PCM / _IEEE_FLOAT: 0000000X-0000-0010-8000-00AA00389B71
    w.u32(s.is_float ? 3 : 1);
    w.u16(0x0000);
    w.u16(0x0010);
    for (uint8_t b : {0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71}) w.bytes.push_back(b);
  }
  if (s.chunks == Chunks::kBefore) {
    w.chunk("junk", 3, 0xEE);
    w.chunk("LIST", 26, 0x41);
  }
  w.tag("data");
  w.u32(data_bytes);
  w.bytes.insert(w.bytes.end(), data.begin(), data.end());
  if (data_bytes & 1) w.bytes.push_back(0);
  if (s.chunks == Chunks::kAfter) w.chunk("LIST", 30, 0x42);
  const auto riff = static_cast<uint32_t>(w.bytes.size() - 8);
  std::memcpy(w.bytes.data() + 4, &riff, 4);
  return std::move(w.bytes);
}

// libsndfile's own read of the whole file, [frames, channels]: float32 (normalized), or the dtype load()
// gives natively (u8 from libsndfile's short, which holds (x - 128) << 8).
Tensor libsndfile_read(const fs::path& file, bool normalize, DType native) {
  SF_INFO info{};
  SNDFILE* f = sf_open(file.c_str(), SFM_READ, &info);
  EXPECT_NE(f, nullptr) << sf_strerror(nullptr);
  if (f == nullptr) return {};
  const DType dtype = normalize ? DType::kFloat32 : native;
  Tensor t = Tensor::empty({info.frames, info.channels}, dtype);
  sf_count_t got = 0;
  if (normalize) {
    got = sf_readf_float(f, t.data<float>(), info.frames);
  } else if (dtype == DType::kUInt8) {
    std::vector<short> s(static_cast<size_t>(info.frames * info.channels));
    got = sf_readf_short(f, s.data(), info.frames);
    for (size_t i = 0; i < s.size(); ++i) t.data<uint8_t>()[i] = static_cast<uint8_t>((s[i] >> 8) + 128);
  } else if (dtype == DType::kInt16) {
    got = sf_readf_short(f, t.data<int16_t>(), info.frames);
  } else if (dtype == DType::kInt32) {
    got = sf_readf_int(f, t.data<int32_t>(), info.frames);
  } else {
    got = sf_readf_float(f, t.data<float>(), info.frames);
  }
  EXPECT_EQ(got, info.frames);
  sf_close(f);
  return t;
}

DType native_of(const WavSpec& s) {
  if (s.is_float) return DType::kFloat32;
  if (s.bits == 8) return DType::kUInt8;
  return s.bits == 16 ? DType::kInt16 : DType::kInt32;
}

std::string describe(const WavSpec& s) {
  return fmt::format("{}{}-bit{}, {} channels, chunks {}", s.is_float ? "float " : "", s.bits,
                     s.extensible ? " extensible" : "", s.channels, static_cast<int>(s.chunks));
}

TEST(PcmWavTest, EveryEncodingEqualsLibsndfile) {
  loom::test::TempDir dir;
  std::vector<WavSpec> specs;
  const std::pair<uint16_t, bool> encodings[] = {{8, false}, {16, false}, {24, false}, {32, false}, {32, true}};
  int k = 0;
  for (const auto& [bits, is_float] : encodings) {
    for (int channels : {1, 2, 3, 6}) {
      specs.push_back({bits, is_float, false, channels, static_cast<Chunks>(k++ % 3)});
    }
    if (bits > 8) specs.push_back({bits, is_float, true, 2, Chunks::kBefore});
  }
  const int64_t frames = 10007;  // several of load()'s blocks and pieces, and a tail
  for (const WavSpec& s : specs) {
    SCOPED_TRACE(describe(s));
    const fs::path file = dir / "a.wav";
    const std::vector<uint8_t> bytes = make_wav(s, frames, static_cast<uint32_t>(s.bits * 10 + s.channels));
    loom::test::write_bytes(file, bytes);
    for (bool normalize : {true, false}) {
      SCOPED_TRACE(normalize ? "normalized" : "native");
      const Tensor want = libsndfile_read(file, normalize, native_of(s));
      ASSERT_EQ(want.size(0), frames);
      LoadOptions o;
      o.normalize = normalize;
      EXPECT_TRUE(same_samples(load(file, o).samples, want.permute({1, 0})));
      EXPECT_TRUE(same_samples(decode(ByteSource::from_memory(bytes, "a.wav"), o).samples, want.permute({1, 0})));
      o.channels_first = false;
      EXPECT_TRUE(same_samples(load(file, o).samples, want));
      EXPECT_TRUE(same_samples(decode(ByteSource::from_memory(bytes, "a.wav"), o).samples, want));
      for (bool first : {true, false}) {
        o.channels_first = first;
        o.frame_offset = 1234;
        o.num_frames = 5000;
        const Tensor slice = want.slice(0, 1234, 6234);
        EXPECT_TRUE(same_samples(load(file, o).samples, first ? slice.permute({1, 0}) : slice));
        o.frame_offset = 0;
        o.num_frames = -1;
      }
    }
  }
}

TEST(PcmWavTest, DataThatEndsEarlyGivesTheWholeFramesPresent) {
  loom::test::TempDir dir;
  for (const WavSpec& s : {WavSpec{16, false, false, 2}, WavSpec{24, false, false, 3}, WavSpec{32, true, false, 1}}) {
    SCOPED_TRACE(describe(s));
    std::vector<uint8_t> bytes = make_wav(s, 5000, 7);
    const fs::path full = dir / "full.wav", cut = dir / "cut.wav";
    loom::test::write_bytes(full, bytes);
    bytes.resize(bytes.size() - 1001);  // mid-frame: the data chunk claims more than is left
    loom::test::write_bytes(cut, bytes);
    const Tensor whole = load(full).samples;
    for (bool memory : {false, true}) {
      const Tensor got = memory ? decode(ByteSource::from_memory(bytes, "cut.wav")).samples : load(cut).samples;
      const int64_t present = (static_cast<int64_t>(bytes.size()) - 44) / (s.channels * s.bits / 8);
      ASSERT_EQ(got.size(1), present);
      EXPECT_TRUE(same_samples(got, whole.slice(1, 0, present).contiguous()));
    }
  }
}

}  // namespace
}  // namespace loom::audio
