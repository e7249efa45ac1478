// The Highway uint8 resize passes equal the scalar reference bit for bit, on every SIMD target this
// CPU supports, for every channel count, upscales and downscales, and row ends (where the horizontal
// kernel must not read past the image); the fast kernels equal their own references.
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <random>
#include <vector>

#include "resize/resize_coefficients.h"
#include "resize/resize_kernels.h"

namespace loom::transforms {
namespace {

// Pillow's antialiased filters, and torch's non-antialiased bicubic (a = -0.75, border weights folded).
const std::vector<ResizeOptions> kFilters = {{Interpolation::kBilinear, true, Layout::kHWC},
                                             {Interpolation::kBicubic, true, Layout::kHWC},
                                             {Interpolation::kBicubic, false, Layout::kHWC},
                                             {Interpolation::kBox, true, Layout::kHWC},
                                             {Interpolation::kNearest, true, Layout::kHWC}};

// The channels of interleaved samples as planes, one after the other.
std::vector<uint8_t> to_planes(const std::vector<uint8_t>& interleaved, int channels) {
  const size_t n = interleaved.size() / channels;
  std::vector<uint8_t> planes(interleaved.size());
  for (size_t i = 0; i < n; ++i)
    for (int ch = 0; ch < channels; ++ch) planes[ch * n + i] = interleaved[i * channels + ch];
  return planes;
}

TEST(ResizeHwy, EveryTargetMatchesTheScalarReference) {
  std::mt19937 rng(3);
  int checked = 0;
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    for (const ResizeOptions& filter : kFilters) {
      for (auto [in, out] : {std::pair<int64_t, int64_t>{97, 13},
                             {64, 64},
                             {13, 97},
                             {200, 7},
                             {5, 3},
                             {3, 40},
                             {1920, 224},
                             {2, 1},
                             {1, 5}}) {
        Coefficients owner = axis_coefficients(in, out, filter);
        add_fixed_weights(owner);
        add_fast_column_weights(owner);
        add_fast_row_weights(owner);
        const AxisWeights c = owner.weights();
        for (int channels = 1; channels <= 4; ++channels) {
          // Horizontal: 5 rows of `in` pixels -> `out` pixels; the buffer ends exactly at the image.
          const int64_t rows = 5;
          std::vector<uint8_t> src(static_cast<size_t>(rows * in * channels));
          for (auto& v : src) v = static_cast<uint8_t>(rng());
          std::vector<uint8_t> got(static_cast<size_t>(rows * out * channels)), want(got.size());
          resample_rows_u8(src.data(), in, got.data(), out, rows, channels, c);
          resample_rows(src.data(), in, want.data(), out, rows, channels, c);
          ASSERT_EQ(got, want) << hwy::TargetName(target) << " rows " << in << "->" << out << " C=" << channels;
          // The fast kernel against its own reference, on interleaved rows and on the same samples as
          // planes; 37 rows: more than one tile of the transposing kernel, the last one partial.
          const int64_t fast_rows = 37;
          std::vector<uint8_t> fast_src(static_cast<size_t>(fast_rows * in * channels));
          for (auto& v : fast_src) v = static_cast<uint8_t>(rng());
          std::vector<uint8_t> fast_got(static_cast<size_t>(fast_rows * out * channels)), fast_want(fast_got.size());
          std::vector<uint8_t> scratch(resample_rows_u8_fast_scratch(in, out, channels));
          resample_rows_fast(fast_src.data(), in, fast_want.data(), out, fast_rows, channels, c);
          resample_rows_u8_fast(fast_src.data(), {in * channels, channels, 1}, in, fast_got.data(),
                                {out * channels, channels, 1}, out, fast_rows, channels, c, scratch.data());
          ASSERT_EQ(fast_got, fast_want) << hwy::TargetName(target) << " fast rows " << in << "->" << out
                                         << " C=" << channels;
          const std::vector<uint8_t> planes = to_planes(fast_src, channels);
          std::vector<uint8_t> planar_got(fast_got.size());
          resample_rows_u8_fast(planes.data(), {in, 1, fast_rows * in}, in, planar_got.data(),
                                {out, 1, fast_rows * out}, out, fast_rows, channels, c, scratch.data());
          ASSERT_EQ(planar_got, to_planes(fast_want, channels))
              << hwy::TargetName(target) << " fast planar rows " << in << "->" << out << " C=" << channels;
        }
        // Vertical: `in` rows of 37 samples -> `out` rows.
        const int64_t len = 37;
        std::vector<uint8_t> src(static_cast<size_t>(in * len));
        for (auto& v : src) v = static_cast<uint8_t>(rng());
        std::vector<uint8_t> got(static_cast<size_t>(out * len)), want(got.size());
        resample_columns_u8(src.data(), got.data(), len, c);
        resample_columns(src.data(), want.data(), len, c);
        ASSERT_EQ(got, want) << hwy::TargetName(target) << " columns " << in << "->" << out;
        // The fast vertical kernel against its own reference (bicubic's negative weights included:
        // the kernel is only used without them, but its arithmetic is defined for them too).
        resample_columns_u8_fast(src.data(), got.data(), len, c);
        resample_columns_fast(src.data(), want.data(), len, c);
        ASSERT_EQ(got, want) << hwy::TargetName(target) << " fast columns " << in << "->" << out;
        ++checked;
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  EXPECT_GE(checked, 18);
}

}  // namespace
}  // namespace loom::transforms
