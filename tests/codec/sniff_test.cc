// Format sniffing by magic bytes: real files from the media corpus and hand-made headers.
#include "loom/codec/sniff.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "test_media.h"

namespace loom {
namespace {
namespace fs = std::filesystem;

// The first `n` bytes of a file.
std::vector<uint8_t> head_of(const fs::path& p, size_t n = 4096) {
  std::vector<uint8_t> all = loom::test::read_bytes(p);
  if (all.size() > n) all.resize(n);
  return all;
}

std::vector<uint8_t> bytes(const std::string& s, size_t pad_to = 64) {
  std::vector<uint8_t> v(s.begin(), s.end());
  if (v.size() < pad_to) v.resize(pad_to, 0);
  return v;
}

// Expected format of each file in a corpus folder, from its documented type (SOURCES.md) and extension.
Format expected_from_extension(const fs::path& p) {
  static const std::map<std::string, Format> kByExtension = {
      {".jpg", Format::kJpeg},     {".mpo", Format::kJpeg},     {".png", Format::kPng},       {".webp", Format::kWebp},
      {".gif", Format::kGif},      {".bmp", Format::kBmp},      {".tif", Format::kTiff},      {".tiff", Format::kTiff},
      {".jp2", Format::kJpeg2000}, {".avif", Format::kAvif},    {".heif", Format::kHeif},     {".qoi", Format::kQoi},
      {".wav", Format::kWav},      {".aiff", Format::kAiff},    {".aifc", Format::kAiff},     {".flac", Format::kFlac},
      {".mp3", Format::kMp3},      {".adts", Format::kAdts},    {".au", Format::kAu},         {".ogg", Format::kOgg},
      {".opus", Format::kOgg},     {".mp4", Format::kMp4},      {".mov", Format::kMp4},       {".3gp", Format::kMp4},
      {".mkv", Format::kMatroska}, {".mka", Format::kMatroska}, {".webm", Format::kMatroska}, {".avi", Format::kAvi},
      {".ts", Format::kMpegTs},    {".ps", Format::kMpegPs},
  };
  auto it = kByExtension.find(p.extension().string());
  EXPECT_NE(it, kByExtension.end()) << "no expectation for " << p;
  return it == kByExtension.end() ? Format::kUnknown : it->second;
}

void expect_folder(const std::string& rel, MediaKind kind_for_media) {
  const fs::path dir = loom::test::media(rel);
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    const Format want = expected_from_extension(entry.path());
    const Format got = sniff_format(head_of(entry.path()));
    EXPECT_EQ(format_name(got), format_name(want)) << entry.path();
    if (kind_for_media != MediaKind::kUnknown && want != Format::kMp4 && want != Format::kMatroska &&
        want != Format::kOgg && want != Format::kMpegTs && want != Format::kMpegPs) {
      EXPECT_EQ(kind_name(media_kind(got)), kind_name(kind_for_media)) << entry.path();
    }
    ++checked;
  }
  EXPECT_GT(checked, 0) << rel;
}

TEST(SniffTest, RealJpegFiles) {
  expect_folder("images/jpeg", MediaKind::kImage);
}
TEST(SniffTest, RealPngFiles) {
  expect_folder("images/png", MediaKind::kImage);
}
TEST(SniffTest, RealOtherImageFiles) {
  expect_folder("images/other", MediaKind::kImage);
}
TEST(SniffTest, RealAudioFiles) {
  expect_folder("audio", MediaKind::kAudio);
}
TEST(SniffTest, RealVideoFiles) {
  expect_folder("video", MediaKind::kUnknown);
}

TEST(SniffTest, RealAviIsVideoAndContainersAreContainers) {
  EXPECT_EQ(media_kind(sniff_format(head_of(loom::test::media("video/exo_sample.avi")))), MediaKind::kVideo);
  for (const char* rel : {"video/nasa_13013.mp4", "video/av1_video.mkv", "video/exo_sample_h262_mpeg_audio.ts",
                          "video/exo_sample_h262_mpeg_audio.ps", "audio/exo_bear.opus"}) {
    EXPECT_EQ(media_kind(sniff_format(head_of(loom::test::media(rel)))), MediaKind::kContainer) << rel;
  }
}

TEST(SniffTest, OnlyTheFirstBytesAreNeeded) {
  // 64 bytes are enough for everything but MPEG-TS, which needs 377.
  const fs::path png = loom::test::media("images/png/hopper.png");
  EXPECT_EQ(sniff_format(head_of(png, 64)), Format::kPng);
  const fs::path ts = loom::test::media("video/exo_sample_h262_mpeg_audio.ts");
  EXPECT_EQ(sniff_format(head_of(ts, 377)), Format::kMpegTs);
  EXPECT_NE(sniff_format(head_of(ts, 376)), Format::kMpegTs);
}

TEST(SniffTest, HandMadeImageHeaders) {
  EXPECT_EQ(sniff_format(bytes("\xFF\xD8\xFF\xE0")), Format::kJpeg);
  EXPECT_EQ(sniff_format(bytes("\x89PNG\r\n\x1a\n")), Format::kPng);
  EXPECT_EQ(sniff_format(bytes(std::string("RIFF\x10\0\0\0WEBPVP8 ", 16))), Format::kWebp);
  EXPECT_EQ(sniff_format(bytes("GIF87a")), Format::kGif);
  EXPECT_EQ(sniff_format(bytes("GIF89a")), Format::kGif);
  EXPECT_EQ(sniff_format(bytes("BM")), Format::kBmp);
  EXPECT_EQ(sniff_format(bytes(std::string("II*\0", 4))), Format::kTiff);
  EXPECT_EQ(sniff_format(bytes(std::string("MM\0*", 4))), Format::kTiff);
  EXPECT_EQ(sniff_format(bytes(std::string("\0\0\0\x0cjP  \r\n\x87\n", 12))), Format::kJpeg2000);
  EXPECT_EQ(sniff_format(bytes("\xff\x4f\xff\x51")), Format::kJpeg2000);  // raw J2K codestream
  EXPECT_EQ(sniff_format(bytes(std::string("\0\0\0\x1c"
                                           "ftypavif",
                                           12))),
            Format::kAvif);
  EXPECT_EQ(sniff_format(bytes(std::string("\0\0\0\x1c"
                                           "ftypavis",
                                           12))),
            Format::kAvif);
  EXPECT_EQ(sniff_format(bytes(std::string("\0\0\0\x1c"
                                           "ftypheic",
                                           12))),
            Format::kHeif);
  EXPECT_EQ(sniff_format(bytes(std::string("\0\0\0\x1c"
                                           "ftypmif1",
                                           12))),
            Format::kHeif);
  EXPECT_EQ(sniff_format(bytes("qoif")), Format::kQoi);
  EXPECT_EQ(sniff_format(bytes("P6\n3 2\n255\n")), Format::kPnm);
  EXPECT_EQ(sniff_format(bytes("P5 128 128 255 ")), Format::kPnm);
  EXPECT_EQ(sniff_format(bytes("P1\r\n")), Format::kPnm);
  EXPECT_EQ(sniff_format(bytes("P7\nWIDTH 2\n")), Format::kPnm);
}

TEST(SniffTest, HandMadeAudioAndContainerHeaders) {
  EXPECT_EQ(sniff_format(bytes(std::string("RIFF\x24\0\0\0WAVEfmt ", 16))), Format::kWav);
  EXPECT_EQ(sniff_format(bytes(std::string("RF64\xff\xff\xff\xffWAVEds64", 16))), Format::kWav);
  EXPECT_EQ(sniff_format(bytes(std::string("FORM\0\0\0\x20"
                                           "AIFF",
                                           12))),
            Format::kAiff);
  EXPECT_EQ(sniff_format(bytes(std::string("FORM\0\0\0\x20"
                                           "AIFC",
                                           12))),
            Format::kAiff);
  EXPECT_EQ(sniff_format(bytes("fLaC")), Format::kFlac);
  EXPECT_EQ(sniff_format(bytes("ID3\x04")), Format::kMp3);
  // MPEG-1 Layer III, 128 kbit/s, 44.1 kHz frame header without an ID3 tag.
  EXPECT_EQ(sniff_format(bytes("\xFF\xFB\x90\x64")), Format::kMp3);
  // ADTS: sync 0xFFF, MPEG-4, layer 00, no CRC; AAC LC 44.1 kHz.
  EXPECT_EQ(sniff_format(bytes("\xFF\xF1\x50\x80\x02\x1F\xFC")), Format::kAdts);
  EXPECT_EQ(sniff_format(bytes(".snd")), Format::kAu);
  EXPECT_EQ(sniff_format(bytes("OggS")), Format::kOgg);
  EXPECT_EQ(sniff_format(bytes(std::string("\0\0\0\x18"
                                           "ftypisom",
                                           12))),
            Format::kMp4);
  EXPECT_EQ(sniff_format(bytes(std::string("\0\0\0\x14"
                                           "ftypqt  ",
                                           12))),
            Format::kMp4);
  EXPECT_EQ(sniff_format(bytes("\x1a\x45\xdf\xa3")), Format::kMatroska);
  EXPECT_EQ(sniff_format(bytes(std::string("RIFF\0\0\0\0AVI LIST", 16))), Format::kAvi);
  EXPECT_EQ(sniff_format(bytes(std::string("\0\0\x01\xba\x44", 5))), Format::kMpegPs);
  std::vector<uint8_t> ts(188 * 3, 0xFF);
  ts[0] = ts[188] = ts[376] = 0x47;
  EXPECT_EQ(sniff_format(ts), Format::kMpegTs);
  ts[188] = 0x48;
  EXPECT_NE(sniff_format(ts), Format::kMpegTs);
}

TEST(SniffTest, NearMissesAreUnknown) {
  EXPECT_EQ(sniff_format(bytes(std::string("RIFF\0\0\0\0XXXX", 12))), Format::kUnknown);
  EXPECT_EQ(sniff_format(bytes("GIF88a")), Format::kUnknown);
  EXPECT_EQ(sniff_format(bytes("\x89PNG\r\n\x1a")), Format::kUnknown);  // last signature byte missing (pad is 0)
  EXPECT_EQ(sniff_format(bytes("P8\n")), Format::kUnknown);
  EXPECT_EQ(sniff_format(bytes("P6x")), Format::kUnknown);
  EXPECT_EQ(sniff_format(bytes(std::string("FORM\0\0\0\x20"
                                           "8SVX",
                                           12))),
            Format::kUnknown);
  // MPEG audio frame with a reserved version, layer or sample-rate index, or a "bad" bitrate index.
  EXPECT_EQ(sniff_format(bytes("\xFF\xEB\x90\x64")), Format::kUnknown);  // version 01 (reserved)
  EXPECT_EQ(sniff_format(bytes("\xFF\xFB\xF0\x64")), Format::kUnknown);  // bitrate index 15
  EXPECT_EQ(sniff_format(bytes("\xFF\xFB\x00\x64")), Format::kUnknown);  // free-format bitrate 0
  EXPECT_EQ(sniff_format(bytes("\xFF\xFB\x9C\x64")), Format::kUnknown);  // sample-rate index 3
  EXPECT_EQ(sniff_format(bytes("hello, world\n")), Format::kUnknown);
  EXPECT_EQ(sniff_format(bytes("#EXTM3U\n#EXT-X-VERSION:3\n")), Format::kUnknown);
  EXPECT_EQ(sniff_format(bytes("ffconcat version 1.0\n")), Format::kUnknown);
}

TEST(SniffTest, TruncatedHeadsMatchLess) {
  EXPECT_EQ(sniff_format({}), Format::kUnknown);
  EXPECT_EQ(sniff_format(std::span<const uint8_t>()), Format::kUnknown);
  const std::vector<uint8_t> one = {0xFF};
  EXPECT_EQ(sniff_format(one), Format::kUnknown);
  const std::vector<uint8_t> bm = {'B', 'M'};  // BMP needs its 14-byte file header
  EXPECT_EQ(sniff_format(bm), Format::kUnknown);
  const std::vector<uint8_t> riff = {'R', 'I', 'F', 'F', 0, 0, 0, 0, 'W', 'A', 'V'};
  EXPECT_EQ(sniff_format(riff), Format::kUnknown);
  const std::vector<uint8_t> adts = {0xFF, 0xF1, 0x50, 0x80};  // ADTS needs its 7-byte header
  EXPECT_EQ(sniff_format(adts), Format::kUnknown);
  // Every prefix of a real file is sniffed without reading past its end (run under ASan to see it).
  const std::vector<uint8_t> jpeg = head_of(loom::test::media("images/jpeg/hopper.jpg"), 600);
  for (size_t n = 0; n <= jpeg.size(); ++n) sniff_format(std::span<const uint8_t>(jpeg.data(), n));
}

TEST(SniffTest, RandomBytesAreUnknown) {
  // Seeded, so the run is reproducible; the first byte avoids every magic's first byte.
  std::mt19937 rng(12345);
  for (int trial = 0; trial < 500; ++trial) {
    std::vector<uint8_t> b(512);
    for (auto& x : b) x = static_cast<uint8_t>(rng() >> 24);
    b[0] = static_cast<uint8_t>(0x01 + (b[0] % 0x20));  // 0x01..0x20: no format starts with these (0x1A is EBML)
    if (b[0] == 0x1A) b[0] = 0x1B;
    EXPECT_EQ(sniff_format(b), Format::kUnknown) << "trial " << trial;
  }
  // Fully random heads: every one that sniffs as a format must really start with that format's magic.
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<uint8_t> b(64);
    for (auto& x : b) x = static_cast<uint8_t>(rng() >> 24);
    const Format f = sniff_format(b);
    if (f == Format::kUnknown) continue;
    EXPECT_TRUE(f == Format::kMp3 || f == Format::kAdts || f == Format::kBmp || f == Format::kJpeg || f == Format::kPnm)
        << "random bytes sniffed as " << format_name(f);
  }
}

TEST(SniffTest, NamesAndKinds) {
  EXPECT_EQ(format_name(Format::kUnknown), "unknown");
  EXPECT_EQ(format_name(Format::kJpeg), "jpeg");
  EXPECT_EQ(format_name(Format::kPng), "png");
  EXPECT_EQ(format_name(Format::kMp4), "mp4");
  EXPECT_EQ(format_name(Format::kMatroska), "matroska");
  EXPECT_EQ(format_name(Format::kMpegTs), "mpegts");
  EXPECT_EQ(kind_name(MediaKind::kUnknown), "unknown");
  EXPECT_EQ(kind_name(MediaKind::kImage), "image");
  EXPECT_EQ(kind_name(MediaKind::kAudio), "audio");
  EXPECT_EQ(kind_name(MediaKind::kVideo), "video");
  EXPECT_EQ(kind_name(MediaKind::kContainer), "container");
  for (Format f : {Format::kJpeg, Format::kPng, Format::kWebp, Format::kGif, Format::kBmp, Format::kTiff,
                   Format::kJpeg2000, Format::kAvif, Format::kHeif, Format::kQoi, Format::kPnm}) {
    EXPECT_EQ(media_kind(f), MediaKind::kImage) << format_name(f);
  }
  for (Format f : {Format::kWav, Format::kAiff, Format::kFlac, Format::kMp3, Format::kAdts, Format::kAu}) {
    EXPECT_EQ(media_kind(f), MediaKind::kAudio) << format_name(f);
  }
  for (Format f : {Format::kOgg, Format::kMp4, Format::kMatroska, Format::kMpegTs, Format::kMpegPs}) {
    EXPECT_EQ(media_kind(f), MediaKind::kContainer) << format_name(f);
  }
  EXPECT_EQ(media_kind(Format::kAvi), MediaKind::kVideo);
  EXPECT_EQ(media_kind(Format::kUnknown), MediaKind::kUnknown);
  // Every format has a distinct name; only kUnknown reads "unknown".
  std::map<std::string, int> seen;
  for (int i = 0; i <= static_cast<int>(Format::kMpegPs); ++i) ++seen[std::string(format_name(static_cast<Format>(i)))];
  for (const auto& [name, count] : seen) EXPECT_EQ(count, 1) << name;
}

}  // namespace
}  // namespace loom
