// `loom bench loader`, a subcommand of `loom bench`.
#pragma once

#include <functional>

namespace CLI {
class App;
}

namespace loom::cli {

// Adds `loader` under `bench`; the function returned runs it when it was parsed, else returns -1.
std::function<int()> add_bench_loader(CLI::App& bench);

}  // namespace loom::cli
