// Reference decodes for the audio tests: tests/reference/audio_load.py (soundfile or PyAV).
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <string>

#include "loom/codec/tensor.h"
#include "python_reference.h"

namespace loom::test {

struct ReferenceAudio {
  Tensor samples;  // [frames, channels]
  int sample_rate = 0;
  bool soundfile = false;  // decoded by soundfile (else PyAV)
};

// `stream`: the index of the audio stream PyAV decodes (-1: the first audio stream).
inline ReferenceAudio reference_audio(const std::filesystem::path& file, bool normalize, int stream = -1) {
  const std::string stream_param = stream >= 0 ? ", \"stream\": " + std::to_string(stream) : "";
  const auto out = run_python_reference("audio_load.py", {},
                                        std::string("{\"file\": \"") + file.string() + "\", \"normalize\": " +
                                            (normalize ? "true" : "false") + stream_param + "}");
  ReferenceAudio r;
  if (out.count("samples") == 0) return r;
  r.samples = out.at("samples");
  r.sample_rate = static_cast<int>(out.at("rate").data<int64_t>()[0]);
  r.soundfile = out.at("backend").data<int64_t>()[0] == 0;
  return r;
}

// Exact equality of dtype, shape and every byte; on failure reports the first differing element and
// the largest absolute difference.
inline ::testing::AssertionResult same_samples(const Tensor& got, const Tensor& want) {
  if (got.dtype() != want.dtype()) {
    return ::testing::AssertionFailure() << "dtype " << to_string(got.dtype()) << " vs " << to_string(want.dtype());
  }
  if (got.ndim() != want.ndim() || !std::equal(got.shape().begin(), got.shape().end(), want.shape().begin())) {
    std::string a, b;
    for (auto s : got.shape()) a += std::to_string(s) + " ";
    for (auto s : want.shape()) b += std::to_string(s) + " ";
    return ::testing::AssertionFailure() << "shape [" << a << "] vs [" << b << "]";
  }
  const Tensor g = got.contiguous(), w = want.contiguous();
  if (g.nbytes() == 0 || std::memcmp(g.data(), w.data(), g.nbytes()) == 0) return ::testing::AssertionSuccess();
  const size_t n = static_cast<size_t>(g.numel());
  double max_diff = 0;
  size_t first = n;
  auto value = [](const Tensor& t, size_t i) -> double {
    switch (t.dtype()) {
      case DType::kUInt8: return static_cast<const uint8_t*>(t.data())[i];
      case DType::kInt16: return static_cast<const int16_t*>(t.data())[i];
      case DType::kInt32: return static_cast<const int32_t*>(t.data())[i];
      case DType::kInt64: return static_cast<double>(static_cast<const int64_t*>(t.data())[i]);
      case DType::kFloat64: return static_cast<const double*>(t.data())[i];
      default: return static_cast<const float*>(t.data())[i];
    }
  };
  for (size_t i = 0; i < n; ++i) {
    const double d = std::abs(value(g, i) - value(w, i));
    if (d > 0 ||
        std::memcmp(static_cast<const char*>(g.data()) + i * element_size(g.dtype()),
                    static_cast<const char*>(w.data()) + i * element_size(g.dtype()), element_size(g.dtype())) != 0) {
      if (first == n) first = i;
      max_diff = std::max(max_diff, d);
    }
  }
  return ::testing::AssertionFailure() << "differs first at element " << first << " (" << value(g, first) << " vs "
                                       << value(w, first) << "), max abs diff " << max_diff;
}

}  // namespace loom::test
