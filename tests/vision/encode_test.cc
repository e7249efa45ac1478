// Encoding: PNG round trips are lossless, JPEG options take effect, writes are atomic.
#include <gtest/gtest.h>

#include <filesystem>

#include "image_test_util.h"
#include "loom/codec/error.h"
#include "loom/vision/image.h"
#include "test_media.h"

namespace loom::vision {
namespace {

using test::make_image;
using test::same_pixels;

DecodeOptions hwc() {
  DecodeOptions opt;
  opt.layout = Layout::kHWC;
  return opt;
}

TEST(EncodePng, RoundTripIsLosslessForEveryChannelCount) {
  for (int c = 1; c <= 4; ++c) {
    const Tensor img = make_image(17, 23, c);
    PngEncodeOptions po;
    po.layout = Layout::kHWC;
    const Tensor back = decode_image(ByteSource::from_memory(encode_png(img, po)), hwc());
    EXPECT_TRUE(same_pixels(back, img)) << c << " channels";
  }
}

TEST(EncodePng, AcceptsChwAndStridedViews) {
  const Tensor hwc_img = make_image(9, 12, 3);
  const Tensor chw_view = test::hwc_to_chw(hwc_img);  // not contiguous
  const Tensor back = decode_image(ByteSource::from_memory(encode_png(chw_view)), hwc());
  EXPECT_TRUE(same_pixels(back, hwc_img));
  // A 2-D tensor is one gray channel.
  const Tensor plane = hwc_img.select(2, 1);
  const Tensor gray = decode_image(ByteSource::from_memory(encode_png(plane)), hwc());
  EXPECT_TRUE(same_pixels(gray.select(2, 0), plane));
}

TEST(EncodePng, SixteenBitRoundTrip) {
  Tensor img = Tensor::empty({5, 7, 2}, DType::kUInt16);
  for (int64_t i = 0; i < img.numel(); ++i) img.data<uint16_t>()[i] = static_cast<uint16_t>(i * 977 + 3);
  PngEncodeOptions po;
  po.layout = Layout::kHWC;
  const Tensor back = decode_image(ByteSource::from_memory(encode_png(img, po)), hwc());
  ASSERT_EQ(back.dtype(), DType::kUInt16);
  EXPECT_TRUE(same_pixels(back, img));
}

TEST(EncodePng, CompressionLevelChangesSizeNotPixels) {
  const Tensor img = make_image(64, 64, 3);
  PngEncodeOptions fast, small;
  fast.layout = small.layout = Layout::kHWC;
  fast.compression_level = 0;
  small.compression_level = 9;
  const auto a = encode_png(img, fast), b = encode_png(img, small);
  EXPECT_GT(a.size(), b.size());
  EXPECT_TRUE(
      same_pixels(decode_image(ByteSource::from_memory(a), hwc()), decode_image(ByteSource::from_memory(b), hwc())));
  fast.compression_level = 10;
  EXPECT_THROW(encode_png(img, fast), Error);
}

TEST(EncodeJpeg, HighQuality444IsNearlyLossless) {
  const Tensor img = make_image(32, 48, 3);
  JpegEncodeOptions jo;
  jo.layout = Layout::kHWC;
  jo.quality = 100;
  jo.subsampling = ChromaSubsampling::k444;
  const Tensor back = decode_image(ByteSource::from_memory(encode_jpeg(img, jo)), hwc());
  EXPECT_LE(test::max_diff(back, img), 12);
  const Tensor gray = make_image(32, 48, 1);
  const Tensor gray_back = decode_image(ByteSource::from_memory(encode_jpeg(gray, jo)), hwc());
  EXPECT_EQ(gray_back.size(2), 1);
  EXPECT_LE(test::max_diff(gray_back, gray), 6);
}

TEST(EncodeJpeg, OptionsTakeEffect) {
  const Tensor img = make_image(64, 64, 3);
  JpegEncodeOptions base;
  base.layout = Layout::kHWC;
  JpegEncodeOptions low = base, sub444 = base, progressive = base, optimized = base;
  low.quality = 10;
  sub444.subsampling = ChromaSubsampling::k444;
  progressive.progressive = true;
  optimized.optimize = true;
  const auto b = encode_jpeg(img, base);
  EXPECT_LT(encode_jpeg(img, low).size(), b.size());
  EXPECT_GT(encode_jpeg(img, sub444).size(), b.size());
  EXPECT_LT(encode_jpeg(img, optimized).size(), b.size());
  EXPECT_TRUE(read_image_info(ByteSource::from_memory(encode_jpeg(img, progressive))).progressive);
  EXPECT_FALSE(read_image_info(ByteSource::from_memory(b)).progressive);
}

// Offsets of the RSTn markers in a JPEG's entropy-coded data.
std::vector<size_t> restart_markers(const std::vector<uint8_t>& jpeg) {
  std::vector<size_t> at;
  for (size_t i = 0; i + 1 < jpeg.size(); ++i)
    if (jpeg[i] == 0xFF && jpeg[i + 1] >= 0xD0 && jpeg[i + 1] <= 0xD7) at.push_back(i);
  return at;
}

TEST(EncodeJpeg, RestartMarkersKeepPixelsAndLetDecodingResynchronise) {
  const Tensor img = make_image(64, 64, 3);
  JpegEncodeOptions plain;
  plain.layout = Layout::kHWC;
  JpegEncodeOptions restart = plain;
  restart.restart_interval = 2;
  const std::vector<uint8_t> a = encode_jpeg(img, plain), b = encode_jpeg(img, restart);
  EXPECT_TRUE(restart_markers(a).empty());
  const std::vector<size_t> markers = restart_markers(b);
  ASSERT_GE(markers.size(), 4u);
  const Tensor ref = decode_image(ByteSource::from_memory(a), hwc());
  EXPECT_TRUE(same_pixels(decode_image(ByteSource::from_memory(b), hwc()), ref));
  // Corrupt the data between two restart markers (the first half of the second MCU row): libjpeg
  // recovers with a corrupt-data warning, so the image still decodes whole, and the rows decoded before
  // the damage (all but the last, which upsampling blends with the next MCU row) are untouched.
  std::vector<uint8_t> damaged = b;
  for (size_t i = markers[1] + 2; i < markers[2]; ++i) damaged[i] = static_cast<uint8_t>(damaged[i] ^ 0x5A);
  const Tensor got = decode_image(ByteSource::from_memory(damaged), hwc());
  ASSERT_EQ(got.numel(), ref.numel());
  for (int64_t y = 0; y < 15; ++y) EXPECT_TRUE(same_pixels(got.select(0, y), ref.select(0, y))) << "row " << y;
  EXPECT_FALSE(same_pixels(got, ref));
}

TEST(EncodeJpeg, RejectsWhatJpegCannotHold) {
  EXPECT_THROW(encode_jpeg(make_image(4, 4, 2), {.layout = Layout::kHWC}), Error);
  EXPECT_THROW(encode_jpeg(make_image(4, 4, 4), {.layout = Layout::kHWC}), Error);
  EXPECT_THROW(encode_jpeg(Tensor::zeros({3, 4, 4}, DType::kFloat32)), Error);
  EXPECT_THROW(encode_jpeg(make_image(4, 4, 3), {.quality = 0, .layout = Layout::kHWC}), Error);
  EXPECT_THROW(encode_png(Tensor::zeros({3, 0, 4}, DType::kUInt8)), Error);
}

TEST(WriteImage, ChoosesTheFormatByExtensionAndWritesAtomically) {
  test::TempDir dir;
  const Tensor img = make_image(8, 8, 3);
  WriteOptions wo;
  wo.png.layout = wo.jpeg.layout = Layout::kHWC;
  write_image(img, dir / "a.png", wo);
  write_image(img, dir / "b.JPG", wo);
  EXPECT_EQ(read_image_info(ByteSource::from_file(dir / "a.png")).format, Format::kPng);
  EXPECT_EQ(read_image_info(ByteSource::from_file(dir / "b.JPG")).format, Format::kJpeg);
  try {
    write_image(img, dir / "c.bmp", wo);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUnsupported);
    EXPECT_EQ(e.input(), (dir / "c.bmp").string());
  }
  // A failed encode leaves nothing behind.
  EXPECT_THROW(write_image(make_image(4, 4, 2), dir / "d.jpg", wo), Error);
  wo.overwrite = false;
  EXPECT_THROW(write_image(img, dir / "a.png", wo), Error);
  size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) files += e.is_regular_file();
  EXPECT_EQ(files, 2u);
}

}  // namespace
}  // namespace loom::vision
