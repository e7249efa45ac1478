// loom: batch preprocessing and inspection of media files.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <string>

#include "commands.h"
#include "loom/accel/cpu_features.h"
#include "loom/accel/cuda.h"
#include "loom_version.h"

namespace {

std::string version_text() {
  std::string simd;
  for (const std::string& t : loom::accel::simd_targets()) simd += (simd.empty() ? "" : " ") + t;
  const std::string cuda = loom::accel::built_with_cuda()
                               ? fmt::format("{} device(s)", loom::accel::cuda_device_count())
                               : std::string("not built");
  return fmt::format("loom {}\nSIMD targets: {}\nCUDA: {}", LOOM_VERSION, simd, cuda);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"loom: decode, transform and batch-preprocess media files", "loom"};
  app.set_version_flag("--version", version_text());
  app.require_subcommand(1);
  auto run_info = loom::cli::add_info_command(app);
  auto run_convert = loom::cli::add_convert_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;  // 2: bad command line, as most Unix tools
  }
  if (app.got_subcommand("info")) return run_info();
  return run_convert();
}
