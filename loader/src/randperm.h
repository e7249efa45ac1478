// torch.randperm's two CPU algorithms (randperm_cpu in aten/src/ATen/native/TensorFactories.cpp),
// drawing from torch's CPU generator: at::mt19937 seeded with the low 32 bits of the seed, which is
// the sequence of std::mt19937(seed & 0xffffffff). torch_randperm (order.h) picks one by n as torch
// does; the loader's tests call each directly, since no torch at hand runs the inside-out one.
// Private to the loader.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

namespace loom::loader::detail {

enum class RandpermAlgorithm {
  // r = 0..n-1; for i in 0..n-2: swap(r[i], r[i + random() % (n - i)]), random() one 32-bit draw.
  kForward32,
  // for i in 0..n-1: z = random64() % (i + 1); r[i] = r[z]; r[z] = i, where random64() is two
  // 32-bit draws, the first one the high word (CPUGeneratorImpl::random64).
  kInsideOut64,
};

// torch picks kInsideOut64 from this n on (uint32 max / 20 = 214,748,364).
inline constexpr int64_t kRandpermInsideOutFrom = std::numeric_limits<uint32_t>::max() / 20;

RandpermAlgorithm randperm_algorithm(int64_t n);

// A permutation of 0..n-1 (n >= 0) by `algorithm`, seeded as torch seeds its generator.
std::vector<int64_t> randperm(int64_t n, uint64_t seed, RandpermAlgorithm algorithm);

}  // namespace loom::loader::detail
