// The dataset a CLI argument names: a folder (ImageFolder), a manifest (.jsonl, .ndjson, .csv), or
// WebDataset tar shards (files or brace patterns ending in .tar).
#pragma once

#include <string>

#include "loom/loader/dataset.h"

namespace loom::cli {

// Throws loom::Error naming `source` when it is none of these or cannot be opened.
loader::DatasetPtr open_dataset(const std::string& source);

}  // namespace loom::cli
