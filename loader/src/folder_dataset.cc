#include <algorithm>
#include <system_error>
#include <utility>

#include "dataset_common.h"
#include "loom/codec/error.h"
#include "loom/loader/dataset.h"

namespace loom::loader {
namespace fs = std::filesystem;
namespace {

struct Listing {
  std::vector<std::string> folders;  // names of the entries that are folders (symlinks followed)
  std::vector<std::string> files;    // names of every other entry
};

// One folder's entries, classified as os.scandir's DirEntry.is_dir() does (symlinks followed; an
// entry that cannot be stat'ed is not a folder). Error(kIo) naming `folder` when it cannot be read.
Listing list_folder(const fs::path& folder) {
  Listing out;
  std::error_code ec;
  fs::directory_iterator it(folder, ec);
  const auto fail = [&] { throw Error(ErrorCode::kIo, folder.string(), "cannot read folder: " + ec.message()); };
  if (ec) fail();
  for (const fs::directory_iterator end; it != end; it.increment(ec)) {
    if (ec) fail();
    std::error_code stat_ec;  // is_directory is false when the entry cannot be stat'ed
    std::string name = it->path().filename().string();
    (it->is_directory(stat_ec) ? out.folders : out.files).push_back(std::move(name));
  }
  if (ec) fail();
  return out;
}

struct Walked {
  std::string sort_key;  // the folder's path as os.walk yields it, less the class folder's (common) prefix
  std::string relative;  // below the class folder, "" for itself
  std::vector<std::string> files;
};

// os.walk(folder, followlinks=True), depth first, each folder once per path that reaches it.
void walk(const fs::path& folder, const std::string& relative, std::vector<detail::FolderId>& ancestors,
          std::vector<Walked>& out) {
  const detail::FolderId id = detail::folder_identity(folder);
  detail::check_not_ancestor(folder, id, ancestors);
  Listing listing = list_folder(folder);
  out.push_back({relative.empty() ? "" : "/" + relative, relative, std::move(listing.files)});
  ancestors.push_back(id);
  for (const std::string& sub : listing.folders) {
    walk(folder / sub, relative.empty() ? sub : relative + "/" + sub, ancestors, out);
  }
  ancestors.pop_back();
}

bool kept(const std::string& name, const std::vector<std::string>& extensions) {
  const std::string lower = detail::ascii_lower(name);
  return std::any_of(extensions.begin(), extensions.end(), [&](const std::string& e) { return lower.ends_with(e); });
}

uint64_t size_or_max(const fs::path& file) {
  std::error_code ec;
  const uintmax_t size = fs::file_size(file, ec);
  return ec ? UINT64_MAX : static_cast<uint64_t>(size);
}

}  // namespace

std::vector<std::string> find_classes(const fs::path& root) {
  std::vector<std::string> classes = list_folder(root).folders;
  std::sort(classes.begin(), classes.end());
  return classes;
}

std::shared_ptr<const FolderDataset> FolderDataset::open(const fs::path& root, const FolderOptions& options) {
  std::shared_ptr<FolderDataset> dataset(new FolderDataset());
  dataset->root_ = root;
  dataset->options_ = options;
  const std::string root_name = root.string();

  std::vector<std::string> extensions;
  for (const std::string& e : options.extensions) extensions.push_back(detail::ascii_lower(e));

  dataset->classes_ = find_classes(root);
  if (dataset->classes_.empty()) throw Error(ErrorCode::kInvalidInput, root_name, "holds no class folder");

  detail::Fingerprint fingerprint;
  std::vector<std::string> empty_classes;
  for (size_t label = 0; label < dataset->classes_.size(); ++label) {
    const std::string& name = dataset->classes_[label];
    fingerprint.add(name);
    std::vector<Walked> folders;
    std::vector<detail::FolderId> ancestors;
    walk(root / name, "", ancestors, folders);
    std::sort(folders.begin(), folders.end(), [](const Walked& a, const Walked& b) { return a.sort_key < b.sort_key; });
    const size_t before = dataset->entries_.size();
    for (Walked& folder : folders) {
      std::sort(folder.files.begin(), folder.files.end());
      for (const std::string& file : folder.files) {
        if (!kept(file, extensions)) continue;
        std::string key = name + "/" + (folder.relative.empty() ? "" : folder.relative + "/") + file;
        fs::path path = root / key;
        fingerprint.add(key);
        fingerprint.add(size_or_max(path));
        fingerprint.add(static_cast<uint64_t>(label));
        dataset->entries_.push_back({std::move(path), std::move(key), static_cast<int64_t>(label)});
      }
    }
    if (dataset->entries_.size() == before) empty_classes.push_back(name);
  }
  if (!empty_classes.empty()) {
    std::string list, wanted;
    for (const std::string& c : empty_classes) list += (list.empty() ? "" : ", ") + c;
    for (const std::string& e : options.extensions) wanted += (wanted.empty() ? "" : " ") + e;
    throw Error(ErrorCode::kInvalidInput, root_name,
                "no file with a listed extension (" + wanted + ") in the class folders " + list);
  }
  dataset->fingerprint_ = fingerprint.value();
  return dataset;
}

int64_t FolderDataset::size() const {
  return static_cast<int64_t>(entries_.size());
}

const fs::path& FolderDataset::path(int64_t index) const {
  detail::check_index(index, size(), root_.string());
  return entries_[static_cast<size_t>(index)].path;
}

Record FolderDataset::read(int64_t index) const {
  detail::check_index(index, size(), root_.string());
  const Entry& entry = entries_[static_cast<size_t>(index)];
  Record record;
  record.key = entry.key;
  record.source = entry.path.string();
  record.members.push_back(
      {detail::member_name(entry.path.filename().string()), ByteSource::from_file(entry.path, options_.limits)});
  record.label = entry.label;
  return record;
}

std::string FolderDataset::name(int64_t index) const {
  return path(index).string();
}

uint64_t FolderDataset::fingerprint() const {
  return fingerprint_;
}

}  // namespace loom::loader
