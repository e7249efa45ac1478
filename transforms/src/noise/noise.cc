// The gaussian_noise op: checks, the key drawn from the Rng, and the job (noise_plan.h) for each run of
// 2^32 elements; the per-element work is in noise_hwy.cc (the generator's tables in ziggurat.cc).
#include "loom/transforms/noise.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/image_check.h"
#include "loom/codec/error.h"
#include "noise/noise_kernels.h"

namespace loom::transforms {

Tensor gaussian_noise(const Tensor& image, Rng& rng, double mean, double sigma, bool clip) {
  const char* op = "gaussian_noise";
  check_image(image, Layout::kCHW, op, {DType::kUInt8, DType::kFloat32});  // element-wise: any layout
  if (!std::isfinite(mean) || !std::isfinite(sigma) || sigma < 0.0) {
    throw Error(ErrorCode::kInvalidInput, op,
                fmt::format("mean must be finite and sigma finite and >= 0, got mean {} sigma {}", mean, sigma));
  }
  const bool u8 = image.dtype() == DType::kUInt8;
  const Tensor src = image.contiguous();
  Tensor out = Tensor::empty(src.shape(), src.dtype());
  // torchvision: uint8 noise is (mean * 255) + randn * (sigma * 255) in float32.
  NoiseJob job;
  prepare_noise_job(
      job, rng.next(), u8 ? static_cast<double>(static_cast<float>(mean * 255.0)) : mean,
      u8 ? static_cast<double>(static_cast<float>(sigma * 255.0)) : static_cast<double>(static_cast<float>(sigma)),
      clip);
  const uint64_t base_key = job.key;
  const int64_t n = src.numel();
  constexpr int64_t kChunk = int64_t{1} << 32;  // the hash indexes 2^32 elements per key
  for (int64_t start = 0; start < n; start += kChunk) {
    const int64_t count = std::min(kChunk, n - start);
    job.key = base_key ^ (static_cast<uint64_t>(start / kChunk) * 0x9e3779b97f4a7c15ull);
    if (u8) {
      gaussian_noise_u8(src.data<uint8_t>() + start, out.data<uint8_t>() + start, count, job);
    } else {
      gaussian_noise_f32(src.data<float>() + start, out.data<float>() + start, count, job);
    }
  }
  return out;
}

}  // namespace loom::transforms
