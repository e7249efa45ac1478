// The `loom` command line: building the parser and running the chosen command (main.cc is a thin
// wrapper, so that tests and the argument fuzzer can parse without running anything).
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <optional>
#include <vector>

#include "commands.h"

namespace loom::cli {

struct App {
  CLI::App parser{"loom: decode, transform and batch-preprocess media files", "loom"};
  std::vector<Command> commands;  // one per entry of kCommands, in its order

  // After a successful parse: runs the chosen subcommand and returns the exit status.
  int run();
};

// A parser with every subcommand registered.
std::unique_ptr<App> make_app();

// What loom says before parsing `argv` (argc counts argv[0]), or nullopt when the parse should go on:
// with no argument at all, the help on stdout (status 0); when the first argument is neither an option
// nor a command, "loom: 'convrt' is not a loom command; did you mean \"convert\"?" on stderr (status 2).
std::optional<int> answer_before_parsing(App& app, int argc, const char* const* argv);

}  // namespace loom::cli
