// The run-based pixel remapping (geometry_image.cc) against a per-pixel reference on random maps:
// every pixel size it specialises (1, 2, 3, 4, 8, 12, 16 bytes) and a generic one, with fills (a value
// per channel), forward and mirrored runs, and single pixels.
#include "geometry/geometry_image.h"

#include <gtest/gtest.h>

#include <cstring>

#include "loom/transforms/random.h"

namespace loom::transforms::detail {
namespace {

std::vector<int64_t> random_map(Rng& rng, int64_t n, int64_t src) {
  std::vector<int64_t> map;
  while (static_cast<int64_t>(map.size()) < n) {
    const int64_t kind = rng.integer(0, 4), len = rng.integer(1, 12), start = rng.integer(0, src);
    for (int64_t i = 0; i < len && static_cast<int64_t>(map.size()) < n; ++i) {
      switch (kind) {
        case 0: map.push_back(-1); break;                               // fill
        case 1: map.push_back(std::min(start + i, src - 1)); break;     // forward
        case 2: map.push_back(std::max<int64_t>(start - i, 0)); break;  // mirrored
        default: map.push_back(rng.integer(0, src)); break;             // scattered
      }
    }
  }
  return map;
}

TEST(RemapAxes, EqualsPerPixelReferenceForEveryPixelSize) {
  Rng rng(11);
  const std::pair<DType, int64_t> cases[] = {{DType::kUInt8, 1},   {DType::kUInt8, 2},   {DType::kUInt8, 3},
                                             {DType::kUInt8, 4},   {DType::kUInt8, 5},   {DType::kFloat32, 2},
                                             {DType::kFloat32, 3}, {DType::kFloat32, 4}, {DType::kFloat64, 1}};
  for (const auto& [dtype, channels] : cases) {
    for (Layout layout : {Layout::kHWC, Layout::kCHW}) {
      const int64_t h = 7, w = 29;
      Tensor image =
          layout == Layout::kHWC ? Tensor::empty({h, w, channels}, dtype) : Tensor::empty({channels, h, w}, dtype);
      auto* bytes = static_cast<uint8_t*>(image.data());
      for (size_t i = 0; i < image.nbytes(); ++i) bytes[i] = static_cast<uint8_t>(rng.integer(1, 256));
      // A fill of its own for each channel, so that a fill pixel's bytes in the wrong order show.
      Fill fill;
      std::vector<uint8_t> fill_bytes(static_cast<size_t>(channels) * element_size(dtype));
      for (int64_t c = 0; c < channels; ++c) {
        const double v = 10 + 40 * c;
        fill.push_back(v);
        uint8_t* at = fill_bytes.data() + c * element_size(dtype);
        if (dtype == DType::kUInt8) *at = static_cast<uint8_t>(v);
        if (dtype == DType::kFloat32) *reinterpret_cast<float*>(at) = static_cast<float>(v);
        if (dtype == DType::kFloat64) *reinterpret_cast<double*>(at) = v;
      }
      for (int trial = 0; trial < 20; ++trial) {
        const std::vector<int64_t> rows = random_map(rng, rng.integer(1, 12), h);
        const std::vector<int64_t> cols = random_map(rng, rng.integer(1, 60), w);
        const Tensor out = remap_axes(image, layout, rows, cols, fill);
        const size_t es = element_size(dtype);
        const auto* o = static_cast<const uint8_t*>(out.data());
        const int64_t oh = static_cast<int64_t>(rows.size()), ow = static_cast<int64_t>(cols.size());
        for (int64_t c = 0; c < channels; ++c) {
          for (int64_t y = 0; y < oh; ++y) {
            for (int64_t x = 0; x < ow; ++x) {
              const bool inside = rows[y] >= 0 && cols[x] >= 0;
              const int64_t src_index =
                  layout == Layout::kHWC ? (rows[y] * w + cols[x]) * channels + c : (c * h + rows[y]) * w + cols[x];
              const int64_t out_index = layout == Layout::kHWC ? (y * ow + x) * channels + c : (c * oh + y) * ow + x;
              const uint8_t* want = inside ? bytes + src_index * es : fill_bytes.data() + c * es;
              ASSERT_EQ(std::memcmp(o + out_index * es, want, es), 0)
                  << to_string(dtype) << " x" << channels << " y=" << y << " x=" << x << " c=" << c << " cols "
                  << testing::PrintToString(cols) << " rows " << testing::PrintToString(rows);
            }
          }
        }
      }
    }
  }
}

TEST(PaddedAxis, ModesMatchNumpyPad) {
  // numpy.pad of [0 1 2 3] by 3 on each side: edge 0 0 0 | ... | 3 3 3, reflect 3 2 1 | ... | 2 1 0,
  // symmetric 2 1 0 | ... | 3 2 1.
  EXPECT_EQ(padded_axis(4, 3, 3, PadMode::kEdge), (std::vector<int64_t>{0, 0, 0, 0, 1, 2, 3, 3, 3, 3}));
  EXPECT_EQ(padded_axis(4, 3, 3, PadMode::kReflect), (std::vector<int64_t>{3, 2, 1, 0, 1, 2, 3, 2, 1, 0}));
  EXPECT_EQ(padded_axis(4, 3, 3, PadMode::kSymmetric), (std::vector<int64_t>{2, 1, 0, 0, 1, 2, 3, 3, 2, 1}));
  EXPECT_EQ(padded_axis(4, 1, 2, PadMode::kConstant), (std::vector<int64_t>{-1, 0, 1, 2, 3, -1, -1}));
}

}  // namespace
}  // namespace loom::transforms::detail
