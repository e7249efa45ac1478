// The `loom` command line: building the parser and running the chosen command (main.cc is a thin
// wrapper, so that tests and the argument fuzzer can parse without running anything).
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <memory>

namespace loom::cli {

struct App {
  CLI::App parser{"loom: decode, transform and batch-preprocess media files", "loom"};
  std::function<int()> run_info, run_convert, run_audio, run_frames, run_bench;

  // After a successful parse: runs the chosen subcommand and returns the exit status.
  int run();
};

// A parser with every subcommand registered.
std::unique_ptr<App> make_app();

}  // namespace loom::cli
