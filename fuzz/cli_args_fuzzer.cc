// libFuzzer target: the `loom` argument parser. The input is split at NUL bytes and newlines into
// arguments, parsed with every subcommand registered, and never run.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "app.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> args;
  std::string current;
  for (size_t i = 0; i < size && args.size() < 64; ++i) {
    const char c = static_cast<char>(data[i]);
    if (c == '\0' || c == '\n') {
      args.push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  if (!current.empty()) args.push_back(current);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes arguments last-first
  const auto app = loom::cli::make_app();
  try {
    app->parser.parse(reversed);
  } catch (const CLI::Error&) {
  }
  return 0;
}
