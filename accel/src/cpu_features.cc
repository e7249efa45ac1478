#include "loom/accel/cpu_features.h"

#include <hwy/highway.h>
#include <hwy/targets.h>

namespace loom::accel {

std::vector<std::string> simd_targets() {
  std::vector<std::string> names;
  // SupportedAndGeneratedTargets() lists best first; HWY_TARGETS here are the ones loom compiles.
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) names.emplace_back(hwy::TargetName(target));
  return names;
}

std::string best_simd_target() {
  const std::vector<std::string> names = simd_targets();
  return names.empty() ? std::string(hwy::TargetName(HWY_STATIC_TARGET)) : names.front();
}

}  // namespace loom::accel
