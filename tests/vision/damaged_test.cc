// Bad input is normal input: every file in ../shared/media/images_damaged, and hand-made bad
// inputs, give either a complete image or a loom::Error that names the input — never a crash, a
// hang or a half-filled image. The table below is the written-down expected behaviour of each file.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <string>

#include "image_test_util.h"
#include "loom/codec/error.h"
#include "loom/vision/image.h"
#include "test_media.h"

namespace loom::vision {
namespace {

namespace fs = std::filesystem;
using test::media;

struct Expected {
  bool decodes;         // a full image comes out
  ErrorCode code;       // otherwise this error
  const char* message;  // and its message contains this
};

constexpr Expected kOk{true, ErrorCode::kInternal, ""};
constexpr Expected kTruncated{false, ErrorCode::kInvalidInput, "truncated"};
constexpr Expected kUnsupportedFormat{false, ErrorCode::kUnsupported, "not supported"};

// File (relative to images_damaged/) -> expected behaviour. JPEG 2000 files, a format loom does not
// decode, are kUnsupported whatever their damage and are checked by folder below.
const std::map<std::string, Expected>& expectations() {
  static const std::map<std::string, Expected> kTable = {
      // Broken metadata around intact JPEG data: the pixels decode; a bad EXIF block is ignored.
      {"jpeg/broken_exif_dpi.jpg", kOk},
      {"jpeg/empty_gps_ifd.jpg", kOk},
      {"jpeg/exif-dpi-zerodivision.jpg", kOk},
      {"jpeg/exif-ifd-offset.jpg", kOk},
      {"jpeg/exif_gps_typeerror.jpg", kOk},
      {"jpeg/exif_typeerror.jpg", kOk},
      {"jpeg/hopper_bad_exif.jpg", kOk},
      {"jpeg/icc-after-SOF.jpg", kOk},
      {"jpeg/invalid-exif-without-x-resolution.jpg", kOk},
      {"jpeg/invalid-exif.jpg", kOk},
      {"jpeg/photoshop-200dpi-broken.jpg", kOk},
      {"jpeg/truncated_exif_dpi.jpg", kOk},  // Pillow refuses it over its EXIF; the image data is whole
      {"jpeg/truncated_app14.jpg", kOk},
      {"jpeg/xmp_padded.jpg", kOk},
      // Garbage between markers: libjpeg skips it with a corrupt-data warning, as Pillow does.
      {"jpeg/jpeg_ff00_header.jpg", kOk},
      {"jpeg/junk_jpeg_header.jpg", kOk},
      // MPO files with damaged multi-picture data: the first picture decodes.
      {"jpeg/sugarshack_bad_mpo_header.jpg", kOk},
      {"jpeg/sugarshack_ifd_offset.mpo", kOk},
      {"jpeg/sugarshack_no_data.mpo", kOk},
      // Entropy-coded data ends early: an error, never gray fill (Pillow: "image file is truncated").
      {"jpeg/truncated_jpeg.jpg", kTruncated},
      {"jpeg/ultrahdr.jpg", kTruncated},
      // APNG control chunks are ignored: loom decodes the default image, whatever the animation says.
      {"png/apng_chunk_actl_after_idat.png", kOk},
      {"png/apng_chunk_multi_actl.png", kOk},
      {"png/apng_chunk_no_actl.png", kOk},
      {"png/apng_chunk_no_fctl.png", kOk},
      {"png/apng_chunk_no_fdat.png", kOk},
      {"png/apng_chunk_repeat_fctl.png", kOk},
      {"png/apng_sequence_gap.png", kOk},
      {"png/apng_sequence_reorder.png", kOk},
      {"png/apng_sequence_repeat.png", kOk},
      {"png/apng_sequence_start.png", kOk},
      {"png/apng_syntax_num_frames_high.png", kOk},
      {"png/apng_syntax_num_frames_invalid.png", kOk},
      {"png/apng_syntax_num_frames_low.png", kOk},
      // IEND before the image data: libpng stops with an error.
      {"png/apng_syntax_num_frames_zero.png", {false, ErrorCode::kInvalidInput, "IEND"}},
      {"png/broken.png", {false, ErrorCode::kInvalidInput, "invalid chunk type"}},
      {"png/broken_data_stream.png", {false, ErrorCode::kInvalidInput, "filter"}},
      // Extra IDAT after the image, padding, a truncated IEND: all pixels are there.
      {"png/hopper_idat_after_image_end.png", kOk},
      {"png/padded_idat.png", kOk},
      {"png/truncated_end_chunk.png", kOk},
      // A zTXt decompression bomb: the chunk is dropped at Limits::max_png_chunk_bytes, pixels decode.
      {"png/png_decompression_dos.png", kOk},
      {"png/truncated_image.png", kTruncated},
      // The IHDR's unknown compression method is in an ancillary chunk's field; the image decodes.
      {"png/unknown_compression_method.png", kOk},
      // libpng's own bad test file: its signature is damaged, so it is no PNG at all.
      {"png/pngtest_bad.png.bin", {false, ErrorCode::kInvalidInput, "unknown format"}},
      // Not a PNM loom knows ("P6" followed by digits): unknown format.
      {"other/negative_size.ppm", {false, ErrorCode::kInvalidInput, "unknown format"}},
      // AVIF without its pixel information property: libavif refuses the container.
      {"avif/hopper-missing-pixi.avif", {false, ErrorCode::kInvalidInput, "AVIF: BMFF parsing failed"}},
      // bmpsuite's bad files. Fields no decoder needs (bits size, densities, file size, planes) are
      // ignored, as Pillow does; a palette larger than its bit depth allows is cut to 2^bits; an index
      // past the palette is black; a broken RLE stream stops where it breaks (the rest is index 0).
      {"bmp/bmpsuite_bad_badbitcount.bmp", {false, ErrorCode::kInvalidInput, "30000 bits per pixel"}},
      {"bmp/bmpsuite_bad_badbitssize.bmp", kOk},
      {"bmp/bmpsuite_bad_baddens1.bmp", kOk},
      {"bmp/bmpsuite_bad_baddens2.bmp", kOk},
      {"bmp/bmpsuite_bad_badfilesize.bmp", kOk},
      {"bmp/bmpsuite_bad_badheadersize.bmp", {false, ErrorCode::kInvalidInput, "unknown header size 66"}},
      {"bmp/bmpsuite_bad_badpalettesize.bmp", kOk},
      {"bmp/bmpsuite_bad_badplanes.bmp", kOk},
      {"bmp/bmpsuite_bad_badrle.bmp", kOk},
      {"bmp/bmpsuite_bad_badwidth.bmp", {false, ErrorCode::kInvalidInput, "no pixels"}},
      {"bmp/bmpsuite_bad_pal8badindex.bmp", kOk},
      {"bmp/bmpsuite_bad_reallybig.bmp", {false, ErrorCode::kLimitExceeded, "exceeds the limit"}},
      {"bmp/bmpsuite_bad_rletopdown.bmp", {false, ErrorCode::kInvalidInput, "top-down"}},
      {"bmp/bmpsuite_bad_shortfile.bmp", kTruncated},
      {"bmp/hopper_rle8_row_overflow.bmp", kOk},  // runs past a row's end are dropped
      // GIFs without a color table read as gray levels, as Pillow's "L".
      {"gif/missing_background.gif", kOk},
      {"gif/no_palette.gif", kOk},
      {"gif/no_palette_with_background.gif", kOk},
      {"gif/no_palette_with_transparency.gif", kOk},
      // libtiff's and Pillow's crash reproducers: strips or tiles past the end of the file, broken
      // directories, a 160 GiB allocation (refused at Limits::max_bytes), tags of no type.
      {"tiff/crash-0c7e0e8e11ce787078f00b5b0ca409a167f070e0.tif", kTruncated},
      {"tiff/crash-0da013a13571cc8eb457a39fee8db18f8a3c7127.tif", kOk},
      {"tiff/crash-0e16d3bfb83be87356d026d66919deaefca44dac.tif", kTruncated},
      {"tiff/crash-1152ec2d1a1a71395b6f2ce6721c38924d025bf3.tif", kTruncated},
      {"tiff/crash-1185209cf7655b5aed8ae5e77784dfdd18ab59e9.tif", kTruncated},
      {"tiff/crash-2020-10-test.tif", {false, ErrorCode::kInvalidInput, "TIFF: TIFFFetchNormalTag"}},
      {"tiff/crash-338516dbd2f0e83caddb8ce256c22db3bd6dc40f.tif", kTruncated},
      {"tiff/crash-4f085cc12ece8cde18758d42608bed6a2a2cfb1c.tif", kTruncated},
      {"tiff/crash-63b1dffefc8c075ddc606c0a2f5fdc15ece78863.tif",
       {false, ErrorCode::kInvalidInput, "TIFF: TIFFFetchNormalTag"}},
      {"tiff/crash-74d2a78403a5a59db1fb0a2b8735ac068a75f6e3.tif", kOk},
      {"tiff/crash-86214e58da443d2b80820cff9677a38a33dcbbca.tif", kTruncated},
      {"tiff/crash-f46f5b2f43c370fe65706c11449f567ecc345e74.tif", kTruncated},
      {"tiff/libtiff_segfault.tif", {false, ErrorCode::kLimitExceeded, "beyond the 4294967296 byte limit"}},
      {"tiff/oom-225817ca0f8c663be7ab4b9e717b02c661e66834.tif",
       {false, ErrorCode::kInvalidInput, "Can not read TIFF directory"}},
      {"tiff/seek_too_large.tif", {false, ErrorCode::kInvalidInput, "Seek error"}},  // a BigTIFF
      {"tiff/tiff_overflow_rows_per_strip.tif", kOk},
      {"tiff/tiff_wrong_bits_per_sample.tiff", kOk},
      {"tiff/tiff_wrong_bits_per_sample_2.tiff", kOk},
      {"tiff/tiff_wrong_bits_per_sample_3.tiff", kOk},
  };
  return kTable;
}

void check(const ByteSource& src, const Expected& expected, const std::string& label) {
  try {
    const Tensor t = decode_image(src);
    EXPECT_TRUE(expected.decodes) << label << " decoded but should fail";
    EXPECT_GT(t.numel(), 0) << label;
  } catch (const Error& e) {
    EXPECT_FALSE(expected.decodes) << label << " failed: " << e.what();
    if (expected.decodes) return;
    EXPECT_EQ(e.code(), expected.code) << label << ": " << e.what();
    EXPECT_NE(e.message().find(expected.message), std::string::npos) << label << ": " << e.what();
    EXPECT_EQ(e.input(), src.name()) << "the error must name the input";
  }
}

TEST(DamagedImages, EveryFileBehavesAsWrittenDown) {
  const fs::path root = media("images_damaged");
  std::set<std::string> seen;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file()) continue;
    const std::string rel = entry.path().lexically_relative(root).string();
    const std::string folder = rel.substr(0, rel.find('/'));
    const ByteSource src = ByteSource::from_file(entry.path());
    if (folder == "jp2") {
      // A format loom does not decode; the sniffer still names it (a few are too broken to sniff).
      try {
        decode_image(src);
        ADD_FAILURE() << rel << " decoded";
      } catch (const Error& e) {
        EXPECT_TRUE(e.code() == ErrorCode::kUnsupported || e.code() == ErrorCode::kInvalidInput)
            << rel << ": " << e.what();
      }
      continue;
    }
    const auto it = expectations().find(rel);
    if (it == expectations().end()) {
      ADD_FAILURE() << rel << " has no written-down expected behaviour";
      continue;
    }
    seen.insert(rel);
    check(src, it->second, rel);
  }
  EXPECT_EQ(seen.size(), expectations().size()) << "a file in the table is missing from the corpus";
}

TEST(DamagedImages, CorpusFormatsLoomDoesNotDecodeAreUnsupported) {
  for (const char* rel : {"images/other/hopper.qoi", "images/other/test-card-lossless.jp2"}) {
    check(ByteSource::from_file(media(rel)), kUnsupportedFormat, rel);
  }
}

// ---- Hand-made bad inputs ----

std::vector<uint8_t> file_bytes(const std::string& rel) {
  return test::read_bytes(media(rel));
}

ByteSource named(std::vector<uint8_t> bytes, const std::string& name) {
  return ByteSource::from_vector(std::move(bytes), name);
}

TEST(BadInput, EmptyAndRandomBytes) {
  check(named({}, "empty.jpg"), {false, ErrorCode::kInvalidInput, "empty"}, "empty");
  std::mt19937 rng(7);
  std::vector<uint8_t> noise(4096);
  for (auto& b : noise) b = static_cast<uint8_t>(rng());
  noise[0] = 0x00;  // keep it from looking like any format by chance
  check(named(noise, "noise.jpg"), {false, ErrorCode::kInvalidInput, "unknown format"}, "noise");
}

TEST(BadInput, JpegCutAnywhereFailsCleanly) {
  const std::vector<uint8_t> whole = file_bytes("images/jpeg/flower.jpg");
  for (size_t cut : {size_t{3}, size_t{20}, size_t{200}, whole.size() / 3, whole.size() / 2, whole.size() - 100}) {
    std::vector<uint8_t> part(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(cut));
    try {
      decode_image(named(part, "cut.jpg"));
      ADD_FAILURE() << "cut at " << cut << " decoded";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kInvalidInput) << e.what();
      EXPECT_EQ(e.input(), "cut.jpg");
    }
  }
}

// Every other format, cut in its header, in its first pixels and near its end: an error naming the
// input, never a crash or a partial image.
TEST(BadInput, EveryFormatCutAnywhereFailsCleanly) {
  for (const char* rel :
       {"images/other/hopper.webp", "images/other/iss634.webp", "images/other/hopper.gif", "images/other/chi.gif",
        "images/other/hopper.tif", "images/other/tiff_16bit_RGB.tiff", "images/other/hopper.avif",
        "images/other/hopper.heif", "images/other/hopper.bmp", "images/other/bmpsuite_pal4rle.bmp"}) {
    const std::vector<uint8_t> whole = file_bytes(rel);
    for (size_t cut : {size_t{12}, size_t{40}, whole.size() / 3, whole.size() / 2, whole.size() * 9 / 10}) {
      std::vector<uint8_t> part(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(cut));
      try {
        decode_image_frames(named(part, "cut"));
        ADD_FAILURE() << rel << " cut at " << cut << " decoded";
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::kInvalidInput) << rel << " cut at " << cut << ": " << e.what();
        EXPECT_EQ(e.input(), "cut");
      }
    }
  }
}

// Loom's pixel limit holds for every format, checked from the header before pixels are allocated.
TEST(BadInput, EveryFormatHonoursThePixelLimit) {
  DecodeOptions small;
  small.limits.max_pixels = 1000;
  for (const char* rel :
       {"images/other/hopper.webp", "images/other/iss634.webp", "images/other/hopper.gif", "images/other/hopper.tif",
        "images/other/hopper.avif", "images/other/hopper.heif", "images/other/hopper.bmp"}) {
    const ByteSource src = ByteSource::from_file(media(rel));
    try {
      decode_image_frames(src, small);
      ADD_FAILURE() << rel << " decoded past the limit";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kLimitExceeded) << rel << ": " << e.what();
    }
  }
}

TEST(BadInput, ProgressiveJpegCutMidScanFails) {
  JpegEncodeOptions jo;
  jo.layout = Layout::kHWC;
  jo.progressive = true;
  const std::vector<uint8_t> whole = encode_jpeg(test::make_image(64, 64, 3), jo);
  std::vector<uint8_t> part(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(whole.size() * 2 / 3));
  check(named(part, "cut_progressive.jpg"), kTruncated, "progressive cut");
}

// Offset of the SOF0/SOF2 marker of a JPEG.
size_t sof_offset(const std::vector<uint8_t>& jpeg) {
  for (size_t i = 2; i + 9 < jpeg.size(); ++i)
    if (jpeg[i] == 0xFF && (jpeg[i + 1] == 0xC0 || jpeg[i + 1] == 0xC2)) return i;
  return 0;
}

// hopper.jpg with its SOF claiming `height` x `width`.
std::vector<uint8_t> jpeg_claiming(int height, int width) {
  std::vector<uint8_t> bytes = file_bytes("images/jpeg/hopper.jpg");
  const size_t sof = sof_offset(bytes);
  EXPECT_GT(sof, 0u);
  bytes[sof + 5] = static_cast<uint8_t>(height >> 8);
  bytes[sof + 6] = static_cast<uint8_t>(height);
  bytes[sof + 7] = static_cast<uint8_t>(width >> 8);
  bytes[sof + 8] = static_cast<uint8_t>(width);
  return bytes;
}

TEST(BadInput, HugeJpegIsRefusedBeforeAllocating) {
  // 65500 is libjpeg's largest dimension: 4.3 G pixels, refused by loom's pixel limit.
  check(named(jpeg_claiming(65500, 65500), "huge.jpg"), {false, ErrorCode::kLimitExceeded, "exceeds the limit"},
        "65500x65500");
  // Past libjpeg's own maximum.
  check(named(jpeg_claiming(65535, 65535), "huger.jpg"), {false, ErrorCode::kInvalidInput, "dimension"}, "65535x65535");
}

TEST(BadInput, ZeroSizeJpegIsInvalid) {
  try {
    decode_image(named(jpeg_claiming(0, 128), "zero.jpg"));
    FAIL() << "decoded a zero-height JPEG";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidInput) << e.what();
  }
}

TEST(BadInput, ProgressiveScanLimit) {
  JpegEncodeOptions jo;
  jo.layout = Layout::kHWC;
  jo.progressive = true;  // libjpeg's simple progression writes 10 scans for color
  const std::vector<uint8_t> bytes = encode_jpeg(test::make_image(32, 32, 3), jo);
  DecodeOptions opt;
  opt.limits.max_jpeg_scans = 3;
  try {
    decode_image(named(bytes, "scans.jpg"), opt);
    FAIL() << "scan limit not enforced";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kLimitExceeded) << e.what();
  }
  opt.limits.max_jpeg_scans = 10;
  EXPECT_NO_THROW(decode_image(named(bytes, "scans.jpg"), opt));
}

TEST(BadInput, ManyCommentMarkersAreSkippedQuickly) {
  std::vector<uint8_t> bytes = file_bytes("images/jpeg/hopper.jpg");
  std::vector<uint8_t> comments;
  for (int i = 0; i < 100000; ++i) comments.insert(comments.end(), {0xFF, 0xFE, 0x00, 0x03, 'x'});
  bytes.insert(bytes.begin() + 2, comments.begin(), comments.end());
  check(named(bytes, "comments.jpg"), kOk, "100k COM markers");
}

// PNG chunk helpers: big-endian length, type, data, CRC.
uint32_t crc32(const uint8_t* p, size_t n) {
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; ++i) {
    c ^= p[i];
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
  }
  return ~c;
}

void put32(std::vector<uint8_t>& v, uint32_t x) {
  for (int s = 24; s >= 0; s -= 8) v.push_back(static_cast<uint8_t>(x >> s));
}

std::vector<uint8_t> chunk(const char* type, const std::vector<uint8_t>& data) {
  std::vector<uint8_t> c;
  put32(c, static_cast<uint32_t>(data.size()));
  c.insert(c.end(), type, type + 4);
  c.insert(c.end(), data.begin(), data.end());
  put32(c, crc32(c.data() + 4, data.size() + 4));
  return c;
}

TEST(BadInput, PngShorterThanItsSignature) {
  const std::vector<uint8_t> sig = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  check(named({sig.begin(), sig.begin() + 5}, "short.png"), {false, ErrorCode::kInvalidInput, "unknown format"},
        "short");
  check(named(sig, "sig_only.png"), kTruncated, "signature only");
}

TEST(BadInput, PngWithAHugeIhdrIsRefused) {
  std::vector<uint8_t> bytes = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  std::vector<uint8_t> ihdr;
  put32(ihdr, 0x7FFFFFFF);
  put32(ihdr, 0x7FFFFFFF);
  ihdr.insert(ihdr.end(), {8, 2, 0, 0, 0});
  const auto c = chunk("IHDR", ihdr);
  bytes.insert(bytes.end(), c.begin(), c.end());
  try {
    decode_image(named(bytes, "huge.png"));
    FAIL() << "decoded";
  } catch (const Error& e) {
    EXPECT_TRUE(e.code() == ErrorCode::kLimitExceeded || e.code() == ErrorCode::kInvalidInput) << e.what();
  }
}

// hopper.png with `extra` chunks inserted after IHDR.
std::vector<uint8_t> png_with(const std::vector<uint8_t>& extra) {
  std::vector<uint8_t> bytes = file_bytes("images/png/hopper.png");
  const size_t after_ihdr = 8 + 8 + 13 + 4;
  bytes.insert(bytes.begin() + after_ihdr, extra.begin(), extra.end());
  return bytes;
}

TEST(BadInput, PngCrcOnAncillaryChunkIsSkippedOnCriticalIsAnError) {
  std::vector<uint8_t> text = chunk("tEXt", {'k', 0, 'v'});
  text.back() ^= 0xFF;
  const Tensor good = decode_image(ByteSource::from_file(media("images/png/hopper.png")));
  EXPECT_TRUE(test::same_pixels(decode_image(named(png_with(text), "bad_text_crc.png")), good));

  std::vector<uint8_t> bytes = file_bytes("images/png/hopper.png");
  bytes[8 + 8 + 13] ^= 0xFF;  // IHDR's CRC
  check(named(bytes, "bad_ihdr_crc.png"), {false, ErrorCode::kInvalidInput, "CRC"}, "IHDR CRC");
}

TEST(BadInput, ThousandsOfAncillaryChunksHitTheChunkLimit) {
  std::vector<uint8_t> many;
  for (int i = 0; i < 5000; ++i) {
    const auto c = chunk("tEXt", {'k', 0, static_cast<uint8_t>('a' + i % 26)});
    many.insert(many.end(), c.begin(), c.end());
  }
  // Beyond the chunk cache libpng stops keeping them; the image still decodes, in bounded memory.
  check(named(png_with(many), "many_chunks.png"), kOk, "5000 tEXt chunks");
}

// libpng 1.6.39 allocates an ancillary chunk's declared length before reading it (found by
// fuzz_image_decode: an iTXt declaring 1.9 GB in a 198-byte file); loom's allocator refuses it.
TEST(BadInput, PngChunkLongerThanTheFileIsNotAllocated) {
  for (const char* type : {"iTXt", "eXIf", "zTXt"}) {
    std::vector<uint8_t> bytes = file_bytes("images/png/hopper.png");
    bytes.resize(8 + 8 + 13 + 4);  // signature and IHDR
    put32(bytes, 0x7267651D);      // 1,919,378,717 bytes declared...
    bytes.insert(bytes.end(), type, type + 4);
    bytes.insert(bytes.end(), {'C', 'o', 'm', 'm', 'e', 'n', 't', 0, 0, 0, 0});  // ...11 present
    check(named(bytes, "long_chunk.png"),
          {false, ErrorCode::kInvalidInput, "more than the file holds and than Limits::max_png_chunk_bytes"}, type);
  }
}

// A chunk over the limit that the file does hold is read (and ignored: loom keeps no text).
TEST(BadInput, PngChunkOverTheLimitThatTheFileHoldsIsRead) {
  std::vector<uint8_t> data(300'000, 'a');  // keyword "k", then text
  data[0] = 'k', data[1] = 0;
  DecodeOptions opt;
  opt.limits.max_png_chunk_bytes = 100'000;
  const Tensor good = decode_image(ByteSource::from_file(media("images/png/hopper.png")));
  EXPECT_TRUE(test::same_pixels(decode_image(named(png_with(chunk("tEXt", data)), "big_text.png"), opt), good));
  opt.limits.max_png_chunk_bytes = 1;  // libpng's and zlib's own allocations still fit
  EXPECT_TRUE(test::same_pixels(decode_image(ByteSource::from_file(media("images/png/hopper.png")), opt), good));
}

TEST(BadInput, PngCutAnywhereFailsCleanly) {
  const std::vector<uint8_t> whole = file_bytes("images/png/hopper.png");
  for (size_t cut : {size_t{12}, size_t{40}, whole.size() / 4, whole.size() / 2}) {
    std::vector<uint8_t> part(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(cut));
    check(named(part, "cut.png"), kTruncated, "cut at " + std::to_string(cut));
  }
}

TEST(BadInput, PixelLimitIsConfigurable) {
  DecodeOptions opt;
  opt.limits.max_pixels = 100;
  for (const char* file : {"images/jpeg/hopper.jpg", "images/png/hopper.png"}) {
    try {
      decode_image(ByteSource::from_file(media(file)), opt);
      ADD_FAILURE() << file;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kLimitExceeded);
      EXPECT_EQ(e.input(), media(file).string());
    }
  }
}

}  // namespace
}  // namespace loom::vision
