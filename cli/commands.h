// The `loom` subcommands. Adding one: write `<name>_command.cc` with its add function, declare it
// here and list it in kCommands.
#pragma once

#include <functional>

namespace CLI {
class App;
}

namespace loom::cli {

// A registered subcommand: its parser, and what runs it after a successful parse. `run` returns the
// process exit status: 0 when every input succeeded, 1 when any failed.
struct Command {
  CLI::App* cmd = nullptr;
  std::function<int()> run;
};

// Adds one subcommand, with its options, to `app`.
using AddCommand = Command (*)(CLI::App& app);

Command add_info_command(CLI::App& app);
Command add_convert_command(CLI::App& app);
Command add_audio_command(CLI::App& app);
Command add_frames_command(CLI::App& app);
Command add_pack_command(CLI::App& app);
Command add_bench_command(CLI::App& app);
Command add_version_command(CLI::App& app);

// Every subcommand, in the order `loom --help` lists them.
inline constexpr AddCommand kCommands[] = {add_info_command,   add_convert_command, add_audio_command,
                                           add_frames_command, add_pack_command,    add_bench_command,
                                           add_version_command};

}  // namespace loom::cli
