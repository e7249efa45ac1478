#include "open_dataset.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string_view>

#include "loom/codec/error.h"
#include "loom/loader/pack.h"
#include "loom/loader/shards.h"

namespace loom::cli {
namespace fs = std::filesystem;
namespace {

bool ends_with_ascii_nocase(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         std::equal(suffix.begin(), suffix.end(), s.end() - static_cast<std::ptrdiff_t>(suffix.size()),
                    [](char a, char b) { return a == std::tolower(static_cast<unsigned char>(b)); });
}

bool is_folder(const std::string& source) {
  std::error_code ec;
  return fs::is_directory(source, ec);
}

}  // namespace

bool names_manifest(const std::string& source) {
  return loader::names_manifest(source);
}

bool names_shards(const std::string& source) {
  const size_t open = source.find('{');
  return ends_with_ascii_nocase(source, ".tar") ||
         (open != std::string::npos && source.find('}', open) != std::string::npos);
}

loader::DatasetPtr open_dataset(const std::string& source) {
  if (is_folder(source)) return loader::FolderDataset::open(source);
  if (names_manifest(source)) return loader::ManifestDataset::open(source);
  if (names_shards(source)) return loader::ShardDataset::open({source});
  throw Error(ErrorCode::kInvalidInput, source,
              "is not a folder, a manifest (.jsonl, .ndjson, .csv) or WebDataset shards (.tar, or a brace pattern "
              "such as train-{000000..000127}.tar)");
}

}  // namespace loom::cli
