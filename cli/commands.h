// The `loom` subcommands. Each registers its options on a CLI11 app and returns the process exit
// status when run: 0 when every input succeeded, 1 when any failed.
#pragma once

#include <functional>

namespace CLI {
class App;
}

namespace loom::cli {

// Adds `info` to `app`; the returned function runs it after parsing.
std::function<int()> add_info_command(CLI::App& app);
// Adds `convert` to `app`; the returned function runs it after parsing.
std::function<int()> add_convert_command(CLI::App& app);
// Adds `audio` to `app`; the returned function runs it after parsing.
std::function<int()> add_audio_command(CLI::App& app);
// Adds `frames` to `app`; the returned function runs it after parsing.
std::function<int()> add_frames_command(CLI::App& app);
// Adds `bench` to `app`; the returned function runs it after parsing (0, or 1 when the op failed).
std::function<int()> add_bench_command(CLI::App& app);

}  // namespace loom::cli
