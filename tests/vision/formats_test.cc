// WebP, GIF, TIFF, AVIF, HEIF and BMP through loom's common decode rules (read modes, crop, layout,
// orientation, uint16, frames) and WebP encode. Pixel parity with the reference decoders is checked
// in tests/parity/test_image_formats.py; here each format must agree with itself across options and
// with analytic expectations.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "image_test_util.h"
#include "loom/codec/error.h"
#include "loom/vision/image.h"
#include "test_media.h"

namespace loom::vision {
namespace {

using test::media;
using test::same_pixels;

const char* const kFormats[] = {"images/other/hopper.webp", "images/other/iss634.webp",
                                "images/other/hopper.gif",  "images/other/chi.gif",
                                "images/other/hopper.tif",  "images/other/tiff_16bit_RGB.tiff",
                                "images/other/hopper.avif", "images/other/hopper.heif",
                                "images/other/hopper.bmp",  "images/other/bmpsuite_rgba32.bmp"};

Tensor read(const std::string& rel, const DecodeOptions& options = {}) {
  return read_image(media(rel), options);
}

TEST(ImageFormats, InfoMatchesTheDecodedImage) {
  for (const char* rel : kFormats) {
    const ImageInfo info = read_image_info(ByteSource::from_file(media(rel)));
    const Tensor image = read(rel);
    ASSERT_EQ(image.ndim(), 3) << rel;
    EXPECT_EQ(image.size(0), info.channels) << rel;
    EXPECT_EQ(image.size(1), info.height) << rel;
    EXPECT_EQ(image.size(2), info.width) << rel;
    EXPECT_EQ(image.dtype(), info.bit_depth > 8 ? DType::kUInt16 : DType::kUInt8) << rel;
  }
  EXPECT_EQ(read_image_info(ByteSource::from_file(media("images/other/chi.gif"))).frames, 31);
  EXPECT_EQ(read_image_info(ByteSource::from_file(media("images/other/iss634.webp"))).frames, 42);
  EXPECT_EQ(read_image_info(ByteSource::from_file(media("images/other/multipage.tiff"))).frames, 3);
  const ImageInfo avif = read_image_info(ByteSource::from_file(media("images/other/rot1mir0.avif")));
  EXPECT_EQ(avif.orientation, 5);  // irot 90 degrees anti-clockwise, then imir top-bottom: a transpose
  EXPECT_EQ(read_image_info(ByteSource::from_file(media("images/other/tiff_16bit_RGB.tiff"))).bit_depth, 16);
}

TEST(ImageFormats, LayoutsHoldTheSamePixels) {
  for (const char* rel : kFormats) {
    DecodeOptions hwc;
    hwc.layout = Layout::kHWC;
    EXPECT_TRUE(same_pixels(read(rel), test::hwc_to_chw(read(rel, hwc)))) << rel;
  }
}

TEST(ImageFormats, CropIsASliceOfTheWholeImage) {
  for (const char* rel : kFormats) {
    const Tensor whole = read(rel);
    DecodeOptions cropped;
    cropped.crop = Rect{3, 5, 17, 11};
    const Tensor part = read(rel, cropped);
    EXPECT_TRUE(same_pixels(part, whole.slice(1, 5, 16).slice(2, 3, 20))) << rel;
  }
}

TEST(ImageFormats, ReadModesConvertTheUnchangedImage) {
  for (const char* rel : kFormats) {
    DecodeOptions rgba;
    rgba.mode = ImageReadMode::kRGBAlpha;
    rgba.layout = Layout::kHWC;
    rgba.to_uint8 = true;
    const Tensor four = read(rel, rgba);
    DecodeOptions rgb = rgba;
    rgb.mode = ImageReadMode::kRGB;
    // RGB is RGBA without its alpha.
    EXPECT_TRUE(same_pixels(read(rel, rgb), four.slice(2, 0, 3))) << rel;
    // Gray from RGB with Pillow's convert("L") weights (gray files repeat their gray into RGB, which
    // the weights, summing to 1, give back exactly).
    DecodeOptions gray = rgba;
    gray.mode = ImageReadMode::kGray;
    const Tensor g = read(rel, gray);
    const uint8_t* p = four.data<uint8_t>();
    const uint8_t* q = g.data<uint8_t>();
    for (int64_t i = 0; i < g.numel(); ++i, p += 4) {
      const uint32_t luma = (p[0] * 19595u + p[1] * 38470u + p[2] * 7471u + 0x8000u) >> 16;
      ASSERT_EQ(q[i], luma) << rel << " pixel " << i;
    }
  }
}

TEST(ImageFormats, SixteenBitTiffKeepsItsHighByteInUint8) {
  const std::string rel = "images/other/tiff_16bit_RGB.tiff";
  const Tensor wide = read(rel);
  DecodeOptions narrow;
  narrow.to_uint8 = true;
  const Tensor eight = read(rel, narrow);
  ASSERT_EQ(wide.dtype(), DType::kUInt16);
  ASSERT_EQ(eight.numel(), wide.numel());
  for (int64_t i = 0; i < wide.numel(); ++i) {
    ASSERT_EQ(eight.data<uint8_t>()[i], wide.data<uint16_t>()[i] >> 8);
  }
}

TEST(ImageFormats, AvifOrientationIsAppliedOnRequest) {
  DecodeOptions upright;
  upright.apply_exif_orientation = true;
  const Tensor stored = read("images/other/rot1mir0.avif");
  // Orientation 5 (transpose) in CHW: swap H and W.
  EXPECT_TRUE(same_pixels(read("images/other/rot1mir0.avif", upright), stored.permute({0, 2, 1})));
}

TEST(ImageFormats, AnimationsDecodeEveryFrame) {
  const Tensor gif = decode_image_frames(ByteSource::from_file(media("images/other/chi.gif")));
  ASSERT_EQ(gif.ndim(), 4);
  EXPECT_EQ(gif.size(0), 31);
  // The first frame of the stack is what decode_image gives.
  EXPECT_TRUE(same_pixels(gif.select(0, 0), read("images/other/chi.gif")));
  const Tensor webp = decode_image_frames(ByteSource::from_file(media("images/other/iss634.webp")));
  EXPECT_EQ(webp.size(0), 42);
  EXPECT_TRUE(same_pixels(webp.select(0, 0), read("images/other/iss634.webp")));
  // A still image is one frame.
  const Tensor still = read_image_frames(media("images/other/hopper.tif"));
  EXPECT_EQ(still.size(0), 1);
  EXPECT_TRUE(same_pixels(still.select(0, 0), read("images/other/hopper.tif")));
}

TEST(ImageFormats, AllFramesHonourTheByteLimitTogether) {
  DecodeOptions options;
  // One 320 x 240 RGBA canvas fits, 31 do not.
  options.limits.max_bytes = 320 * 240 * 4 * 4;
  const ByteSource src = ByteSource::from_file(media("images/other/chi.gif"), {});
  EXPECT_NO_THROW(decode_image(src, options));
  try {
    decode_image_frames(src, options);
    FAIL() << "31 frames decoded past the byte limit";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kLimitExceeded) << e.what();
  }
}

// ---- WebP encode ----

TEST(WebpEncode, LosslessRoundTripsEveryChannelCount) {
  for (int channels : {1, 2, 3, 4}) {
    const Tensor image = test::make_image(23, 31, channels);
    WebpEncodeOptions options;
    options.lossless = true;
    options.layout = Layout::kHWC;
    const std::vector<uint8_t> bytes = encode_webp(image, options);
    DecodeOptions back;
    back.layout = Layout::kHWC;
    // Gray is stored as RGB; read it back in the mode it was written in.
    back.mode = channels == 1   ? ImageReadMode::kGray
                : channels == 2 ? ImageReadMode::kGrayAlpha
                                : ImageReadMode::kUnchanged;
    const Tensor decoded = decode_image(ByteSource::from_vector(bytes, "lossless.webp"), back);
    EXPECT_TRUE(same_pixels(decoded, image)) << channels << " channels";
  }
}

TEST(WebpEncode, LossyStaysCloseAndQualityMatters) {
  // Smooth gradients, which lossy WebP (4:2:0, DCT) keeps well.
  Tensor image = Tensor::empty({64, 64, 3}, DType::kUInt8);
  for (int y = 0; y < 64; ++y)
    for (int x = 0; x < 64; ++x)
      for (int c = 0; c < 3; ++c)
        image.data<uint8_t>()[(y * 64 + x) * 3 + c] = static_cast<uint8_t>(x * 3 + y + c * 20);
  auto size_at = [&](float quality) {
    WebpEncodeOptions options;
    options.quality = quality;
    options.layout = Layout::kHWC;
    return encode_webp(image, options);
  };
  const std::vector<uint8_t> low = size_at(10), high = size_at(95);
  EXPECT_LT(low.size(), high.size());
  DecodeOptions back;
  back.layout = Layout::kHWC;
  const Tensor decoded = decode_image(ByteSource::from_vector(high, "lossy.webp"), back);
  ASSERT_EQ(decoded.size(2), 3);
  double total = 0;
  for (int64_t i = 0; i < decoded.numel(); ++i) {
    total += std::abs(int(decoded.data<uint8_t>()[i]) - int(image.data<uint8_t>()[i]));
  }
  EXPECT_LT(total / decoded.numel(), 2.0);
}

TEST(WebpEncode, WriteImageChoosesWebpByExtension) {
  const std::filesystem::path path = std::filesystem::path(testing::TempDir()) / "written.WEBP";
  std::filesystem::remove(path);
  WriteOptions options;
  options.webp.lossless = true;
  const Tensor image = test::hwc_to_chw(test::make_image(9, 13, 3)).contiguous();
  write_image(image, path, options);
  EXPECT_EQ(read_image_info(ByteSource::from_file(path)).format, Format::kWebp);
  EXPECT_TRUE(same_pixels(read_image(path), image));
  std::filesystem::remove(path);
}

TEST(WebpEncode, BadInputsAreRefused) {
  auto code_of = [](const Tensor& image, const WebpEncodeOptions& options) {
    try {
      encode_webp(image, options);
    } catch (const Error& e) {
      EXPECT_EQ(e.input(), "encode_webp");
      return e.code();
    }
    return ErrorCode::kInternal;
  };
  WebpEncodeOptions bad_quality;
  bad_quality.quality = 101;
  EXPECT_EQ(code_of(test::make_image(4, 4, 3), bad_quality), ErrorCode::kInvalidInput);
  WebpEncodeOptions bad_method;
  bad_method.method = 7;
  EXPECT_EQ(code_of(test::make_image(4, 4, 3), bad_method), ErrorCode::kInvalidInput);
  WebpEncodeOptions hwc;
  hwc.layout = Layout::kHWC;
  EXPECT_EQ(code_of(Tensor::zeros({4, 4, 3}, DType::kUInt16), hwc), ErrorCode::kInvalidInput);
  EXPECT_EQ(code_of(Tensor::zeros({4, 4, 5}, DType::kUInt8), hwc), ErrorCode::kInvalidInput);
  EXPECT_EQ(code_of(Tensor::zeros({16384, 1, 3}, DType::kUInt8), hwc), ErrorCode::kInvalidInput);
}

}  // namespace
}  // namespace loom::vision
