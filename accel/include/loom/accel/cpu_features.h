// What the CPU offers loom's SIMD kernels, as Highway sees it (dispatch is by capability, never by
// CPU name).
#pragma once

#include <string>
#include <vector>

#include "loom/codec/api.h"

LOOM_API_BEGIN

namespace loom::accel {

// Highway targets that are both compiled into loom and supported by this CPU, best first
// (e.g. {"AVX3", "AVX2", "SSE4", "EMU128"} on an AVX-512 machine; "AVX3" is AVX-512).
std::vector<std::string> simd_targets();

// The target Highway's dynamic dispatch picks on this CPU: simd_targets().front().
std::string best_simd_target();

}  // namespace loom::accel

LOOM_API_END
