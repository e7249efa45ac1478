// Shared by functional_test.cc and spectral_test.cc: run a list of cases through
// tests/reference/audio_functional.py (torchaudio 0.13) in one Python call and compare each with loom.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "loom/codec/tensor.h"
#include "python_reference.h"

namespace loom::test {

// max |a - b| / max |b| over all elements (max |a - b| when b is all zero); +inf on a shape mismatch.
inline double max_relative_diff(const Tensor& a, const Tensor& b) {
  if (!a.defined() || !b.defined() || a.ndim() != b.ndim()) return INFINITY;
  for (int d = 0; d < a.ndim(); ++d)
    if (a.size(d) != b.size(d)) return INFINITY;
  const Tensor ac = a.contiguous(), bc = b.contiguous();
  double diff = 0, peak = 0;
  for (int64_t i = 0; i < ac.numel(); ++i) {
    const double x = ac.data<float>()[i], y = bc.data<float>()[i];
    if (std::isnan(x) != std::isnan(y)) return INFINITY;
    if (std::isnan(x)) continue;
    diff = std::max(diff, std::abs(x - y));
    peak = std::max(peak, std::abs(y));
  }
  return peak > 0 ? diff / peak : diff;
}

inline std::string shape_string(const Tensor& t) {
  std::string s = "[";
  for (int d = 0; d < t.ndim(); ++d) s += (d ? ", " : "") + std::to_string(t.size(d));
  return s + "]";
}

struct RefCase {
  std::string json;                           // the case object for the script, e.g. {"op": "gain", ...}
  std::function<Tensor(const Tensor&)> loom;  // loom's result for the same input
  double tolerance = 1e-4;                    // on max_relative_diff
  TensorMap extra = {};                       // extra inputs, named by the script's convention (a_<i>, ...)
};

// Uniform noise in [-amplitude, amplitude], float32 [channels, frames], fixed seed.
inline Tensor random_signal(int64_t channels, int64_t frames, uint32_t seed, float amplitude = 0.5f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-amplitude, amplitude);
  Tensor t = Tensor::empty({channels, frames}, DType::kFloat32);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = u(rng);
  return t;
}

// Runs every case on `samples` (or, when wav is not empty, on that file as the script decodes it) and
// checks loom against torchaudio. Prints each case's max relative difference.
inline void expect_matches_torchaudio(const Tensor& samples, const std::string& wav, std::vector<RefCase> cases) {
  TensorMap inputs;
  if (samples.defined()) inputs["samples"] = samples;
  std::string json = "{\"wav\": \"" + wav + "\", \"cases\": [";
  for (size_t i = 0; i < cases.size(); ++i) {
    json += (i ? ", " : "") + cases[i].json;
    for (const auto& [name, t] : cases[i].extra) inputs[name] = t;
  }
  json += "]}";
  const TensorMap out = run_python_reference("audio_functional.py", inputs, json);
  if (out.empty()) return;  // the script failed: already reported
  const Tensor input = wav.empty() ? samples : out.at("input");
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(cases[i].json);
    const auto it = out.find(std::to_string(i));
    ASSERT_NE(it, out.end()) << "no reference output";
    const Tensor mine = cases[i].loom(input);
    ASSERT_EQ(shape_string(mine), shape_string(it->second));
    const double rel = max_relative_diff(mine, it->second);
    std::printf("  %-100s max rel diff %.3g\n", cases[i].json.c_str(), rel);
    EXPECT_LE(rel, cases[i].tolerance);
  }
}

}  // namespace loom::test
