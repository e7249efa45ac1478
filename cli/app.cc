#include "app.h"

#include <fmt/format.h>

#include <string>

#include "commands.h"
#include "loom/accel/cpu_features.h"
#include "loom/accel/cuda.h"
#include "loom_version.h"

namespace loom::cli {
namespace {

std::string version_text() {
  std::string simd;
  for (const std::string& t : accel::simd_targets()) simd += (simd.empty() ? "" : " ") + t;
  const std::string cuda =
      accel::built_with_cuda() ? fmt::format("{} device(s)", accel::cuda_device_count()) : std::string("not built");
  return fmt::format("loom {}\nSIMD targets: {}\nCUDA: {}", LOOM_VERSION, simd, cuda);
}

}  // namespace

std::unique_ptr<App> make_app() {
  auto app = std::make_unique<App>();
  app->parser.set_version_flag("--version", [] { return version_text(); });
  app->parser.require_subcommand(1);
  for (const AddCommand add : kCommands) app->commands.push_back(add(app->parser));
  return app;
}

int App::run() {
  for (const Command& c : commands) {
    if (parser.got_subcommand(c.cmd)) return c.run();
  }
  return 2;  // no subcommand: the parse cannot have succeeded (require_subcommand)
}

}  // namespace loom::cli
