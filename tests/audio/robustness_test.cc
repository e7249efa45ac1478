// Bad audio inputs from tests/robustness/CATALOG.md (section "Audio decoding"), decoded from memory
// with audio::decode and AudioReader. Every input is built here, from scratch or from a file of
// ../shared/media cut or damaged. Each case checks the behaviour the catalog writes down: a clean
// loom::Error naming the input with the expected code, or exactly the samples that are present.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "audio_reference.h"
#include "loom/audio/load.h"
#include "loom/audio/reader.h"
#include "loom/codec/error.h"
#include "test_media.h"

namespace loom::audio {
namespace {

using Bytes = std::vector<uint8_t>;

void u16(Bytes& b, uint32_t v) {
  b.push_back(static_cast<uint8_t>(v));
  b.push_back(static_cast<uint8_t>(v >> 8));
}
void u32(Bytes& b, uint32_t v) {
  for (int i = 0; i < 4; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
void tag(Bytes& b, const char* t) {
  b.insert(b.end(), t, t + 4);
}

struct Wav {
  uint16_t format = 1;
  uint16_t channels = 2;
  uint32_t rate = 8000;
  uint16_t bits = 16;
  int block_align = -1;   // -1: channels * bits / 8
  int64_t data_len = -1;  // -1: the payload's size
  Bytes payload;
};

// RIFF/WAVE with a 16-byte fmt chunk and a data chunk; the fields may lie.
Bytes wav(const Wav& w) {
  const uint32_t align = w.block_align >= 0 ? static_cast<uint32_t>(w.block_align) : w.channels * (w.bits / 8u);
  Bytes b;
  tag(b, "RIFF");
  u32(b, static_cast<uint32_t>(36 + w.payload.size()));
  tag(b, "WAVE");
  tag(b, "fmt ");
  u32(b, 16);
  u16(b, w.format);
  u16(b, w.channels);
  u32(b, w.rate);
  u32(b, w.rate * align);
  u16(b, align);
  u16(b, w.bits);
  tag(b, "data");
  u32(b, w.data_len >= 0 ? static_cast<uint32_t>(w.data_len) : static_cast<uint32_t>(w.payload.size()));
  b.insert(b.end(), w.payload.begin(), w.payload.end());
  return b;
}

Bytes ramp(size_t n) {
  Bytes b(n);
  for (size_t i = 0; i < n; ++i) b[i] = static_cast<uint8_t>(i * 7);
  return b;
}

ByteSource mem(Bytes bytes, const char* name) {
  return ByteSource::from_vector(std::move(bytes), name);
}

// decode() and AudioReader both refuse `bytes` with `code`, naming the input.
void expect_refused(const Bytes& bytes, ErrorCode code, const char* name) {
  SCOPED_TRACE(name);
  const ByteSource src = mem(bytes, name);
  const Error e = loom::test::error_of([&] { decode(src); });
  EXPECT_EQ(e.code(), code) << e.what();
  EXPECT_EQ(e.input(), name);
  const Error r = loom::test::error_of([&] {
    AudioReader reader(src);
    while (reader.read(4096).numel() > 0) {
    }
  });
  EXPECT_EQ(r.code(), code) << r.what();
  EXPECT_EQ(r.input(), name);
}

// Catalog 55-57: 0 channels, 0 Hz, 65535 channels.
TEST(AudioRobustnessTest, ZeroOrHugeChannelsAndZeroRate) {
  expect_refused(wav({.channels = 0, .payload = ramp(64)}), ErrorCode::kInvalidInput, "ch0");
  expect_refused(wav({.rate = 0, .payload = ramp(64)}), ErrorCode::kInvalidInput, "rate0");
  // libsndfile refuses more than 1024 channels, so FFmpeg gets the file: its decoder refuses them
  // (invalid_input) before loom's Limits::max_audio_channels check (limit_exceeded) sees the stream.
  const Error e =
      loom::test::error_of([&] { decode(mem(wav({.channels = 65535, .payload = ramp(65535 * 2)}), "ch")); });
  EXPECT_TRUE(e.code() == ErrorCode::kInvalidInput || e.code() == ErrorCode::kLimitExceeded) << e.what();
  EXPECT_EQ(e.input(), "ch");
  // Under loom's limit but over a lowered one: limit_exceeded.
  AudioReader ok(mem(wav({.channels = 16, .payload = ramp(320)}), "ch16"));
  EXPECT_EQ(ok.channels(), 16);
  ReaderOptions ro;
  ro.limits.max_audio_channels = 8;
  EXPECT_EQ(
      loom::test::error_code_of([&] { AudioReader r(mem(wav({.channels = 16, .payload = ramp(320)}), "ch16"), ro); }),
      ErrorCode::kLimitExceeded);
}

// Catalog 58: a data chunk that claims 4 GB in a file of 400 bytes of samples: the 100 frames present,
// nothing sized from the header (a 64 KiB output limit would refuse a buffer of the claimed size).
TEST(AudioRobustnessTest, DataChunkLongerThanTheFile) {
  const Bytes payload = ramp(400);
  const Bytes claimed = wav({.data_len = 0xFFFFFFF0, .payload = payload});
  LoadOptions o;
  o.limits.max_bytes = 64 * 1024;
  o.normalize = false;
  const Audio a = decode(mem(claimed, "long-claim"), o);
  ASSERT_EQ(a.samples.size(0), 2);
  ASSERT_EQ(a.samples.size(1), 100);
  EXPECT_TRUE(loom::test::same_samples(a.samples, decode(mem(wav({.payload = payload}), "honest"), o).samples));
  ReaderOptions ro;
  ro.limits.max_bytes = 64 * 1024;
  AudioReader reader(mem(claimed, "long-claim"), ro);
  EXPECT_EQ(reader.read(1000).size(1), 100);
  EXPECT_EQ(reader.read(1000).size(1), 0);
}

// Catalog 59: a PCM fmt chunk whose block_align lies (0, 1, 3 and 1000 for 16-bit stereo).
TEST(AudioRobustnessTest, WavWhoseFmtLiesAboutBlockAlign) {
  const Bytes payload = ramp(800);
  LoadOptions o;
  o.normalize = false;
  const Audio honest = decode(mem(wav({.payload = payload}), "honest"), o);
  ASSERT_EQ(honest.samples.size(1), 200);
  for (int align : {0, 1, 3, 1000}) {
    SCOPED_TRACE(align);
    const Audio a = decode(mem(wav({.block_align = align, .payload = payload}), "lying-align"), o);
    EXPECT_TRUE(loom::test::same_samples(a.samples, honest.samples));
  }
}

// Catalog 60: integer PCM sample widths of 0 and 33 bits.
TEST(AudioRobustnessTest, WavWithImpossibleSampleWidth) {
  for (uint16_t bits : {0, 33}) {
    SCOPED_TRACE(bits);
    const ByteSource src = mem(wav({.bits = bits, .block_align = 4, .payload = ramp(400)}), "bits");
    const Error e = loom::test::error_of([&] { decode(src); });
    EXPECT_TRUE(e.code() == ErrorCode::kInvalidInput || e.code() == ErrorCode::kUnsupported) << e.what();
    EXPECT_EQ(e.input(), "bits");
  }
}

// Catalog 61: a RIFF/WAVE header followed by random bytes (no fmt chunk), and a fmt chunk cut short.
TEST(AudioRobustnessTest, RiffHeaderThenRandomBytes) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 20; ++trial) {
    Bytes b;
    tag(b, "RIFF");
    u32(b, 4000);
    tag(b, "WAVE");
    for (int i = 0; i < 4000; ++i) b.push_back(static_cast<uint8_t>(rng()));
    const ByteSource src = mem(b, "riff-noise");
    try {
      // Noise can happen to hold chunk names; then whatever decodes must be whole frames.
      const Audio a = decode(src);
      EXPECT_GT(a.sample_rate, 0);
    } catch (const Error& e) {
      EXPECT_NE(e.code(), ErrorCode::kInternal) << e.what();
      EXPECT_EQ(e.input(), "riff-noise");
    }
  }
  Bytes cut = wav({.payload = ramp(64)});
  cut.resize(12 + 8 + 10);  // RIFF, WAVE, fmt header and 10 of its 16 bytes
  expect_refused(cut, ErrorCode::kInvalidInput, "fmt-cut");
}

// Catalog 62: WAVE_FORMAT_EXTENSIBLE whose sub-format GUID is unknown.
TEST(AudioRobustnessTest, ExtensibleWithUnknownSubformat) {
  Bytes b;
  tag(b, "RIFF");
  u32(b, 4 + 8 + 40 + 8 + 400);
  tag(b, "WAVE");
  tag(b, "fmt ");
  u32(b, 40);
  u16(b, 0xFFFE);
  u16(b, 2);
  u32(b, 8000);
  u32(b, 32000);
  u16(b, 4);
  u16(b, 16);
  u16(b, 22);                                                                // cbSize
  u16(b, 16);                                                                // valid bits
  u32(b, 3);                                                                 // channel mask
  for (int i = 0; i < 16; ++i) b.push_back(static_cast<uint8_t>(0xA0 + i));  // no such GUID
  tag(b, "data");
  u32(b, 400);
  const Bytes payload = ramp(400);
  b.insert(b.end(), payload.begin(), payload.end());
  const Error e = loom::test::error_of([&] { decode(mem(b, "bad-guid")); });
  EXPECT_TRUE(e.code() == ErrorCode::kInvalidInput || e.code() == ErrorCode::kUnsupported) << e.what();
  EXPECT_EQ(e.input(), "bad-guid");
}

// Catalog 63a: a metadata chunk claiming gigabytes (FFmpeg's WAV demuxer zero-filled what a LIST chunk
// claims: 1.6 GB from a 2 KB file, fuzz/regressions/audio_decode/oom-bcadd66...). Refused before FFmpeg
// reads it, for PCM and for ADPCM (which FFmpeg decodes); an honest LIST chunk, or a data chunk longer
// than the file (catalog 58), still decodes.
TEST(AudioRobustnessTest, MetadataChunkClaimingGigabytes) {
  auto with_list = [](uint32_t list_claim, uint16_t format = 1) {
    Bytes b = wav({.format = format, .payload = ramp(400)});
    const Bytes list = [&] {
      Bytes l;
      tag(l, "LIST");
      u32(l, list_claim);
      tag(l, "INFO");
      tag(l, "ISFT");
      u32(l, 4);
      tag(l, "abc");
      return l;
    }();
    b.insert(b.begin() + 36, list.begin(), list.end());  // before "data"
    return b;
  };
  const Error e = loom::test::error_of([&] { decode(mem(with_list(0x9D00001A), "list")); });
  EXPECT_EQ(e.code(), ErrorCode::kInvalidInput) << e.what();
  EXPECT_EQ(e.input(), "list");
  EXPECT_NE(std::string(e.what()).find("its 'LIST' chunk at byte 36 claims 2634022938 bytes, but 424 follow"),
            std::string::npos)
      << e.what();
  expect_refused(with_list(0x9D00001A), ErrorCode::kInvalidInput, "list");
  EXPECT_EQ(decode(mem(with_list(16), "honest list")).samples.size(1), 100);
  // MS ADPCM (format 2, as the fuzzer's file), which FFmpeg decodes.
  expect_refused(with_list(0x9D00001A, 2), ErrorCode::kInvalidInput, "adpcm list");
}

// Catalog 63: IMA ADPCM WAV whose block_align (the decoder's block size) is 1, 0 or 65535.
TEST(AudioRobustnessTest, AdpcmWithCraftedBlockSizes) {
  const Bytes original = loom::test::read_bytes(loom::test::media("audio/exo_sample_ima_adpcm.wav"));
  ASSERT_GT(original.size(), 100u);
  // The fmt chunk's block_align is at byte 32 in this file (canonical layout: checked here).
  ASSERT_EQ(std::memcmp(original.data() + 12, "fmt ", 4), 0);
  const int64_t frames = decode(mem(original, "adpcm")).samples.size(1);
  auto with_align = [&](uint16_t align) {
    Bytes b = original;
    b[32] = static_cast<uint8_t>(align);
    b[33] = static_cast<uint8_t>(align >> 8);
    return b;
  };
  // A block too small to hold its 4-byte header: invalid_input.
  const Error e = loom::test::error_of([&] { decode(mem(with_align(1), "adpcm-1")); });
  EXPECT_EQ(e.code(), ErrorCode::kInvalidInput) << e.what();
  EXPECT_EQ(e.input(), "adpcm-1");
  // 0 (FFmpeg's demuxer picks its own packet size) and 65535 (one block spans the file): decoded as
  // FFmpeg frames them, about the same length, mono.
  for (uint16_t align : {0, 65535}) {
    SCOPED_TRACE(align);
    const Tensor t = decode(mem(with_align(align), "adpcm")).samples;
    EXPECT_EQ(t.size(0), 1);
    EXPECT_NEAR(static_cast<double>(t.size(1)), static_cast<double>(frames), frames * 0.01);
  }
}

// Catalog 64-66: FLAC, MP3 and Opus cut inside their headers (error) and cut to a quarter (a prefix
// of the full decode, up to the damaged last packet, or a clean error; never garbage after the cut).
TEST(AudioRobustnessTest, TruncatedCompressedAudio) {
  for (const char* rel : {"audio/exo_bear.flac", "audio/nasa_13013.mp4.audio.mp3", "audio/exo_bear.opus"}) {
    SCOPED_TRACE(rel);
    const Bytes whole = loom::test::read_bytes(loom::test::media(rel));
    ASSERT_GT(whole.size(), 4096u);
    const Tensor full = decode(mem(whole, "whole")).samples;
    // MP3: the 30 bytes are only part of an ID3 tag, which FFmpeg's probe does not take for MP3.
    const ErrorCode head_code = std::string(rel).ends_with(".mp3") ? ErrorCode::kUnsupported : ErrorCode::kInvalidInput;
    const Bytes head(whole.begin(), whole.begin() + 30);
    const Error e = loom::test::error_of([&] { decode(mem(head, "head")); });
    EXPECT_EQ(e.code(), head_code) << e.what();
    EXPECT_EQ(e.input(), "head");
    const Bytes quarter(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(whole.size() / 4));
    try {
      const Tensor part = decode(mem(quarter, "quarter")).samples;
      ASSERT_LT(part.size(1), full.size(1));
      const int64_t n = std::max<int64_t>(0, part.size(1) - 4096);
      EXPECT_GT(n, 0);
      EXPECT_TRUE(loom::test::same_samples(part.slice(1, 0, n).contiguous(), full.slice(1, 0, n).contiguous()));
    } catch (const Error& err) {
      EXPECT_EQ(err.input(), "quarter");
      EXPECT_NE(err.code(), ErrorCode::kInternal) << err.what();
    }
  }
}

// The offsets of the Ogg pages in `b` ("OggS" capture patterns).
std::vector<size_t> ogg_pages(const Bytes& b) {
  std::vector<size_t> pages;
  for (size_t i = 0; i + 27 <= b.size(); ++i) {
    if (std::memcmp(b.data() + i, "OggS", 4) == 0) pages.push_back(i);
  }
  return pages;
}

// Catalog 67: an Ogg/Vorbis page with a bad CRC in the audio: libogg drops the page; the rest decodes
// (fewer frames than the clean file, the frames before the damage identical).
TEST(AudioRobustnessTest, OggAudioPageWithBadCrc) {
  const Bytes whole = loom::test::read_bytes(loom::test::media("audio/exo_bear_vorbis.ogg"));
  const std::vector<size_t> pages = ogg_pages(whole);
  ASSERT_GT(pages.size(), 6u);
  const Tensor full = decode(mem(whole, "clean")).samples;
  Bytes damaged = whole;
  const size_t page = pages[pages.size() / 2];
  damaged[page + 40] ^= 0x5A;  // inside the page body: the CRC no longer matches
  const Tensor got = decode(mem(damaged, "bad-crc")).samples;
  ASSERT_EQ(got.size(0), full.size(0));
  EXPECT_LT(got.size(1), full.size(1));
  EXPECT_GT(got.size(1), full.size(1) / 4);
  EXPECT_TRUE(loom::test::same_samples(got.slice(1, 0, 4096).contiguous(), full.slice(1, 0, 4096).contiguous()));
}

// Catalog 68: Ogg/Vorbis whose header pages are damaged (bad CRC on the identification page; the setup
// header cut short): a clean error. libsndfile 1.2.0 leaks on these (found by fuzz_audio_decode;
// vorbis_headers.h); the ASan preset runs this test with leak detection.
TEST(AudioRobustnessTest, OggVorbisWithBrokenHeaders) {
  const Bytes whole = loom::test::read_bytes(loom::test::media("audio/exo_bear_vorbis.ogg"));
  const std::vector<size_t> pages = ogg_pages(whole);
  ASSERT_GT(pages.size(), 3u);
  Bytes bad_crc = whole;
  bad_crc[pages[0] + 30] ^= 0x01;
  expect_refused(bad_crc, ErrorCode::kInvalidInput, "id-page-crc");
  // Only the first two pages (identification, then part of comment + setup): the headers never end.
  const Bytes headers_cut(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(pages[1] + 60));
  expect_refused(headers_cut, ErrorCode::kInvalidInput, "headers-cut");
}

// Catalog 69: the FFmpeg deadline (Limits::deadline_seconds) bounds a long decode: limit_exceeded.
TEST(AudioRobustnessTest, DeadlineBoundsFfmpegDecoding) {
  const ByteSource src = ByteSource::from_file(loom::test::media("audio/nasa_13013.mp4.audio.mp3"));
  LoadOptions o;
  o.limits.deadline_seconds = 1e-9;
  const Error e = loom::test::error_of([&] { decode(src, o); });
  EXPECT_EQ(e.code(), ErrorCode::kLimitExceeded) << e.what();
}

// Catalog 70: AIFF whose COMM chunk declares 0 channels (error), or a sample rate of 0 (libsndfile
// reads an 80-bit rate below 1 Hz as 1 Hz, as soundfile reports it: the samples decode unchanged).
TEST(AudioRobustnessTest, AiffWithZeroChannelsOrRate) {
  const Bytes whole = loom::test::read_bytes(loom::test::media("audio/pluck-pcm16.aiff"));
  size_t comm = 0;
  for (size_t i = 12; i + 4 < whole.size(); ++i) {
    if (std::memcmp(whole.data() + i, "COMM", 4) == 0) {
      comm = i;
      break;
    }
  }
  ASSERT_GT(comm, 0u);
  Bytes ch0 = whole;
  ch0[comm + 8] = ch0[comm + 9] = 0;  // numChannels (big-endian)
  expect_refused(ch0, ErrorCode::kInvalidInput, "aiff-ch0");
  Bytes rate0 = whole;
  for (int i = 0; i < 10; ++i) rate0[comm + 16 + i] = 0;  // the 80-bit extended sample rate
  const Audio clean = decode(mem(whole, "aiff"));
  const Audio slow = decode(mem(rate0, "aiff-rate0"));
  EXPECT_EQ(slow.sample_rate, 1);
  EXPECT_TRUE(loom::test::same_samples(slow.samples, clean.samples));
}

// Catalog 71: AudioReader on a truncated PCM file: reads stop at the data present; a seek past it gives
// 0 frames; a backward seek rereads the same samples.
TEST(AudioRobustnessTest, ReaderOnTruncatedPcmSeeksAndStops) {
  Bytes b = wav({.payload = ramp(4000)});  // 1000 frames declared
  b.resize(b.size() - 2000);               // 500 present
  ReaderOptions ro;
  ro.normalize = false;
  AudioReader reader(mem(b, "cut"), ro);
  const Tensor first = reader.read(300);
  EXPECT_EQ(first.size(1), 300);
  EXPECT_EQ(reader.read(300).size(1), 200);
  EXPECT_EQ(reader.read(300).size(1), 0);
  reader.seek(900);
  EXPECT_EQ(reader.read(300).size(1), 0);
  reader.seek(0);
  EXPECT_TRUE(loom::test::same_samples(reader.read(300), first));
}

}  // namespace
}  // namespace loom::audio
