// CPU feature report: Highway targets compiled into loom and supported here, best first.
#include "loom/accel/cpu_features.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace loom::accel {
namespace {

// Highway's x86 target names from best to worst (hwy/targets.h, Highway 1.0).
const std::vector<std::string> kX86Order = {"AVX3_SPR", "AVX3_ZEN4", "AVX3_DL", "AVX3",   "AVX2",
                                            "SSE4",     "SSSE3",     "SSE2",    "EMU128", "SCALAR"};

// The flags line of /proc/cpuinfo (empty off Linux/x86).
std::set<std::string> cpu_flags() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("flags", 0) == 0) {
      std::istringstream words(line.substr(line.find(':') + 1));
      std::set<std::string> flags;
      for (std::string w; words >> w;) flags.insert(w);
      return flags;
    }
  }
  return {};
}

TEST(CpuFeaturesTest, TargetsAreNonEmptyAndUnique) {
  const std::vector<std::string> targets = simd_targets();
  ASSERT_FALSE(targets.empty());
  const std::set<std::string> unique(targets.begin(), targets.end());
  EXPECT_EQ(unique.size(), targets.size());
  for (const std::string& t : targets) EXPECT_FALSE(t.empty());
}

TEST(CpuFeaturesTest, IncludesAPortableFallbackLast) {
  const std::vector<std::string> targets = simd_targets();
  ASSERT_FALSE(targets.empty());
  const std::string& last = targets.back();
  EXPECT_TRUE(last == "EMU128" || last == "SCALAR") << "last target is " << last;
}

TEST(CpuFeaturesTest, BestIsTheFirstTarget) {
  const std::vector<std::string> targets = simd_targets();
  ASSERT_FALSE(targets.empty());
  EXPECT_EQ(best_simd_target(), targets.front());
}

TEST(CpuFeaturesTest, StableAcrossCalls) {
  EXPECT_EQ(simd_targets(), simd_targets());
}

TEST(CpuFeaturesTest, X86TargetsAreOrderedBestFirst) {
#if defined(__x86_64__) || defined(__i386__)
  const std::vector<std::string> targets = simd_targets();
  int previous = -1;
  for (const std::string& t : targets) {
    const auto it = std::find(kX86Order.begin(), kX86Order.end(), t);
    ASSERT_NE(it, kX86Order.end()) << "unexpected x86 target name " << t;
    const int rank = static_cast<int>(it - kX86Order.begin());
    EXPECT_GT(rank, previous) << t << " listed after a worse target";
    previous = rank;
  }
#else
  GTEST_SKIP() << "x86 only";
#endif
}

// Every listed target must be one this CPU can run (checked against the kernel's flags, which Highway
// does not read), and a CPU with AVX2 (+FMA, BMI2, F16C) must not be left on SSE4.
TEST(CpuFeaturesTest, X86TargetsAgreeWithCpuFlags) {
#if defined(__x86_64__)
  const std::set<std::string> flags = cpu_flags();
  if (flags.empty()) GTEST_SKIP() << "no /proc/cpuinfo flags";
  const std::vector<std::string> targets = simd_targets();
  auto listed = [&](const std::string& t) { return std::find(targets.begin(), targets.end(), t) != targets.end(); };
  auto has = [&](std::initializer_list<const char*> need) {
    return std::all_of(need.begin(), need.end(), [&](const char* f) { return flags.count(f) > 0; });
  };
  const bool avx2 = has({"avx2", "fma", "bmi2", "f16c"});
  const bool avx3 = avx2 && has({"avx512f", "avx512vl", "avx512dq", "avx512bw"});
  if (listed("AVX2")) {
    EXPECT_TRUE(avx2) << "AVX2 listed on a CPU without it";
  }
  if (listed("AVX3")) {
    EXPECT_TRUE(avx3) << "AVX3 listed on a CPU without AVX-512";
  }
  if (listed("SSE4")) {
    EXPECT_TRUE(has({"sse4_1", "sse4_2", "ssse3"}));
  }
  // Highway's default build compiles AVX2 for x86-64; the CPU's best must be offered.
  if (avx2) {
    EXPECT_TRUE(listed("AVX2") || listed("AVX3") || listed("AVX3_DL") || listed("AVX3_ZEN4"));
  }
#else
  GTEST_SKIP() << "x86-64 only";
#endif
}

}  // namespace
}  // namespace loom::accel
