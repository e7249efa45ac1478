#include "loom/transforms/random.h"

#include <bit>
#include <cmath>
#include <numbers>

#include "core/splitmix64.h"

namespace loom::transforms {

Rng::Rng(uint64_t seed, uint64_t stream) {
  // Mix the stream into the seed through one splitmix64 round, so (seed, stream) pairs that differ in
  // either part start from unrelated states.
  uint64_t x = seed;
  uint64_t mixed = detail::splitmix64(x) ^ (stream * 0xd1342543de82ef95ull + 0x2545f4914f6cdd1dull);
  for (uint64_t& s : s_) s = detail::splitmix64(mixed);
}

uint64_t Rng::next() {
  const uint64_t result = std::rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = std::rotl(s_[3], 45);
  return result;
}

double Rng::uniform() {
  return static_cast<double>(next() >> 11) * 0x1.0p-53;
}

double Rng::uniform(double lo, double hi) {
  return lo + (hi - lo) * uniform();
}

int64_t Rng::integer(int64_t lo, int64_t hi) {
  if (hi <= lo) return lo;
  // Rejection of the low values that would make `x % range` favour small results: unbiased.
  const uint64_t range = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  const uint64_t threshold = (0 - range) % range;  // 2^64 mod range
  uint64_t x = next();
  while (x < threshold) x = next();
  return static_cast<int64_t>(static_cast<uint64_t>(lo) + x % range);
}

bool Rng::bernoulli(double p) {
  return uniform() < p;
}

double Rng::normal() {
  if (has_spare_normal_) {
    has_spare_normal_ = false;
    return spare_normal_;
  }
  const double u1 = 1.0 - uniform();  // (0, 1]: log is finite
  const double u2 = uniform();
  const double r = std::sqrt(-2.0 * std::log(u1));
  const double theta = 2.0 * std::numbers::pi * u2;
  spare_normal_ = r * std::sin(theta);
  has_spare_normal_ = true;
  return r * std::cos(theta);
}

Rng Rng::fork(uint64_t stream) {
  return Rng(next(), stream);
}

}  // namespace loom::transforms
