#include "messages.h"

#include <fmt/format.h>

#include <system_error>

namespace loom::cli {
namespace fs = std::filesystem;

Error missing_input(const fs::path& input) {
  return Error(ErrorCode::kIo, input.string(), "no such file or folder");
}

Error existing_output(const fs::path& output) {
  return Error(ErrorCode::kIo, output.string(), "already exists (--overwrite replaces it, --skip-existing keeps it)");
}

Error not_media_file(const fs::path& input, std::string_view wanted, Format found) {
  std::string what;
  if (found != Format::kUnknown) {
    what = fmt::format("{} data", format_name(found));
  } else {
    std::error_code ec;
    what = fs::file_size(input, ec) == 0 && !ec ? "empty file" : "unknown format";
  }
  const bool vowel = !wanted.empty() && std::string_view("aeiou").find(wanted.front()) != std::string_view::npos;
  return Error(ErrorCode::kInvalidInput, input.string(),
               fmt::format("not {} {} file ({})", vowel ? "an" : "a", wanted, what));
}

}  // namespace loom::cli
