// The dataset a CLI argument names: a folder (ImageFolder), a manifest (.jsonl, .ndjson, .csv), or
// WebDataset tar shards (a file ending in .tar, or a brace pattern such as train-{000000..000127}.tar).
#pragma once

#include <string>

#include "loom/loader/dataset.h"

namespace loom::cli {

// Whether `source` names a manifest: not a folder, and its extension is .jsonl, .ndjson or .csv
// (ASCII case-insensitively, as loader::ManifestDataset reads them).
bool names_manifest(const std::string& source);

// Whether `source` names WebDataset shards: it ends in .tar (ASCII case-insensitively) or holds a
// brace group ('{' and a later '}': "train-{000000..000127}.tar", "{train,val}.tar").
bool names_shards(const std::string& source);

// In this order: a folder is a loader::FolderDataset, a manifest a loader::ManifestDataset, shards a
// loader::ShardDataset over `source` (brace-expanded; indexes loaded or built beside the shards).
// Throws loom::Error naming `source` when it is none of these or cannot be opened.
loader::DatasetPtr open_dataset(const std::string& source);

}  // namespace loom::cli
