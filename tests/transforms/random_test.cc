#include "loom/transforms/random.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <vector>

namespace loom::transforms {
namespace {

TEST(Rng, SameSeedAndStreamSameSequence) {
  Rng a(42, 7), b(42, 7);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(a.next(), b.next());
}

TEST(Rng, StreamsAndSeedsDiffer) {
  Rng a(42, 0), b(42, 1), c(43, 0);
  int equal_ab = 0, equal_ac = 0;
  for (int i = 0; i < 1000; ++i) {
    const uint64_t x = a.next();
    equal_ab += x == b.next();
    equal_ac += x == c.next();
  }
  EXPECT_EQ(equal_ab, 0);
  EXPECT_EQ(equal_ac, 0);
}

TEST(Rng, UniformMomentsAndRange) {
  Rng rng(1);
  const int n = 200000;
  double sum = 0, sum2 = 0;
  for (int i = 0; i < n; ++i) {
    const double u = rng.uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
    sum2 += u * u;
  }
  EXPECT_NEAR(sum / n, 0.5, 0.005);
  EXPECT_NEAR(sum2 / n - (sum / n) * (sum / n), 1.0 / 12, 0.002);
}

TEST(Rng, IntegerIsHalfOpenAndCoversTheRange) {
  Rng rng(2);
  std::vector<int> counts(7, 0);
  for (int i = 0; i < 70000; ++i) {
    const int64_t v = rng.integer(-3, 4);
    ASSERT_GE(v, -3);
    ASSERT_LT(v, 4);
    ++counts[v + 3];
  }
  for (int c : counts) EXPECT_NEAR(c, 10000, 500);
  EXPECT_EQ(rng.integer(5, 5), 5);
}

TEST(Rng, NormalMoments) {
  Rng rng(3);
  const int n = 200000;
  double sum = 0, sum2 = 0, sum4 = 0;
  for (int i = 0; i < n; ++i) {
    const double x = rng.normal();
    sum += x;
    sum2 += x * x;
    sum4 += x * x * x * x;
  }
  EXPECT_NEAR(sum / n, 0.0, 0.01);
  EXPECT_NEAR(sum2 / n, 1.0, 0.02);
  EXPECT_NEAR(sum4 / n, 3.0, 0.1);  // kurtosis of a Gaussian
}

TEST(Rng, BernoulliFrequency) {
  Rng rng(4);
  int hits = 0;
  for (int i = 0; i < 100000; ++i) hits += rng.bernoulli(0.3);
  EXPECT_NEAR(hits, 30000, 600);
}

TEST(Rng, ForkIsDeterministicAndIndependent) {
  Rng a(5), b(5);
  Rng fa = a.fork(1), fb = b.fork(1);
  EXPECT_EQ(fa.next(), fb.next());
  Rng c(5);
  Rng f1 = c.fork(1);
  Rng f2 = c.fork(1);  // the parent advanced: a different child
  EXPECT_NE(f1.next(), f2.next());
}

}  // namespace
}  // namespace loom::transforms
