// Map-style datasets: a fixed number of records, each read by index.
//
// A Record is one sample as stored: its key, the file or shard it came from, and its members (named
// undecoded byte ranges: the image, a .cls label, a .json annotation, an audio track, ...). Decoding and
// transforming happen in the loader (loader.h), which picks members by name.
//
// Member names follow WebDataset: the part of the file name after the key, lower-cased, without the
// leading dot ("jpg", "cls", "seg.png"). Folder and manifest datasets name a file's member by its
// extension the same way, so one loader configuration reads all three kinds.
//
// Thread safety: size(), read(), name() and fingerprint() may be called from any number of threads at
// once. Errors: read() throws loom::Error naming the record's file (and key, for shards).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "loom/codec/api.h"
#include "loom/codec/byte_source.h"
#include "loom/codec/limits.h"
#include "loom/loader/storage.h"

LOOM_API_BEGIN

namespace loom::loader {

struct Member {
  std::string name;  // "jpg", "cls", "json", "seg.png", ...
  ByteSource bytes;  // its bytes, named "<file>" or "<shard>:<member path>" for messages
};

struct Record {
  std::string key;     // the sample's name: a relative path (folder), the manifest's path, the tar key
  std::string source;  // the file or shard it came from
  std::vector<Member> members;
  std::optional<int64_t> label;  // the class index (folder), the manifest's label, a shard's .cls
  std::string annotations;       // a JSON object (manifest's other fields, a shard's .json); "" if none

  // The first member whose name is in `names`, in the order of `names`; nullptr when none is.
  const Member* find(std::span<const std::string> names) const;
  const Member* find(std::string_view name) const;
};

class Dataset {
 public:
  virtual ~Dataset() = default;
  virtual int64_t size() const = 0;
  // Record `index` (0 <= index < size(), else Error(kInvalidInput)).
  virtual Record read(int64_t index) const = 0;
  // "<source>:<key>" (or the file alone) for reports, without reading the record.
  virtual std::string name(int64_t index) const = 0;
  // Identifies the listing (names, sizes and order of the records): two datasets with the same
  // fingerprint give the same records at the same indices. Resumable state carries it.
  virtual uint64_t fingerprint() const = 0;
};

using DatasetPtr = std::shared_ptr<const Dataset>;

// ---- folder: torchvision.datasets.ImageFolder ----
struct FolderOptions {
  // Extensions kept (with the dot, case-insensitive), torchvision's IMG_EXTENSIONS by default.
  std::vector<std::string> extensions = {".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff", ".webp"};
  Limits limits;  // for reading each file
};

// root/<class>/**/<file>: the classes are root's sub-folders sorted by name (class index = position), and
// each class's files are listed as torchvision does (os.walk with followlinks, folders then files sorted
// as strings), so indices and labels equal ImageFolder(root)'s. Error(kIo) naming root when it cannot be
// listed, Error(kInvalidInput) when it holds no class folder or no file with a listed extension.
class FolderDataset final : public Dataset {
 public:
  static std::shared_ptr<const FolderDataset> open(const std::filesystem::path& root,
                                                   const FolderOptions& options = {});

  int64_t size() const override;
  Record read(int64_t index) const override;
  std::string name(int64_t index) const override;
  uint64_t fingerprint() const override;

  const std::vector<std::string>& classes() const { return classes_; }
  const std::filesystem::path& path(int64_t index) const;

 private:
  struct Entry {
    std::filesystem::path path;
    int64_t label;
    uint64_t bytes;
  };
  FolderDataset() = default;
  std::filesystem::path root_;
  std::vector<std::string> classes_;
  std::vector<Entry> entries_;
  FolderOptions options_;
  uint64_t fingerprint_ = 0;
};

// ---- manifest: JSON Lines or CSV ----
struct ManifestOptions {
  std::string path_field = "path";    // the file of each row, relative to the manifest's folder unless absolute
  std::string label_field = "label";  // optional per row: an integer, or a class name (see classes)
  // Class names in index order; when given, a label that is a name maps to its position (an unknown
  // name is Error(kInvalidInput) naming the manifest and line). Empty: names map to indices in order
  // of sorted unique names, as ImageFolder does for folders.
  std::vector<std::string> classes;
  std::shared_ptr<const Storage> storage;  // where the files are read from; local_storage() when null
  Limits limits;
};

// One record per line (.jsonl: one JSON object per line; .csv: a header row, RFC 4180 quoting). The
// record's member is the file named by path_field (member name: its extension), its label the
// label_field, and its annotations every other field as one JSON object (CSV values as strings, JSONL
// values as written: boxes, keypoints, anything). Error(kInvalidInput) naming the manifest and line
// for a malformed row or one without path_field; Error(kIo) when the manifest cannot be read. The files
// themselves are not opened until read().
class ManifestDataset final : public Dataset {
 public:
  static std::shared_ptr<const ManifestDataset> open(const std::filesystem::path& manifest,
                                                     const ManifestOptions& options = {});

  int64_t size() const override;
  Record read(int64_t index) const override;
  std::string name(int64_t index) const override;
  uint64_t fingerprint() const override;

  const std::vector<std::string>& classes() const { return classes_; }

 private:
  struct Row {
    std::string path;  // resolved
    std::string key;   // as written in the manifest
    std::optional<int64_t> label;
    std::string annotations;
  };
  ManifestDataset() = default;
  std::string manifest_;
  std::vector<Row> rows_;
  std::vector<std::string> classes_;
  ManifestOptions options_;
  uint64_t fingerprint_ = 0;
};

}  // namespace loom::loader

LOOM_API_END
