// What the datasets and the file listing share. Private to the loader.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace loom::loader::detail {

// A file's member name: the part of its name after the last '.', ASCII lower-cased ("IMG.JPG" -> "jpg",
// ".png" -> "png"); the whole name lower-cased when it has no '.'.
std::string member_name(std::string_view filename);

// ASCII lower case (what str.lower() does to ASCII; other bytes are kept).
std::string ascii_lower(std::string_view s);

// Error(kInvalidInput, dataset) unless 0 <= index < size.
void check_index(int64_t index, int64_t size, const std::string& dataset);

// A folder's identity (device and inode, symlinks followed), to find a folder that is its own ancestor.
// Error(kIo) naming `folder` when it cannot be stat'ed.
using FolderId = std::pair<uint64_t, uint64_t>;
FolderId folder_identity(const std::filesystem::path& folder);

// Error(kInvalidInput) naming `folder`, "symlink loop: the folder is its own ancestor", when its
// identity is one of `ancestors` (the folders above it on the path walked).
void check_not_ancestor(const std::filesystem::path& folder, FolderId id, const std::vector<FolderId>& ancestors);

// A 64-bit FNV-1a hash over a sequence of strings and integers, for Dataset::fingerprint(). Each
// string is hashed with its length first, so ("ab", "c") and ("a", "bc") differ.
class Fingerprint {
 public:
  void add(std::string_view s);
  void add(uint64_t v);  // its 8 bytes, little-endian
  uint64_t value() const { return hash_; }

 private:
  void bytes(const void* data, size_t size);
  uint64_t hash_ = 0xcbf29ce484222325ull;
};

}  // namespace loom::loader::detail
