// Listing the files of a dataset given as files and folders.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "loom/codec/api.h"

LOOM_API_BEGIN

namespace loom::loader {

struct FileEntry {
  std::filesystem::path path;      // as found (the input joined with the path below it)
  std::filesystem::path relative;  // below the folder given; just the file name for a file given directly
};

struct ScanOptions {
  // In folders, keep files whose extension (with the dot: ".jpg"; case-insensitive) is listed;
  // empty keeps every file. A file named directly is always kept.
  std::vector<std::string> extensions;
  bool include_hidden = false;   // names starting with '.' (files and folders)
  bool follow_symlinks = false;  // descend into symlinked folders (a symlinked file is always listed)
};

// Lists `input`: itself when it is a file, else every matching file below it, recursively, sorted by
// relative path compared folder by folder (std::filesystem::path order: "a/c.jpg" < "a-b.jpg"), so
// that runs are reproducible. Throws loom::Error(kIo) naming `input` when
// it does not exist or a folder below it cannot be read; with follow_symlinks, Error(kInvalidInput)
// naming the symlink that closes a loop (a folder that is its own ancestor).
std::vector<FileEntry> scan_files(const std::filesystem::path& input, const ScanOptions& options = {});

// Extensions of the image formats loom recognises (".jpg", ".jpeg", ".png", ".webp", ...), for
// ScanOptions::extensions; loom decides the format from the bytes, never from this list.
const std::vector<std::string>& image_extensions();

}  // namespace loom::loader

LOOM_API_END
