// resample(): libsoxr on the float32 samples (default), SoX's "rate" effect through apply_effects, or
// torchaudio's windowed sinc (resample_sinc.cc).
#include <fmt/format.h>
#include <soxr.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "audio_tensor_checks.h"
#include "loom/audio/effects.h"
#include "loom/codec/error.h"
#include "loom/codec/limits.h"
#include "resample_sinc.h"

namespace loom::audio {
namespace {

// libsoxr's recipe for each ResampleQuality (the same levels as SoX's rate -q|-l|-m|-h|-v).
unsigned long soxr_recipe(ResampleQuality quality) {
  switch (quality) {
    case ResampleQuality::kQuick: return SOXR_QQ;
    case ResampleQuality::kLow: return SOXR_LQ;
    case ResampleQuality::kMedium: return SOXR_MQ;
    case ResampleQuality::kHigh: return SOXR_HQ;
    case ResampleQuality::kVeryHigh: return SOXR_VHQ;
  }
  throw Error(ErrorCode::kInvalidInput, "resample", "unknown quality");
}

const char* sox_flag(ResampleQuality quality) {
  switch (quality) {
    case ResampleQuality::kQuick: return "-q";
    case ResampleQuality::kLow: return "-l";
    case ResampleQuality::kMedium: return "-m";
    case ResampleQuality::kHigh: return "-h";
    case ResampleQuality::kVeryHigh: return "-v";
  }
  throw Error(ErrorCode::kInvalidInput, "resample", "unknown quality");
}

// The index of the first NaN or infinity among p[0, n), or -1. A branch-free pass over the exponent
// bits first (it vectorizes), the search only when it found one.
int64_t first_non_finite(const float* p, int64_t n) {
  uint32_t any = 0;
  for (int64_t i = 0; i < n; ++i) {
    uint32_t bits;
    std::memcpy(&bits, p + i, sizeof(bits));
    any |= static_cast<uint32_t>((bits & 0x7f800000u) == 0x7f800000u);
  }
  if (any == 0) return -1;
  for (int64_t i = 0; i < n; ++i) {
    if (!std::isfinite(p[i])) return i;
  }
  return -1;
}

struct SoxrDeleter {
  void operator()(soxr_t s) const { soxr_delete(s); }
};

// libsoxr, one thread, float32 in and out: planar ([channels, frames], one pointer per channel) or
// interleaved ([frames, channels]), both contiguous. The input goes in blocks of 64 Ki frames (about
// 1.5x faster than soxr_oneshot's single block on 60 s of audio, the same values), then a flush; the
// flush gives exactly round(frames * out_rate / in_rate) frames (soxr_oneshot can stop short of it).
Tensor soxr_resample(const Tensor& in, int64_t channels, int64_t frames, int in_rate, int out_rate,
                     ResampleQuality quality, bool channels_first) {
  const auto out_frames = static_cast<int64_t>(std::llround(static_cast<double>(frames) * out_rate / in_rate));
  const uint64_t out_bytes = static_cast<uint64_t>(out_frames) * static_cast<uint64_t>(channels) * sizeof(float);
  const uint64_t max_bytes = Limits{}.max_bytes;
  if (max_bytes != 0 && out_bytes > max_bytes) {
    throw Error(ErrorCode::kLimitExceeded, "samples",
                fmt::format("resampled to {} Hz it would take {} bytes, more than the limit of {} bytes", out_rate,
                            out_bytes, max_bytes));
  }
  Tensor out = channels_first ? Tensor::empty({channels, out_frames}, DType::kFloat32)
                              : Tensor::empty({out_frames, channels}, DType::kFloat32);
  const soxr_datatype_t type = channels_first ? SOXR_FLOAT32_S : SOXR_FLOAT32_I;
  const soxr_io_spec_t io = soxr_io_spec(type, type);
  const soxr_quality_spec_t q = soxr_quality_spec(soxr_recipe(quality), 0);
  const soxr_runtime_spec_t runtime = soxr_runtime_spec(1);
  soxr_error_t error = nullptr;
  const std::unique_ptr<soxr, SoxrDeleter> resampler(
      soxr_create(in_rate, out_rate, static_cast<unsigned>(channels), &error, &io, &q, &runtime));
  if (error != nullptr) throw Error(ErrorCode::kInternal, "libsoxr", fmt::format("cannot start: {}", error));

  constexpr int64_t kBlock = 65536;
  std::vector<const float*> in_rows(static_cast<size_t>(channels));
  std::vector<float*> out_rows(static_cast<size_t>(channels));
  int64_t in_done = 0, out_done = 0;
  for (;;) {
    const int64_t block = std::min(kBlock, frames - in_done);  // 0: the flush
    const void* in_arg = in.data<float>() + in_done * channels;
    void* out_arg = out.data<float>() + out_done * channels;
    if (channels_first) {
      for (int64_t c = 0; c < channels; ++c) {
        in_rows[c] = in.data<float>() + c * frames + in_done;
        out_rows[c] = out.data<float>() + c * out_frames + out_done;
      }
      in_arg = in_rows.data();
      out_arg = out_rows.data();
    }
    size_t consumed = 0, produced = 0;
    error = soxr_process(resampler.get(), block > 0 ? in_arg : nullptr, static_cast<size_t>(block), &consumed, out_arg,
                         static_cast<size_t>(out_frames - out_done), &produced);
    if (error != nullptr) throw Error(ErrorCode::kInternal, "libsoxr", fmt::format("resampling failed: {}", error));
    in_done += static_cast<int64_t>(consumed);
    out_done += static_cast<int64_t>(produced);
    if ((block == 0 && produced == 0) || out_done == out_frames) break;
  }
  if (out_done != out_frames) {
    throw Error(ErrorCode::kInternal, "libsoxr",
                fmt::format("gave {} frames of the {} expected", out_done, out_frames));
  }
  return out;
}

}  // namespace

Tensor resample(const Tensor& samples, int in_rate, int out_rate, const ResampleOptions& options) {
  if (out_rate <= 0) {
    throw Error(ErrorCode::kInvalidInput, "samples",
                "output sample rate must be positive, not " + std::to_string(out_rate));
  }
  const ResampleEngine engine = options.engine;
  const bool channels_first = options.channels_first;
  if (engine == ResampleEngine::kSox) {
    return apply_effects(samples, in_rate, {{"rate", {sox_flag(options.quality), std::to_string(out_rate)}}},
                         channels_first)
        .samples;
  }
  if (engine != ResampleEngine::kSoxr && engine != ResampleEngine::kSinc) {
    throw Error(ErrorCode::kInvalidInput, "resample", "unknown engine");
  }
  if (engine == ResampleEngine::kSinc) detail::check_sinc_options(options);
  const auto [channels, frames] = detail::check_effect_input(samples, in_rate, channels_first);
  if (out_rate > Limits{}.max_sample_rate) {
    throw Error(ErrorCode::kLimitExceeded, "samples",
                fmt::format("output sample rate {} Hz is above the limit of {}", out_rate, Limits{}.max_sample_rate));
  }
  const Tensor in = samples.contiguous();
  if (const int64_t i = first_non_finite(in.data<float>(), channels * frames); i >= 0) {
    const int64_t c = channels_first ? i / frames : i % channels, f = channels_first ? i % frames : i / channels;
    throw Error(ErrorCode::kInvalidInput, "samples", fmt::format("holds NaN or infinity (channel {}, frame {})", c, f));
  }
  if (in_rate == out_rate) return in.clone();
  if (engine == ResampleEngine::kSinc) return detail::sinc_resample(in, channels, frames, in_rate, out_rate, options);
  return soxr_resample(in, channels, frames, in_rate, out_rate, options.quality, channels_first);
}

Tensor resample(const Tensor& samples, int in_rate, int out_rate, ResampleQuality quality, bool channels_first,
                ResampleEngine engine) {
  ResampleOptions options;
  options.quality = quality;
  options.engine = engine;
  options.channels_first = channels_first;
  return resample(samples, in_rate, out_rate, options);
}

}  // namespace loom::audio
