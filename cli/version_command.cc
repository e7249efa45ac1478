// loom version: what a bug report needs: the version, the SIMD targets this CPU offers loom and the
// CUDA support. (`loom --version` prints the first line only, answered by the launcher without loading
// the media libraries.)
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <string>

#include "commands.h"
#include "loom/accel/cpu_features.h"
#include "loom/accel/cuda.h"
#include "loom/version.h"

namespace loom::cli {
namespace {

std::string version_report() {
  std::string simd;
  for (const std::string& t : accel::simd_targets()) simd += (simd.empty() ? "" : " ") + t;
  const std::string cuda =
      accel::built_with_cuda() ? fmt::format("{} device(s)", accel::cuda_device_count()) : std::string("not built");
  return fmt::format("loom {}\nSIMD targets: {}\nCUDA: {}\n", LOOM_VERSION_STRING, simd, cuda);
}

}  // namespace

Command add_version_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("version", "Print the version, the SIMD targets of this CPU and CUDA support");
  return {cmd, [] {
            std::cout << version_report();
            return 0;
          }};
}

}  // namespace loom::cli
