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
  app->run_info = add_info_command(app->parser);
  app->run_convert = add_convert_command(app->parser);
  app->run_audio = add_audio_command(app->parser);
  app->run_frames = add_frames_command(app->parser);
  app->run_bench = add_bench_command(app->parser);
  return app;
}

int App::run() {
  if (parser.got_subcommand("info")) return run_info();
  if (parser.got_subcommand("audio")) return run_audio();
  if (parser.got_subcommand("frames")) return run_frames();
  if (parser.got_subcommand("bench")) return run_bench();
  return run_convert();
}

}  // namespace loom::cli
