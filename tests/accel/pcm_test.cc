// pcm_to_float and s24_to_s32 equal their scalar references on every Highway target this CPU supports:
// every encoding, lengths 0..70 (every tail of every vector width) and a long one, sources at odd byte
// offsets, and nothing written outside the output. The references themselves are checked against
// values worked out by hand (libsndfile's scaling).
#include "loom/accel/pcm.h"

#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace loom::accel {
namespace {

constexpr PcmEncoding kEncodings[] = {PcmEncoding::kU8, PcmEncoding::kS16, PcmEncoding::kS24, PcmEncoding::kS32,
                                      PcmEncoding::kF32};

std::vector<uint8_t> random_bytes(size_t n, uint64_t seed) {
  std::vector<uint8_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    out[i] = static_cast<uint8_t>(seed >> 56);
  }
  return out;
}

// Bit patterns, so that NaN payloads of kF32 compare too.
template <typename T>
bool same_bits(const T* a, const T* b, size_t n) {
  return n == 0 || std::memcmp(a, b, n * sizeof(T)) == 0;
}

TEST(Pcm, ScalarReferencesScaleAsLibsndfile) {
  const uint8_t u8[] = {0, 128, 255};
  float f[3];
  pcm_to_float_scalar(u8, 3, PcmEncoding::kU8, f);
  EXPECT_EQ(f[0], -1.0f);
  EXPECT_EQ(f[1], 0.0f);
  EXPECT_EQ(f[2], 127.0f / 128.0f);

  const uint8_t s16[] = {0x00, 0x80, 0xFF, 0x7F, 0x01, 0x00};  // -32768, 32767, 1
  pcm_to_float_scalar(s16, 3, PcmEncoding::kS16, f);
  EXPECT_EQ(f[0], -1.0f);
  EXPECT_EQ(f[1], 32767.0f / 32768.0f);
  EXPECT_EQ(f[2], 1.0f / 32768.0f);

  const uint8_t s24[] = {0x00, 0x00, 0x80, 0xFF, 0xFF, 0x7F, 0xFF, 0xFF, 0xFF};  // -2^23, 2^23 - 1, -1
  int32_t i32[3];
  s24_to_s32_scalar(s24, 3, i32);
  EXPECT_EQ(i32[0], std::numeric_limits<int32_t>::min());
  EXPECT_EQ(i32[1], 0x7FFFFF00);
  EXPECT_EQ(i32[2], -256);
  pcm_to_float_scalar(s24, 3, PcmEncoding::kS24, f);
  EXPECT_EQ(f[0], -1.0f);
  EXPECT_EQ(f[1], 8388607.0f / 8388608.0f);
  EXPECT_EQ(f[2], -1.0f / 8388608.0f);

  // int32 -> float rounds to nearest even: 2^31 - 1 becomes 2^31, so 1.0 (as libsndfile gives it).
  const uint8_t s32[] = {0xFF, 0xFF, 0xFF, 0x7F, 0x00, 0x00, 0x00, 0x80};
  pcm_to_float_scalar(s32, 2, PcmEncoding::kS32, f);
  EXPECT_EQ(f[0], 1.0f);
  EXPECT_EQ(f[1], -1.0f);
}

TEST(Pcm, EveryTargetEqualsTheScalarReference) {
  std::vector<size_t> lengths;
  for (size_t n = 0; n <= 70; ++n) lengths.push_back(n);
  lengths.push_back(4099);
  constexpr size_t kGuard = 5;
  size_t targets = 0;
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    ++targets;
    hwy::SetSupportedTargetsForTest(target);
    const std::string name = hwy::TargetName(target);
    for (PcmEncoding e : kEncodings) {
      for (size_t n : lengths) {
        for (size_t offset : {0, 1, 3}) {
          SCOPED_TRACE(name + ", encoding " + std::to_string(static_cast<int>(e)) + ", n " + std::to_string(n) +
                       ", offset " + std::to_string(offset));
          // The source ends exactly at its last sample: a kernel reading past it trips ASan.
          const std::vector<uint8_t> bytes = random_bytes(offset + n * pcm_bytes(e), n * 31 + offset);
          const uint8_t* src = bytes.data() + offset;
          std::vector<float> want(n), got(n + 2 * kGuard, -7.0f);
          pcm_to_float_scalar(src, n, e, want.data());
          pcm_to_float(src, n, e, got.data() + kGuard);
          ASSERT_TRUE(same_bits(want.data(), got.data() + kGuard, n));
          for (size_t g = 0; g < kGuard; ++g) ASSERT_TRUE(got[g] == -7.0f && got[kGuard + n + g] == -7.0f);
          if (e == PcmEncoding::kS24) {
            std::vector<int32_t> want32(n), got32(n + 2 * kGuard, -7);
            s24_to_s32_scalar(src, n, want32.data());
            s24_to_s32(src, n, got32.data() + kGuard);
            ASSERT_TRUE(same_bits(want32.data(), got32.data() + kGuard, n));
            for (size_t g = 0; g < kGuard; ++g) ASSERT_TRUE(got32[g] == -7 && got32[kGuard + n + g] == -7);
          }
        }
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  EXPECT_GE(targets, 1u);
  RecordProperty("targets", static_cast<int>(targets));
}

}  // namespace
}  // namespace loom::accel
