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
  // For datasets stored as shards: the number of records of each shard, in index order (shard 0 holds
  // indices 0 .. sizes[0]-1, ...), for Shuffle::kShards. Empty (the default): not sharded.
  virtual std::vector<int64_t> shard_sizes() const { return {}; }
};

using DatasetPtr = std::shared_ptr<const Dataset>;

// ---- folder: torchvision.datasets.ImageFolder ----
struct FolderOptions {
  // Extensions kept (with the dot, case-insensitive), torchvision's IMG_EXTENSIONS by default.
  std::vector<std::string> extensions = {".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff", ".webp"};
  Limits limits;  // for reading each file
};

// The class folders of an ImageFolder root, as torchvision.datasets.folder.find_classes(root) finds
// them: the names of root's entries that are folders (symlinks to folders and hidden folders
// included), sorted by name as byte strings (Python's order for UTF-8 names); a class's index is its
// position. Empty when there is none (find_classes raises FileNotFoundError then; FolderDataset::open
// refuses it). Error(kIo) naming root when it cannot be listed. The one definition of ImageFolder's
// class indices: FolderDataset and `loom pack` both use it.
std::vector<std::string> find_classes(const std::filesystem::path& root);

// root/<class>/**/<file>, listed as torchvision.datasets.ImageFolder(root, extensions) lists it, so
// indices and labels equal ImageFolder's:
// - the classes are find_classes(root); a class's index is its position in classes();
// - class by class, each class folder is walked following symlinked folders (os.walk(followlinks=True)),
//   its folders taken in the order of their paths as strings and each folder's files in the order of
//   their names;
// - a file is kept when its name ends with one of `extensions`, ASCII case-insensitively (a hidden
//   file named "x/.jpg" is kept, as ImageFolder keeps it). Every entry that is not a folder counts as a
//   file, a broken symlink too (reading it then fails).
// Names compare as byte strings, which is Python's order for UTF-8 names: "a-c" < "a.jpg" < "a/b" (not
// std::filesystem::path order, which scan_files uses).
// A record: key = its path below root ('/'-separated, "cat/sub/1.jpg"), source = its path (root / key),
// one member named by its extension (the part of the name after the last '.', lower-cased: "jpg"),
// label = its class index; read() reads the file with ByteSource::from_file(path, options.limits).
// Errors: Error(kIo) naming root when it cannot be listed, or naming a folder below it that cannot be
// read (ImageFolder skips those silently); Error(kInvalidInput) naming root when it holds no class
// folder or a class folder without a kept file (ImageFolder raises FileNotFoundError for both), and
// naming the folder that closes a symlink loop (ImageFolder walks a loop until the system refuses the
// path). fingerprint(): of the classes and of each record's key, file size and label, in order.
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
    std::filesystem::path path;  // root / key
    std::string key;             // relative to root, '/'-separated
    int64_t label;
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
  // of sorted unique names (byte order), as ImageFolder does for folders. Integers are taken as written.
  std::vector<std::string> classes;
  // Where the manifest and its files are read from; local_storage() when null. Paths are joined as
  // strings, so any storage's keys work: "sets/train.jsonl" with "img/1.jpg" reads "sets/img/1.jpg".
  std::shared_ptr<const Storage> storage;
  Limits limits;  // for reading the manifest and each file
};

// One record per row. The format comes from the manifest's extension, case-insensitively: .jsonl or
// .ndjson is JSON Lines (one JSON object per line; blank lines are skipped), .csv is RFC 4180 (a header
// row naming the fields, then one row per record; fields in double quotes may hold commas, line breaks
// and doubled quotes; CRLF or LF line ends; blank lines are skipped); anything else is
// Error(kUnsupported) naming the manifest. A UTF-8 byte order mark at the start is skipped.
// A record: key = path_field as written, source = that path resolved, one member named by the file's
// extension (as the folder dataset names it), label = label_field (JSON: an integer, a class name or
// null; CSV: an integer in decimal, a class name, or empty for none), annotations = every other field
// as one compact JSON object in the order written ("" when there is none): CSV values as strings,
// JSONL values as written (boxes, keypoints, anything).
// Errors: Error(kInvalidInput) naming the manifest, with the line (the first line of a CSV row) in the
// message, for a malformed row, a row without path_field or with an empty one, a label of another
// type and an unknown class name; Error(kInvalidInput) for a manifest without records; the storage's
// Error(kIo) or Error(kLimitExceeded) when the manifest cannot be read. The files themselves are not
// opened until read(). fingerprint(): of the classes and of each record's resolved path, label and
// annotations, in order (the files are not read, so not their sizes).
class ManifestDataset final : public Dataset {
 public:
  static std::shared_ptr<const ManifestDataset> open(const std::filesystem::path& manifest,
                                                     const ManifestOptions& options = {});

  int64_t size() const override;
  Record read(int64_t index) const override;
  std::string name(int64_t index) const override;
  uint64_t fingerprint() const override;

  // Record `index` as read() gives it but without its member: key, source, label and annotations,
  // from the manifest alone (the file is not opened). Error(kInvalidInput) for an index out of range.
  Record describe(int64_t index) const;

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
