// interleave/deinterleave equal their scalar references on every Highway target this CPU supports: every
// element size, channels 1..8 (1: copy, 2-4: SIMD, > 4: the portable loop), lengths 0..70 (every tail of
// every vector width) and a long one, pointers one element past a vector boundary, and nothing written
// outside the outputs.
#include "loom/accel/interleave.h"

#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "loom/codec/error.h"

namespace loom::accel {
namespace {

constexpr size_t kGuard = 3;  // sentinel elements before and after every output
constexpr int kMaxChannels = 8;

std::vector<size_t> lengths() {
  std::vector<size_t> out;
  for (size_t n = 0; n <= 70; ++n) out.push_back(n);
  out.push_back(4099);  // many whole vectors of every width, then a tail
  return out;
}

template <typename T>
T pattern(size_t i) {
  return static_cast<T>((i + 1) * 0x9E3779B97F4A7C15ull >> 5);
}

// A buffer of n elements at `offset` elements into its storage, with kGuard sentinels either side.
template <typename T>
struct Guarded {
  Guarded(size_t n, size_t offset) : n(n), offset(offset), storage(offset + n + 2 * kGuard, T{0x5A}) {}
  T* data() { return storage.data() + offset + kGuard; }
  bool guards_intact() const {
    for (size_t i = 0; i < offset + kGuard; ++i)
      if (storage[i] != T{0x5A}) return false;
    for (size_t i = offset + kGuard + n; i < storage.size(); ++i)
      if (storage[i] != T{0x5A}) return false;
    return true;
  }
  std::vector<T> values() const { return {storage.begin() + offset + kGuard, storage.begin() + offset + kGuard + n}; }
  size_t n, offset;
  std::vector<T> storage;
};

// Counts the targets it compared in `targets` (void: ASSERTs end it early on a mismatch).
template <typename T>
void check_every_target(size_t& targets) {
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    ++targets;
    hwy::SetSupportedTargetsForTest(target);
    const std::string name = hwy::TargetName(target);
    for (int channels = 1; channels <= kMaxChannels; ++channels) {
      for (size_t n : lengths()) {
        for (size_t offset : {0, 1}) {  // 1: every pointer one element off the vector alignment
          const size_t total = n * static_cast<size_t>(channels);
          Guarded<T> interleaved(total, offset);
          for (size_t i = 0; i < total; ++i) interleaved.data()[i] = pattern<T>(i);

          // deinterleave: SIMD vs scalar, planes at distinct offsets.
          std::vector<Guarded<T>> got, want;
          for (int c = 0; c < channels; ++c) {
            got.emplace_back(n, offset + static_cast<size_t>(c));
            want.emplace_back(n, offset + static_cast<size_t>(c));
          }
          T* got_planes[kMaxChannels];
          T* want_planes[kMaxChannels];
          for (int c = 0; c < channels; ++c) {
            got_planes[c] = got[c].data();
            want_planes[c] = want[c].data();
          }
          deinterleave(interleaved.data(), n, channels, got_planes);
          deinterleave_scalar(interleaved.data(), n, channels, want_planes);
          for (int c = 0; c < channels; ++c) {
            ASSERT_EQ(got[c].values(), want[c].values())
                << name << " deinterleave " << sizeof(T) << " B channels " << channels << " n " << n << " plane " << c;
            ASSERT_TRUE(got[c].guards_intact()) << name << " deinterleave wrote outside plane " << c;
          }

          // interleave the planes back: SIMD vs scalar, and the round trip restores the input.
          const T* planes[kMaxChannels];
          for (int c = 0; c < channels; ++c) planes[c] = want_planes[c];
          Guarded<T> back(total, offset), back_want(total, offset);
          interleave(planes, n, channels, back.data());
          interleave_scalar(planes, n, channels, back_want.data());
          ASSERT_EQ(back.values(), back_want.values())
              << name << " interleave " << sizeof(T) << " B channels " << channels << " n " << n;
          ASSERT_EQ(back.values(), interleaved.values()) << name << " round trip channels " << channels << " n " << n;
          ASSERT_TRUE(back.guards_intact()) << name << " interleave wrote outside the output";
        }
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);  // back to the real CPU
}

TEST(Interleave, EveryTargetMatchesScalarUint8) {
  // At least one SIMD target besides the scalar fallback: a build that dispatches to scalar only fails.
  size_t targets = 0;
  check_every_target<uint8_t>(targets);
  EXPECT_GE(targets, 2u);
}
TEST(Interleave, EveryTargetMatchesScalarUint16) {
  // At least one SIMD target besides the scalar fallback: a build that dispatches to scalar only fails.
  size_t targets = 0;
  check_every_target<uint16_t>(targets);
  EXPECT_GE(targets, 2u);
}
TEST(Interleave, EveryTargetMatchesScalarUint32) {
  // At least one SIMD target besides the scalar fallback: a build that dispatches to scalar only fails.
  size_t targets = 0;
  check_every_target<uint32_t>(targets);
  EXPECT_GE(targets, 2u);
}
TEST(Interleave, EveryTargetMatchesScalarUint64) {
  // At least one SIMD target besides the scalar fallback: a build that dispatches to scalar only fails.
  size_t targets = 0;
  check_every_target<uint64_t>(targets);
  EXPECT_GE(targets, 2u);
}

// The element-size overloads (audio's float/int16 samples) equal the typed ones, also past 16 channels.
TEST(Interleave, ElementSizeOverloadsMatchTheTypedOnes) {
  for (size_t bytes : {1, 2, 4, 8}) {
    for (int channels : {1, 2, 3, 4, 6, 17}) {
      const size_t n = 301;
      std::vector<uint8_t> src(n * static_cast<size_t>(channels) * bytes);
      for (size_t i = 0; i < src.size(); ++i) src[i] = pattern<uint8_t>(i);
      std::vector<std::vector<uint8_t>> planes(static_cast<size_t>(channels), std::vector<uint8_t>(n * bytes));
      std::vector<void*> out;
      std::vector<const void*> in;
      for (auto& p : planes) {
        out.push_back(p.data());
        in.push_back(p.data());
      }
      deinterleave(src.data(), n, channels, bytes, out.data());
      for (int c = 0; c < channels; ++c) {
        for (size_t i = 0; i < n; ++i) {
          ASSERT_EQ(0, std::memcmp(planes[c].data() + i * bytes, src.data() + (i * channels + c) * bytes, bytes))
              << bytes << " B channels " << channels << " plane " << c << " element " << i;
        }
      }
      std::vector<uint8_t> back(src.size());
      interleave(in.data(), n, channels, bytes, back.data());
      ASSERT_EQ(back, src) << bytes << " B channels " << channels;
    }
  }
}

TEST(Interleave, ElementSizesOtherThan1248AreABug) {
  uint8_t src[12] = {}, plane[12] = {};
  void* out[1] = {plane};
  const void* in[1] = {plane};
  EXPECT_THROW(deinterleave(src, 4, 1, 3, out), Error);
  EXPECT_THROW(interleave(in, 4, 1, 16, src), Error);
}

TEST(Interleave, InputPlanesMayOverlap) {
  // One plane for every channel (a broadcast view, as an image with channel stride 0 gives).
  std::vector<uint16_t> plane(100);
  for (size_t i = 0; i < plane.size(); ++i) plane[i] = static_cast<uint16_t>(i * 7);
  for (int channels = 2; channels <= 4; ++channels) {
    const uint16_t* planes[4] = {plane.data(), plane.data(), plane.data(), plane.data()};
    std::vector<uint16_t> got(plane.size() * channels), want(got.size());
    interleave(planes, plane.size(), channels, got.data());
    interleave_scalar(planes, plane.size(), channels, want.data());
    EXPECT_EQ(got, want) << "channels " << channels;
  }
}

TEST(Interleave, PlanePointersInAnyOrderPermuteTheChannels) {
  // FFmpeg's GBRP: R, G, B samples into planes G, B, R by passing the planes as {R, G, B} pointers.
  const uint8_t rgb[6] = {1, 2, 3, 4, 5, 6};
  uint8_t g[2], b[2], r[2];
  uint8_t* planes[3] = {r, g, b};
  deinterleave(rgb, 2, 3, planes);
  EXPECT_EQ(r[0], 1);
  EXPECT_EQ(g[0], 2);
  EXPECT_EQ(b[1], 6);
}

}  // namespace
}  // namespace loom::accel
