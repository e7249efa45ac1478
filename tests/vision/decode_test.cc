// Decoding real files: read modes, layouts, bit depths, DCT scaling, crops and EXIF orientation.
#include <gtest/gtest.h>

#include <cstring>

#include "image_test_util.h"
#include "loom/codec/error.h"
#include "loom/vision/image.h"
#include "test_media.h"

namespace loom::vision {
namespace {

using test::media;
using test::same_pixels;

Tensor decode(const std::string& file, DecodeOptions opt = {}) {
  return decode_image(ByteSource::from_file(media(file)), opt);
}

DecodeOptions hwc(ImageReadMode mode = ImageReadMode::kUnchanged) {
  DecodeOptions opt;
  opt.layout = Layout::kHWC;
  opt.mode = mode;
  return opt;
}

TEST(Decode, ChwIsThePermutedHwc) {
  for (const char* file : {"images/jpeg/hopper.jpg", "images/png/pil123rgba.png", "images/png/uncompressed_la.png"}) {
    const Tensor h = decode(file, hwc());
    const Tensor c = decode(file);
    EXPECT_EQ(c.size(0), h.size(2)) << file;
    EXPECT_TRUE(c.is_contiguous());
    EXPECT_TRUE(same_pixels(c, test::hwc_to_chw(h))) << file;
  }
}

TEST(Decode, ModesGiveTheirChannelCounts) {
  struct Case {
    const char* file;
    int unchanged;
  } cases[] = {
      {"images/jpeg/hopper.jpg", 3}, {"images/jpeg/hopper_gray.jpg", 1},    {"images/jpeg/pil_sample_cmyk.jpg", 3},
      {"images/png/hopper.png", 3},  {"images/png/uncompressed_la.png", 2}, {"images/png/pil123rgba.png", 4},
      {"images/png/pil123p.png", 4}, {"images/png/p_trns_single.png", 4},   {"images/png/1_trns.png", 1}};
  for (const Case& c : cases) {
    EXPECT_EQ(decode(c.file, hwc()).size(2), c.unchanged) << c.file;
    EXPECT_EQ(decode(c.file, hwc(ImageReadMode::kGray)).size(2), 1) << c.file;
    EXPECT_EQ(decode(c.file, hwc(ImageReadMode::kGrayAlpha)).size(2), 2) << c.file;
    EXPECT_EQ(decode(c.file, hwc(ImageReadMode::kRGB)).size(2), 3) << c.file;
    EXPECT_EQ(decode(c.file, hwc(ImageReadMode::kRGBAlpha)).size(2), 4) << c.file;
  }
}

TEST(Decode, AddedAlphaIsOpaqueAndColorIsKept) {
  for (const char* file : {"images/jpeg/hopper.jpg", "images/jpeg/pil_sample_cmyk.jpg", "images/jpeg/hopper_gray.jpg",
                           "images/png/hopper.png"}) {
    const Tensor rgb = decode(file, hwc(ImageReadMode::kRGB));
    const Tensor rgba = decode(file, hwc(ImageReadMode::kRGBAlpha));
    EXPECT_TRUE(same_pixels(rgba.slice(2, 0, 3), rgb)) << file;
    const Tensor gray = decode(file, hwc(ImageReadMode::kGray));
    const Tensor gray_alpha = decode(file, hwc(ImageReadMode::kGrayAlpha));
    EXPECT_TRUE(same_pixels(gray_alpha.slice(2, 0, 1), gray)) << file;
    for (const Tensor& alpha : {rgba.select(2, 3).contiguous(), gray_alpha.select(2, 1).contiguous()}) {
      for (int64_t i = 0; i < alpha.numel(); ++i) ASSERT_EQ(alpha.data<uint8_t>()[i], 255) << file;
    }
  }
}

TEST(Decode, GrayToRgbReplicates) {
  const Tensor gray = decode("images/png/cross_scan_line.png", hwc(ImageReadMode::kGray));
  const Tensor rgb = decode("images/png/cross_scan_line.png", hwc(ImageReadMode::kRGB));
  for (int c = 0; c < 3; ++c) EXPECT_TRUE(same_pixels(rgb.slice(2, c, c + 1), gray));
}

TEST(Decode, SixteenBitPngStaysUint16UnlessAsked) {
  const Tensor wide = decode("images/png/i_trns.png", hwc());
  ASSERT_EQ(wide.dtype(), DType::kUInt16);
  DecodeOptions narrow_opt = hwc();
  narrow_opt.to_uint8 = true;
  const Tensor narrow = decode("images/png/i_trns.png", narrow_opt);
  ASSERT_EQ(narrow.dtype(), DType::kUInt8);
  ASSERT_EQ(narrow.numel(), wide.numel());
  bool any_low_bits = false;
  for (int64_t i = 0; i < wide.numel(); ++i) {
    const uint16_t v = wide.data<uint16_t>()[i];
    ASSERT_EQ(narrow.data<uint8_t>()[i], v >> 8);
    any_low_bits |= (v & 0xFF) != 0;
  }
  EXPECT_TRUE(any_low_bits) << "the file should exercise real 16-bit values";
  EXPECT_EQ(decode("images/png/mode_16bit.png", hwc(ImageReadMode::kRGB)).dtype(), DType::kUInt16);
}

TEST(Decode, JpegDctScalingPicksTheSmallestCoveringScale) {
  const ImageInfo info = read_image_info(ByteSource::from_file(media("images/jpeg/flower.jpg")));
  for (int target : {1, 30, info.width / 4, info.width / 2 + 1, info.width}) {
    DecodeOptions opt = hwc();
    opt.min_width = target;
    const Tensor t = decode("images/jpeg/flower.jpg", opt);
    int m = 1;
    while (m < 8 && (info.width * m + 7) / 8 < target) ++m;
    EXPECT_EQ(t.size(1), (info.width * m + 7) / 8) << "target " << target;
    EXPECT_EQ(t.size(0), (info.height * m + 7) / 8) << "target " << target;
  }
}

TEST(Decode, ScaledJpegIsCloseToAFullDecodeAveraged) {
  DecodeOptions opt = hwc(ImageReadMode::kGray);
  const Tensor full = decode("images/jpeg/hopper.jpg", opt);
  opt.min_width = static_cast<int>(full.size(1) / 2);
  opt.min_height = static_cast<int>(full.size(0) / 2);
  const Tensor half = decode("images/jpeg/hopper.jpg", opt);
  ASSERT_EQ(half.size(0) * 2, full.size(0));
  double err = 0;
  for (int64_t y = 0; y < half.size(0); ++y)
    for (int64_t x = 0; x < half.size(1); ++x) {
      const uint8_t* f = full.data<uint8_t>();
      const int64_t w = full.size(1);
      const double mean = (f[2 * y * w + 2 * x] + f[2 * y * w + 2 * x + 1] + f[(2 * y + 1) * w + 2 * x] +
                           f[(2 * y + 1) * w + 2 * x + 1]) /
                          4.0;
      err += std::abs(mean - half.data<uint8_t>()[y * half.size(1) + x]);
    }
  EXPECT_LT(err / half.numel(), 6.0);
}

TEST(Decode, CropEqualsTheSameRegionOfAFullDecode) {
  for (const char* file : {"images/jpeg/flower.jpg", "images/jpeg/pil_sample_cmyk.jpg", "images/png/hopper.png",
                           "images/png/pil123rgba.png", "images/png/test-card.png"}) {
    for (Layout layout : {Layout::kHWC, Layout::kCHW}) {
      DecodeOptions opt;
      opt.layout = layout;
      opt.mode = ImageReadMode::kRGB;
      const Tensor full = decode(file, opt);
      const int h_dim = layout == Layout::kHWC ? 0 : 1;
      const int64_t h = full.size(h_dim), w = full.size(h_dim + 1);
      const Rect r{static_cast<int>(w / 3) + 5, static_cast<int>(h / 4) + 3, static_cast<int>(w / 3),
                   static_cast<int>(h / 2)};
      opt.crop = r;
      const Tensor crop = decode(file, opt);
      const Tensor expected = full.slice(h_dim, r.y, r.y + r.height).slice(h_dim + 1, r.x, r.x + r.width);
      EXPECT_TRUE(same_pixels(crop, expected)) << file;
    }
  }
}

TEST(Decode, CropOutsideTheImageIsAnError) {
  DecodeOptions opt;
  opt.crop = Rect{5000, 5000, 10, 10};
  EXPECT_THROW(decode("images/jpeg/hopper.jpg", opt), Error);
  EXPECT_THROW(decode("images/png/hopper.png", opt), Error);
}

TEST(Decode, InterlacedPngEqualsItsProgressiveRendering) {
  // pil123rgba.png is Adam7-interlaced; re-encoding it non-interlaced must give the same pixels, and
  // its CHW decode (which goes through a whole-image buffer) must be the permuted HWC one.
  const ImageInfo info = read_image_info(ByteSource::from_file(media("images/png/pil123rgba.png")));
  ASSERT_TRUE(info.progressive);
  const Tensor t = decode("images/png/pil123rgba.png", hwc());
  EXPECT_TRUE(same_pixels(decode("images/png/pil123rgba.png"), test::hwc_to_chw(t)));
  PngEncodeOptions po;
  po.layout = Layout::kHWC;
  const std::vector<uint8_t> again = encode_png(t, po);
  EXPECT_TRUE(same_pixels(decode_image(ByteSource::from_memory(again), hwc()), t));
}

TEST(Decode, ExifOrientationTurnsTheImageUpright) {
  const Tensor base = test::make_image(6, 10, 3);
  JpegEncodeOptions jo;
  jo.layout = Layout::kHWC;
  jo.quality = 100;
  jo.subsampling = ChromaSubsampling::k444;
  const std::vector<uint8_t> plain = encode_jpeg(base, jo);
  DecodeOptions opt = hwc();
  const Tensor decoded = decode_image(ByteSource::from_memory(plain), opt);
  const Tensor hflip = decoded.slice(1, -1, INT64_MIN, -1), vflip = decoded.slice(0, -1, INT64_MIN, -1);
  const Tensor transposed = decoded.permute({1, 0, 2});
  const Tensor expected[9] = {{},
                              decoded,
                              hflip,
                              hflip.slice(0, -1, INT64_MIN, -1),
                              vflip,
                              transposed,
                              transposed.slice(1, -1, INT64_MIN, -1),                              // 90 CW
                              transposed.slice(0, -1, INT64_MIN, -1).slice(1, -1, INT64_MIN, -1),  // transverse
                              transposed.slice(0, -1, INT64_MIN, -1)};                             // 90 CCW
  opt.apply_exif_orientation = true;
  for (int o = 1; o <= 8; ++o) {
    const std::vector<uint8_t> bytes = test::with_exif_orientation(plain, o);
    EXPECT_EQ(read_image_info(ByteSource::from_memory(bytes)).orientation, o);
    EXPECT_TRUE(same_pixels(decode_image(ByteSource::from_memory(bytes), opt), expected[o])) << "orientation " << o;
    // Off by default: the stored pixels.
    EXPECT_TRUE(same_pixels(decode_image(ByteSource::from_memory(bytes), hwc()), decoded)) << "orientation " << o;
  }
}

// `png` (as encode_png writes it: IHDR first) with an eXIf chunk holding `orientation` after IHDR.
std::vector<uint8_t> png_with_exif(const std::vector<uint8_t>& png, int orientation) {
  const std::vector<uint8_t> jpeg_app1 = test::with_exif_orientation({0xFF, 0xD8}, orientation);
  const std::vector<uint8_t> tiff(jpeg_app1.begin() + 2 + 4 + 6, jpeg_app1.end());  // skip SOI, marker, "Exif"
  std::vector<uint8_t> chunk;
  auto put32 = [&](uint32_t v) {
    for (int s = 24; s >= 0; s -= 8) chunk.push_back(static_cast<uint8_t>(v >> s));
  };
  put32(static_cast<uint32_t>(tiff.size()));
  chunk.insert(chunk.end(), {'e', 'X', 'I', 'f'});
  chunk.insert(chunk.end(), tiff.begin(), tiff.end());
  uint32_t crc = 0xFFFFFFFFu;
  for (size_t i = 4; i < chunk.size(); ++i) {
    crc ^= chunk[i];
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  put32(~crc);
  std::vector<uint8_t> out = png;
  out.insert(out.begin() + 8 + 25, chunk.begin(), chunk.end());
  return out;
}

TEST(Decode, PngExifOrientationIsApplied) {
  const Tensor base = test::make_image(5, 9, 3);
  PngEncodeOptions po;
  po.layout = Layout::kHWC;
  const std::vector<uint8_t> bytes = png_with_exif(encode_png(base, po), 6);
  EXPECT_EQ(read_image_info(ByteSource::from_memory(bytes)).orientation, 6);
  DecodeOptions opt = hwc();
  EXPECT_TRUE(same_pixels(decode_image(ByteSource::from_memory(bytes), opt), base));
  opt.apply_exif_orientation = true;
  const Tensor upright = decode_image(ByteSource::from_memory(bytes), opt);
  EXPECT_TRUE(same_pixels(upright, base.permute({1, 0, 2}).slice(1, -1, INT64_MIN, -1)));  // 90 degrees clockwise
}

TEST(Decode, PngColorToGrayUsesTorchvisionWeights) {
  Tensor rgb = Tensor::empty({1, 6, 3}, DType::kUInt8);
  const uint8_t pixels[6][3] = {{255, 0, 0}, {0, 255, 0}, {0, 0, 255}, {200, 100, 50}, {10, 240, 130}, {255, 255, 255}};
  std::memcpy(rgb.data(), pixels, sizeof(pixels));
  PngEncodeOptions po;
  po.layout = Layout::kHWC;
  DecodeOptions opt = hwc(ImageReadMode::kGray);
  const Tensor gray = decode_image(ByteSource::from_memory(encode_png(rgb, po)), opt);
  for (int i = 0; i < 6; ++i) {
    const double expected = 0.2989 * pixels[i][0] + 0.587 * pixels[i][1] + 0.1141 * pixels[i][2];
    EXPECT_NEAR(gray.data<uint8_t>()[i], expected, 1.0) << i;
  }
}

TEST(Decode, MemoryInputsObeyMaxBytes) {
  const std::vector<uint8_t> bytes = test::read_bytes(media("images/jpeg/hopper.jpg"));
  DecodeOptions opt;
  opt.limits.max_bytes = bytes.size() - 1;
  for (auto decode : {decode_image, decode_jpeg}) {
    const Error e = test::error_of([&] { decode(ByteSource::from_memory(bytes, "buffer"), opt); });
    EXPECT_EQ(e.code(), ErrorCode::kLimitExceeded);
    EXPECT_EQ(e.input(), "buffer");
  }
  const std::vector<uint8_t> png = test::read_bytes(media("images/png/hopper.png"));
  opt.limits.max_bytes = png.size() - 1;
  EXPECT_EQ(test::error_code_of([&] { decode_png(ByteSource::from_memory(png), opt); }), ErrorCode::kLimitExceeded);
}

TEST(Decode, InfoMatchesTheDecode) {
  for (const char* file : {"images/jpeg/hopper.jpg", "images/jpeg/hopper_gray.jpg", "images/png/pil123rgba.png",
                           "images/png/i_trns.png", "images/png/1_trns.png"}) {
    const ImageInfo info = read_image_info(ByteSource::from_file(media(file)));
    const Tensor t = decode(file, hwc());
    EXPECT_EQ(info.height, t.size(0)) << file;
    EXPECT_EQ(info.width, t.size(1)) << file;
    EXPECT_EQ(info.channels, t.size(2)) << file;
  }
  EXPECT_EQ(read_image_info(ByteSource::from_file(media("images/png/i_trns.png"))).bit_depth, 16);
  EXPECT_EQ(read_image_info(ByteSource::from_file(media("images/png/1_trns.png"))).bit_depth, 1);
}

}  // namespace
}  // namespace loom::vision
