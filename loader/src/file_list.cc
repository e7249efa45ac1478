#include "loom/loader/file_list.h"

#include <algorithm>
#include <cctype>
#include <system_error>

#include "dataset_common.h"
#include "loom/codec/error.h"

namespace loom::loader {
namespace fs = std::filesystem;
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

bool hidden(const fs::path& name) {
  const std::string s = name.filename().string();
  return !s.empty() && s[0] == '.';
}

}  // namespace

const std::vector<std::string>& image_extensions() {
  static const std::vector<std::string> kExtensions = {".jpg", ".jpeg", ".jpe",  ".jfif", ".png",  ".webp", ".gif",
                                                       ".bmp", ".tif",  ".tiff", ".avif", ".heic", ".heif", ".jp2",
                                                       ".j2k", ".qoi",  ".ppm",  ".pgm",  ".pbm",  ".pnm",  ".mpo"};
  return kExtensions;
}

std::vector<FileEntry> scan_files(const fs::path& input, const ScanOptions& opt) {
  std::error_code ec;
  const fs::file_status st = fs::status(input, ec);
  if (ec || !fs::exists(st)) throw Error(ErrorCode::kIo, input.string(), "no such file or folder");
  if (!fs::is_directory(st)) return {FileEntry{input, input.filename()}};

  std::vector<FileEntry> files;
  auto options = fs::directory_options::none;
  if (opt.follow_symlinks) options |= fs::directory_options::follow_directory_symlink;
  fs::recursive_directory_iterator it(input, options, ec), end;
  if (ec) throw Error(ErrorCode::kIo, input.string(), "cannot read folder: " + ec.message());
  // Following symlinks, the folders above the entry (input first), to refuse a loop.
  std::vector<detail::FolderId> ancestors;
  if (opt.follow_symlinks) ancestors.push_back(detail::folder_identity(input));
  for (; it != end; it.increment(ec)) {
    if (ec) throw Error(ErrorCode::kIo, input.string(), "cannot read folder: " + ec.message());
    const fs::directory_entry& entry = *it;
    if (!opt.include_hidden && hidden(entry.path())) {
      if (entry.is_directory(ec)) it.disable_recursion_pending();
      continue;
    }
    if (opt.follow_symlinks && entry.is_directory(ec)) {  // the iterator descends into it next
      ancestors.resize(static_cast<size_t>(it.depth()) + 1);
      const detail::FolderId id = detail::folder_identity(entry.path());
      detail::check_not_ancestor(entry.path(), id, ancestors);
      ancestors.push_back(id);
      continue;
    }
    if (!entry.is_regular_file(ec)) continue;
    if (!opt.extensions.empty()) {
      const std::string ext = lower(entry.path().extension().string());
      const bool listed = std::any_of(opt.extensions.begin(), opt.extensions.end(),
                                      [&](const std::string& e) { return lower(e) == ext; });
      if (!listed) continue;
    }
    files.push_back({entry.path(), entry.path().lexically_relative(input)});
  }
  std::sort(files.begin(), files.end(), [](const FileEntry& a, const FileEntry& b) { return a.relative < b.relative; });
  return files;
}

}  // namespace loom::loader
