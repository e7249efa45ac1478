// Seedable random numbers for the random transforms.
//
// Rng is xoshiro256** seeded through splitmix64. Rng(seed, stream) for different streams are
// independent sequences: a loader gives sample i the generator Rng(seed, i), so a sample's random
// choices depend on the seed and its index only, never on thread count or scheduling order.
// The distributions are loom's own (not <random>'s, which differ between standard libraries), so one
// seed gives the same numbers with any compiler.
// Thread safety: a small value type; use one Rng per thread.
#pragma once

#include <cstdint>

#include "loom/codec/api.h"

LOOM_API_BEGIN

namespace loom::transforms {

class Rng {
 public:
  explicit Rng(uint64_t seed = 0, uint64_t stream = 0);

  uint64_t next();                          // 64 uniformly random bits
  double uniform();                         // uniform in [0, 1), 53-bit resolution
  double uniform(double lo, double hi);     // uniform in [lo, hi)
  int64_t integer(int64_t lo, int64_t hi);  // uniform in [lo, hi) (torch.randint); lo when hi <= lo
  bool bernoulli(double p);                 // true with probability p
  double normal();                          // standard normal (Box-Muller, both values used)

  // An independent generator for a sub-task (for example one per image of a batch), derived from
  // this generator's next output and `stream`; advances this generator by one step.
  Rng fork(uint64_t stream);

 private:
  uint64_t s_[4];
  double spare_normal_ = 0.0;
  bool has_spare_normal_ = false;
};

}  // namespace loom::transforms

LOOM_API_END
