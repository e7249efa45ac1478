// The gaussian_noise op: checks, the key drawn from the Rng, and the job (noise_plan.h) for each run of
// 2^32 elements; the per-element work is in noise_hwy.cc (the generator's tables in ziggurat.cc), or
// for a CUDA image in its twin noise.cu, with the same key and jobs.
#include "loom/transforms/noise.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/cuda_image.h"
#include "core/image_check.h"
#include "loom/codec/error.h"
#include "noise/noise_kernels.h"

#if LOOM_WITH_CUDA
#include "loom/accel/device_memory.h"
#endif

namespace loom::transforms {
namespace {

constexpr int64_t kChunk = int64_t{1} << 32;  // the hash indexes 2^32 elements per key

// Chunk `index`'s key: a new key per 2^32 elements.
uint64_t chunk_key(uint64_t base_key, int64_t index) {
  return base_key ^ (static_cast<uint64_t>(index) * 0x9e3779b97f4a7c15ull);
}

#if LOOM_WITH_CUDA
// The CUDA path: the same jobs, queued on the current stream of the image's device.
Tensor gaussian_noise_cuda(const Tensor& image, NoiseJob job) {
  const int device = image.device().index;
  const accel::DeviceGuard guard(device);
  const accel::Stream stream = accel::current_stream(device);
  const Tensor src = contiguous_on_device(image, stream);
  Tensor out = accel::empty_device(src.shape(), src.dtype(), image.device(), stream);
  const uint64_t base_key = job.key;
  const int64_t n = src.numel();
  for (int64_t start = 0; start < n; start += kChunk) {
    const int64_t count = std::min(kChunk, n - start);
    job.key = chunk_key(base_key, start / kChunk);
    if (src.dtype() == DType::kUInt8) {
      gaussian_noise_u8_cuda(static_cast<const uint8_t*>(src.data()) + start, static_cast<uint8_t*>(out.data()) + start,
                             count, job, ziggurat(), stream.handle());
    } else {
      gaussian_noise_f32_cuda(static_cast<const float*>(src.data()) + start, static_cast<float*>(out.data()) + start,
                              count, job, ziggurat(), stream.handle());
    }
  }
  return out;
}
#endif

}  // namespace

Tensor gaussian_noise(const Tensor& image, Rng& rng, double mean, double sigma, bool clip) {
  const char* op = "gaussian_noise";
  // Element-wise: any layout.
  check_image(image, Layout::kCHW, op, {DType::kUInt8, DType::kFloat32}, {}, Devices::kCpuOrCuda);
  if (!std::isfinite(mean) || !std::isfinite(sigma) || sigma < 0.0) {
    throw Error(ErrorCode::kInvalidInput, op,
                fmt::format("mean must be finite and sigma finite and >= 0, got mean {} sigma {}", mean, sigma));
  }
  const bool u8 = image.dtype() == DType::kUInt8;
  // torchvision: uint8 noise is (mean * 255) + randn * (sigma * 255) in float32.
  NoiseJob job;
  prepare_noise_job(
      job, rng.next(), u8 ? static_cast<double>(static_cast<float>(mean * 255.0)) : mean,
      u8 ? static_cast<double>(static_cast<float>(sigma * 255.0)) : static_cast<double>(static_cast<float>(sigma)),
      clip);
#if LOOM_WITH_CUDA
  if (on_cuda(image)) return gaussian_noise_cuda(image, job);
#endif
  const Tensor src = image.contiguous();
  Tensor out = Tensor::empty(src.shape(), src.dtype());
  const uint64_t base_key = job.key;
  const int64_t n = src.numel();
  for (int64_t start = 0; start < n; start += kChunk) {
    const int64_t count = std::min(kChunk, n - start);
    job.key = chunk_key(base_key, start / kChunk);
    if (u8) {
      gaussian_noise_u8(src.data<uint8_t>() + start, out.data<uint8_t>() + start, count, job);
    } else {
      gaussian_noise_f32(src.data<float>() + start, out.data<float>() + start, count, job);
    }
  }
  return out;
}

}  // namespace loom::transforms
