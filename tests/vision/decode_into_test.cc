// decode_image_into: the caller's tensor receives exactly what decode_image returns, for every path
// (JPEG and PNG rows written in place, a turned or strided output, the formats that copy), and a
// tensor of the wrong shape or dtype is refused with both shapes named.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "image_test_util.h"
#include "loom/codec/error.h"
#include "loom/vision/image.h"

namespace loom::vision {
namespace {

using test::make_image;
using test::same_pixels;

DecodeOptions options(Layout layout, ImageReadMode mode = ImageReadMode::kUnchanged) {
  DecodeOptions opt;
  opt.layout = layout;
  opt.mode = mode;
  return opt;
}

// Decodes `bytes` both ways and checks that `out` holds decode_image's result and kept its memory.
void expect_same_as_decode_image(const std::vector<uint8_t>& bytes, const DecodeOptions& opt, const Tensor& out,
                                 const std::string& what) {
  const ByteSource src = ByteSource::from_memory(bytes, what);
  const Tensor expected = decode_image(src, opt);
  void* const memory = out.data();
  decode_image_into(src, out, opt);
  EXPECT_EQ(out.data(), memory) << what;
  EXPECT_TRUE(same_pixels(out, expected)) << what;
}

Tensor fresh_like(std::vector<int64_t> shape, DType dtype) {
  Tensor t = Tensor::empty(shape, dtype);
  std::memset(t.data(), 0xA5, t.nbytes());  // what a reused buffer holds from its last image
  return t;
}

TEST(DecodeInto, JpegInEveryLayoutAndMode) {
  JpegEncodeOptions enc;
  enc.layout = Layout::kHWC;
  const std::vector<uint8_t> jpeg = encode_jpeg(make_image(37, 53, 3), enc);
  struct Case {
    ImageReadMode mode;
    int channels;
  } cases[] = {{ImageReadMode::kUnchanged, 3},
               {ImageReadMode::kGray, 1},
               {ImageReadMode::kGrayAlpha, 2},
               {ImageReadMode::kRGBAlpha, 4}};
  for (const Case& c : cases) {
    expect_same_as_decode_image(jpeg, options(Layout::kHWC, c.mode), fresh_like({37, 53, c.channels}, DType::kUInt8),
                                "hwc");
    expect_same_as_decode_image(jpeg, options(Layout::kCHW, c.mode), fresh_like({c.channels, 37, 53}, DType::kUInt8),
                                "chw");
  }
}

TEST(DecodeInto, JpegScaledCroppedAndTurned) {
  JpegEncodeOptions enc;
  enc.layout = Layout::kHWC;
  const std::vector<uint8_t> jpeg = encode_jpeg(make_image(64, 96, 3), enc);

  DecodeOptions scaled = options(Layout::kHWC);
  scaled.min_width = 24;  // 1/4 scale: 24 x 16
  scaled.min_height = 16;
  expect_same_as_decode_image(jpeg, scaled, fresh_like({16, 24, 3}, DType::kUInt8), "scaled");

  DecodeOptions cropped = options(Layout::kCHW);
  cropped.crop = Rect{10, 5, 30, 20};
  expect_same_as_decode_image(jpeg, cropped, fresh_like({3, 20, 30}, DType::kUInt8), "cropped");

  // Orientation 6 turns 96 x 64 into 64 x 96: decoded apart, then copied in.
  DecodeOptions upright = options(Layout::kHWC);
  upright.apply_exif_orientation = true;
  expect_same_as_decode_image(test::with_exif_orientation(jpeg, 6), upright, fresh_like({96, 64, 3}, DType::kUInt8),
                              "orientation 6");
}

TEST(DecodeInto, PngEightAndSixteenBit) {
  PngEncodeOptions enc;
  enc.layout = Layout::kHWC;
  expect_same_as_decode_image(encode_png(make_image(20, 31, 4), enc), options(Layout::kCHW),
                              fresh_like({4, 20, 31}, DType::kUInt8), "rgba");

  Tensor wide = Tensor::empty({9, 14, 3}, DType::kUInt16);
  for (int64_t i = 0; i < wide.numel(); ++i) wide.data<uint16_t>()[i] = static_cast<uint16_t>(i * 2654435761u);
  const std::vector<uint8_t> png16 = encode_png(wide, enc);
  expect_same_as_decode_image(png16, options(Layout::kHWC), fresh_like({9, 14, 3}, DType::kUInt16), "16-bit");
  DecodeOptions narrow = options(Layout::kHWC, ImageReadMode::kGray);
  narrow.to_uint8 = true;
  expect_same_as_decode_image(png16, narrow, fresh_like({9, 14, 1}, DType::kUInt8), "16-bit to uint8 gray");
}

TEST(DecodeInto, OtherFormatsAreCopiedIn) {
  WebpEncodeOptions enc;
  enc.lossless = true;
  enc.layout = Layout::kHWC;
  expect_same_as_decode_image(encode_webp(make_image(12, 17, 3), enc), options(Layout::kCHW),
                              fresh_like({3, 12, 17}, DType::kUInt8), "webp");
}

TEST(DecodeInto, AStridedOutputLikeABatchColumn) {
  JpegEncodeOptions enc;
  enc.layout = Layout::kHWC;
  const std::vector<uint8_t> jpeg = encode_jpeg(make_image(16, 16, 3), enc);
  // Every other column of a wider buffer: not contiguous, so decoded apart and copied in; the other
  // columns stay untouched.
  Tensor wide = fresh_like({16, 32, 3}, DType::kUInt8);
  const Tensor out = wide.slice(1, 0, 32, 2);
  expect_same_as_decode_image(jpeg, options(Layout::kHWC), out, "strided");
  const Tensor untouched = wide.slice(1, 1, 32, 2).contiguous();
  for (int64_t i = 0; i < untouched.numel(); ++i) ASSERT_EQ(untouched.data<uint8_t>()[i], 0xA5);
}

TEST(DecodeInto, AnOutputThatDoesNotFitIsRefusedBeforeDecoding) {
  JpegEncodeOptions enc;
  enc.layout = Layout::kHWC;
  const std::vector<uint8_t> jpeg = encode_jpeg(make_image(30, 40, 3), enc);
  const ByteSource src = ByteSource::from_memory(jpeg, "photo.jpg");
  const Tensor small = fresh_like({3, 224, 224}, DType::kUInt8);
  try {
    decode_image_into(src, small);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidInput);
    EXPECT_EQ(e.input(), "photo.jpg");
    EXPECT_NE(std::string(e.what()).find("decodes to 3x30x40 uint8, the output tensor is 3x224x224 uint8"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(small.data<uint8_t>()[0], 0xA5);  // refused before any row was written
  EXPECT_THROW(decode_image_into(src, fresh_like({3, 30, 40}, DType::kUInt16)), Error);
  EXPECT_THROW(decode_image_into(src, Tensor()), Error);
}

}  // namespace
}  // namespace loom::vision
