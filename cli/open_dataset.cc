#include "open_dataset.h"

#include <filesystem>

#include "loom/codec/error.h"

namespace loom::cli {

loader::DatasetPtr open_dataset(const std::string& source) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(source, ec)) return loader::FolderDataset::open(source);
  const std::string ext = fs::path(source).extension().string();
  if (ext == ".jsonl" || ext == ".ndjson" || ext == ".csv") return loader::ManifestDataset::open(source);
  throw Error(ErrorCode::kInvalidInput, source, "is not a folder, a manifest (.jsonl, .csv) or tar shards (.tar)");
}

}  // namespace loom::cli
