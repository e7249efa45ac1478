// Output format names and their aliases, one table per command family: what --format takes ("jpeg" is
// "jpg", "aif" is "aiff") and which extension of an -o file names which format. Thread safety: pure.
#pragma once

#include <CLI/CLI.hpp>

#include <cctype>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace loom::cli {

// One accepted name (lower case, no dot; also a file extension) and the format it means.
struct FormatName {
  const char* name;
  const char* format;
};

// `convert` and `pack` write JPEG and PNG.
inline constexpr FormatName kImageFormats[] = {
    {"jpg", "jpg"}, {"jpeg", "jpg"}, {"jpe", "jpg"}, {"png", "png"}, {"webp", "webp"}};

// `audio` writes these.
inline constexpr FormatName kAudioFormats[] = {
    {"wav", "wav"}, {"wave", "wav"}, {"flac", "flac"},  {"aiff", "aiff"}, {"aif", "aiff"}, {"mp3", "mp3"},
    {"ogg", "ogg"}, {"oga", "ogg"},  {"vorbis", "ogg"}, {"opus", "opus"}, {"m4a", "m4a"},
};

// The format `name` (any case, with or without a leading dot) means; empty when the table has none.
inline std::string format_named(std::span<const FormatName> table, std::string name) {
  if (!name.empty() && name.front() == '.') name.erase(0, 1);
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const FormatName& f : table) {
    if (name == f.name) return f.format;
  }
  return {};
}

// Every name of the table as a file extension (".jpg", ".jpeg", ...), for output_names_file (batch.h).
inline std::vector<std::string> format_extensions(std::span<const FormatName> table) {
  std::vector<std::string> out;
  for (const FormatName& f : table) out.push_back(std::string(".") + f.name);
  return out;
}

// The --format check: maps each name of the table (any case) to its format, refuses anything else.
inline CLI::CheckedTransformer format_check(std::span<const FormatName> table) {
  std::map<std::string, std::string> names;
  for (const FormatName& f : table) names.emplace(f.name, f.format);
  return CLI::CheckedTransformer(names, CLI::ignore_case);
}

}  // namespace loom::cli
