#include "dataset_common.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "loom/codec/error.h"

namespace loom::loader::detail {

std::string ascii_lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; });
  return out;
}

std::string member_name(std::string_view filename) {
  const size_t dot = filename.rfind('.');
  return ascii_lower(dot == std::string_view::npos ? filename : filename.substr(dot + 1));
}

void check_index(int64_t index, int64_t size, const std::string& dataset) {
  if (index < 0 || index >= size) {
    throw Error(ErrorCode::kInvalidInput, dataset,
                "record " + std::to_string(index) + " outside 0.." + std::to_string(size - 1));
  }
}

FolderId folder_identity(const std::filesystem::path& folder) {
  struct stat st {};
  if (::stat(folder.c_str(), &st) != 0) {
    throw Error(ErrorCode::kIo, folder.string(), std::string("cannot stat folder: ") + std::strerror(errno));
  }
  return {static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino)};
}

void check_not_ancestor(const std::filesystem::path& folder, FolderId id, const std::vector<FolderId>& ancestors) {
  if (std::find(ancestors.begin(), ancestors.end(), id) != ancestors.end()) {
    throw Error(ErrorCode::kInvalidInput, folder.string(), "symlink loop: the folder is its own ancestor");
  }
}

void Fingerprint::add(std::string_view s) {
  add(static_cast<uint64_t>(s.size()));
  bytes(s.data(), s.size());
}

void Fingerprint::add(uint64_t v) {
  unsigned char le[8];
  for (int i = 0; i < 8; ++i) le[i] = static_cast<unsigned char>(v >> (8 * i));
  bytes(le, sizeof le);
}

void Fingerprint::bytes(const void* data, size_t size) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < size; ++i) {
    hash_ ^= p[i];
    hash_ *= 0x100000001b3ull;
  }
}

}  // namespace loom::loader::detail
