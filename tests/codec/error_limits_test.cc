// loom::Error (codes, message format) and check_image_size (resource limits, 64-bit products).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "loom/codec/error.h"
#include "loom/codec/limits.h"

namespace loom {
namespace {

TEST(ErrorTest, CodeNames) {
  EXPECT_EQ(to_string(ErrorCode::kInvalidInput), "invalid_input");
  EXPECT_EQ(to_string(ErrorCode::kUnsupported), "unsupported");
  EXPECT_EQ(to_string(ErrorCode::kIo), "io");
  EXPECT_EQ(to_string(ErrorCode::kLimitExceeded), "limit_exceeded");
  EXPECT_EQ(to_string(ErrorCode::kInternal), "internal");
}

TEST(ErrorTest, WhatNamesTheInputThenTheProblem) {
  const Error e(ErrorCode::kIo, "/data/x.jpg", "cannot open: No such file or directory");
  EXPECT_EQ(e.code(), ErrorCode::kIo);
  EXPECT_EQ(e.input(), "/data/x.jpg");
  EXPECT_EQ(e.message(), "cannot open: No such file or directory");
  EXPECT_STREQ(e.what(), "/data/x.jpg: cannot open: No such file or directory");
}

TEST(ErrorTest, EmptyInputGivesJustTheMessage) {
  const Error e(ErrorCode::kInternal, "", "broken invariant");
  EXPECT_STREQ(e.what(), "broken invariant");
  EXPECT_TRUE(e.input().empty());
}

TEST(ErrorTest, IsARuntimeError) {
  try {
    throw Error(ErrorCode::kUnsupported, "clip.mkv", "codec xyz");
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "clip.mkv: codec xyz");
  }
}

ErrorCode size_error(const Limits& limits, int64_t w, int64_t h, int64_t c = 3, int64_t b = 1,
                     std::string* what = nullptr) {
  try {
    check_image_size(limits, "img.png", w, h, c, b);
  } catch (const Error& e) {
    if (what) *what = e.what();
    EXPECT_EQ(e.input(), "img.png");
    return e.code();
  }
  ADD_FAILURE() << "check_image_size accepted " << w << "x" << h << "x" << c << "x" << b;
  return ErrorCode::kInternal;
}

TEST(LimitsTest, DefaultsArePillowsBombThresholdAndFourGiB) {
  const Limits l;
  EXPECT_EQ(l.max_pixels, uint64_t{2} * 1024 * 1024 * 1024 / 4 / 3);
  EXPECT_EQ(l.max_bytes, uint64_t{4} * 1024 * 1024 * 1024);
}

TEST(LimitsTest, ZeroOrNegativeSizeIsInvalidInput) {
  const Limits l;
  EXPECT_EQ(size_error(l, 0, 10), ErrorCode::kInvalidInput);
  EXPECT_EQ(size_error(l, 10, 0), ErrorCode::kInvalidInput);
  EXPECT_EQ(size_error(l, -1, 10), ErrorCode::kInvalidInput);
  EXPECT_EQ(size_error(l, 10, -5), ErrorCode::kInvalidInput);
  Limits off;
  off.max_pixels = 0;
  off.max_bytes = 0;
  EXPECT_EQ(size_error(off, 0, 0), ErrorCode::kInvalidInput) << "disabled limits do not make 0x0 valid";
}

TEST(LimitsTest, PixelLimitIsInclusive) {
  Limits l;
  l.max_pixels = 100;
  EXPECT_NO_THROW(check_image_size(l, "img.png", 10, 10, 3, 1));
  EXPECT_NO_THROW(check_image_size(l, "img.png", 100, 1, 3, 1));
  std::string what;
  EXPECT_EQ(size_error(l, 101, 1, 3, 1, &what), ErrorCode::kLimitExceeded);
  EXPECT_NE(what.find("img.png"), std::string::npos) << what;
  EXPECT_EQ(size_error(l, 11, 10), ErrorCode::kLimitExceeded);
}

TEST(LimitsTest, DefaultPixelLimit) {
  const Limits l;
  // 178,956,970 = 2 * 5 * 17,895,697: exactly at the limit passes, one row more fails.
  EXPECT_NO_THROW(check_image_size(l, "img.png", 17'895'697, 10, 1, 1));
  EXPECT_EQ(size_error(l, 17'895'697, 11, 1, 1), ErrorCode::kLimitExceeded);
  EXPECT_EQ(size_error(l, 20000, 20000, 3, 1), ErrorCode::kLimitExceeded);
}

TEST(LimitsTest, SixtyFourBitProducts) {
  const Limits l;
  // 65535 x 65535 = 4,294,836,225 pixels: more than 32 bits hold, far above the limit.
  EXPECT_EQ(size_error(l, 65535, 65535, 4, 2), ErrorCode::kLimitExceeded);
  // A product that wraps to a small number in 32 bits (65536 * 65536 = 2^32 -> 0) must still fail.
  EXPECT_EQ(size_error(l, 65536, 65536, 1, 1), ErrorCode::kLimitExceeded);
  // With the pixel check off, the byte check must use 64-bit arithmetic too.
  Limits bytes_only;
  bytes_only.max_pixels = 0;
  EXPECT_EQ(size_error(bytes_only, 65535, 65535, 4, 2), ErrorCode::kLimitExceeded);
  EXPECT_NO_THROW(check_image_size(bytes_only, "img.png", 65536, 65536, 1, 1));      // exactly 4 GiB
  EXPECT_EQ(size_error(bytes_only, 65536, 65537, 1, 1), ErrorCode::kLimitExceeded);  // 4 GiB + 64 KiB
}

TEST(LimitsTest, ByteLimitCountsChannelsAndSampleSize) {
  Limits l;
  l.max_pixels = 0;
  l.max_bytes = 1200;
  EXPECT_NO_THROW(check_image_size(l, "img.png", 10, 10, 3, 4));      // 1200 bytes: at the limit
  EXPECT_EQ(size_error(l, 10, 10, 4, 4), ErrorCode::kLimitExceeded);  // 1600 bytes
  EXPECT_EQ(size_error(l, 10, 10, 3, 5), ErrorCode::kLimitExceeded);  // 1500 bytes
  EXPECT_NO_THROW(check_image_size(l, "img.png", 20, 20, 3, 1));      // 1200 bytes
}

TEST(LimitsTest, ZeroDisablesEachLimit) {
  Limits l;
  l.max_pixels = 0;
  l.max_bytes = 0;
  EXPECT_NO_THROW(check_image_size(l, "img.png", 1'000'000, 1'000'000, 4, 2));
  l.max_bytes = 1;
  EXPECT_EQ(size_error(l, 1, 1, 1, 2), ErrorCode::kLimitExceeded);
}

}  // namespace
}  // namespace loom
