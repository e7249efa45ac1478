#include "app.h"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "commands.h"
#include "loom/version.h"
#include "suggest.h"

namespace loom::cli {

std::unique_ptr<App> make_app() {
  auto app = std::make_unique<App>();
  app->parser.set_version_flag("--version", "loom " LOOM_VERSION_STRING,
                               "Print the version and exit (`loom version` adds the SIMD targets and CUDA)");
  app->parser.require_subcommand(1);
  for (const AddCommand add : kCommands) app->commands.push_back(add(app->parser));
  return app;
}

std::optional<int> answer_before_parsing(App& app, int argc, const char* const* argv) {
  if (argc <= 1) {
    std::cout << app.parser.help();
    return 0;
  }
  const std::string_view word = argv[1];
  if (word.empty() || word.front() == '-') return std::nullopt;
  std::vector<std::string_view> names;
  for (const Command& c : app.commands) names.push_back(c.cmd->get_name());
  if (std::find(names.begin(), names.end(), word) != names.end()) return std::nullopt;
  std::cerr << fmt::format("loom: '{}' is not a loom command{}\nRun 'loom --help' for the commands.\n", word,
                           did_you_mean(word, names));
  return 2;
}

int App::run() {
  for (const Command& c : commands) {
    if (parser.got_subcommand(c.cmd)) return c.run();
  }
  return 2;  // no subcommand: the parse cannot have succeeded (require_subcommand)
}

}  // namespace loom::cli
