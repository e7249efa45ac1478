// WebDataset tar shards: naming rules, the per-shard index, a streaming reader and a map-style Dataset.
//
// A shard is a tar archive (ustar, GNU or pax; read by libarchive, never extracted) whose members are
// grouped into samples as the webdataset package groups them (tariterators.base_plus_ext and
// group_by_keys):
// - a member path splits into key and member name at the first dot of its basename, the folders kept:
//   "a/b/x.seg.png" is key "a/b/x", name "seg.png". The name is lower-cased (ASCII letters only;
//   webdataset's str.lower() also lower-cases other letters). The split is webdataset's regular
//   expression ^((?:.*/|)[^.]+)[.]([^/]*)$ exactly, so its corner cases are too: a basename that starts
//   with a dot ends the key at its folder's slash ("a/b/.x.png" is key "a/b/", name "x.png"; a hidden
//   name at the top, ".x.png", does not split).
// - members that do not split (no dot in the basename: "README") are skipped, as webdataset skips them,
//   and so are metadata members whose first path component is "__<anything>__" ("__meta__",
//   "__index__/x.json"), and folder entries.
// - a sample is the run of consecutive members with the same key, in archive order.
// - two members of one sample with the same name ("x.jpg" and "x.JPG") are Error(kInvalidInput), as
//   webdataset raises ValueError.
// - a key that comes back after other keys ("a.jpg b.jpg a.cls") is Error(kInvalidInput): webdataset
//   would yield two samples "a", each missing members, which is almost always a shard written out of
//   order. loom refuses it (sort the members by key when writing).
// Safety: members that are symbolic or hard links, devices, FIFOs, sparse files, that have an absolute
// path or a ".." component, or whose path is not valid UTF-8, are Error(kInvalidInput) naming the
// shard and the member (kUnsupported for sparse files); so are truncated archives and members whose
// data would lie past the end of the shard. A 0-byte shard is Error(kInvalidInput) (Python's tarfile:
// "empty file"); a tar with no members (only its end blocks) is a shard of 0 samples.
//
// Compressed shards (.tar.gz, .tar.bz2, .tar.xz, .tar.zst, .tar.lz4; recognised from the bytes) can only
// be streamed (for_each_sample); indexing one is Error(kUnsupported).
//
// Thread safety: free functions may be called from any thread; a ShardDataset is immutable after open.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "loom/codec/api.h"
#include "loom/codec/limits.h"
#include "loom/loader/dataset.h"
#include "loom/loader/storage.h"

LOOM_API_BEGIN

namespace loom::loader {

// ---- names ----

struct SampleName {
  std::string key;   // "a/b/x"
  std::string name;  // "seg.png", lower-cased
  bool operator==(const SampleName&) const = default;
};

// WebDataset's split of a member path (see above); nullopt for a path that does not split or is a
// metadata member ("__x__" first component), which readers skip.
std::optional<SampleName> split_member_path(std::string_view path);

// Bash/braceexpand-style expansion of a shard pattern: "{a,b}" lists (nested, items may be empty),
// integer ranges "{0..9}", "{000000..000127}" (a bound written with a leading zero pads every number
// to the wider bound), "{10..0..2}" (a step; ranges run either way), letter ranges "{a..e}", and "\"
// escaping the next character. A group with neither a comma nor a range ("{x}") is kept as written.
// Names come out in expansion order (the first group varies slowest). Error(kInvalidInput) naming the
// pattern for unbalanced braces, Error(kLimitExceeded) for more than 1,000,000 names.
std::vector<std::string> expand_braces(std::string_view pattern);

// ---- the index ----
//
// "<shard>.idx" is a JSON object (one line):
//   {"format": "loom-shard-index", "version": 1, "shard": "<file name>", "size": <bytes>,
//    "modified_ns": <mtime>, "fingerprint": "<16 hex digits>",
//    "samples": [{"key": "a/b/x", "members": [["seg.png", <data offset>, <size>], ...]}, ...]}
// size and modified_ns are the shard's ObjectStamp when the index was built, fingerprint the
// ShardIndex::fingerprint() of its contents. An index whose version, stamp or fingerprint does not
// match, or that cannot be parsed, is ignored and rebuilt.

struct IndexedMember {
  std::string name;     // "seg.png"
  uint64_t offset = 0;  // of its data in the shard, a multiple of 512
  uint64_t size = 0;
  bool operator==(const IndexedMember&) const = default;
};

struct IndexedSample {
  std::string key;
  std::vector<IndexedMember> members;  // in archive order
  bool operator==(const IndexedSample&) const = default;
};

struct ShardIndex {
  static constexpr int kVersion = 1;
  ObjectStamp stamp;  // of the shard the index describes
  std::vector<IndexedSample> samples;
  // FNV-1a 64 over the stamp and every key, name, offset and size: equal indexes, equal fingerprints.
  uint64_t fingerprint() const;
  bool operator==(const ShardIndex&) const = default;
};

// The JSON text of `index` for the shard named `shard` (its file name is recorded), and back.
// parse_shard_index throws Error(kInvalidInput) naming `input` for text that is not a valid index of
// this version (fingerprint included).
std::string format_shard_index(const ShardIndex& index, std::string_view shard);
ShardIndex parse_shard_index(std::string_view text, const std::string& input);

struct ShardOptions {
  std::shared_ptr<const Storage> storage;  // where shards (and indexes) are read; local_storage() when null
  // Indexes live beside their shard as "<shard>.idx". When that cannot be written (a read-only folder)
  // and index_folder is set, they go to "<index_folder>/<hash of the shard path>-<file name>.idx"
  // instead (through the same storage). An index that cannot be written anywhere is kept in memory
  // only and rebuilt next time.
  std::string index_folder;
  bool write_index = true;  // false: never write an index (still read a valid one)
  // max_bytes: the largest member read (Error(kLimitExceeded) naming the member above it).
  Limits limits;
};

// Scans `shard` (headers only: member data is seeked over, not read) and returns its index. Errors
// as described at the top of this file; Error(kIo) from the storage.
ShardIndex build_shard_index(const std::string& shard, const ShardOptions& options = {});

// The index of `shard`: read from "<shard>.idx" (or index_folder) when it matches the shard's
// current stamp, else built by build_shard_index and written (see ShardOptions).
ShardIndex load_shard_index(const std::string& shard, const ShardOptions& options = {});

// Where load_shard_index first looks for and writes the index of `shard`: "<shard>.idx".
std::string index_path(const std::string& shard);

// ---- streaming ----

// Reads `shard` (plain or compressed) from start to end and calls `callback` with each sample in
// order, as a Record: key, source = shard, members in archive order (bytes named
// "<shard>:<key>.<name>"), label from a ".cls" member (decimal integer text, surrounding ASCII
// whitespace allowed) and annotations from a ".json" member (a JSON object). Errors as described at
// the top of this file, detected when the stream reaches them (the samples completed before are
// delivered; the one being read is not), plus
// Error(kInvalidInput) for a bad .cls or .json and Error(kLimitExceeded) for a member larger than
// limits.max_bytes. Member data is never allocated from the declared size beyond what the shard holds.
// An exception thrown by `callback` stops the reading and propagates.
void for_each_sample(const Storage& storage, const std::string& shard, const std::function<void(Record&&)>& callback,
                     const Limits& limits = {});

// ---- the map-style dataset ----

// Every sample of a list of uncompressed shards, in shard order then archive order, read by index with
// one Storage::read_range per member (global shuffling needs no stream).
// - name(i) = "<shard>:<key>"; read(i) gives the Record for_each_sample would give for that sample.
// - fingerprint() covers the shard names, their stamps and their index fingerprints.
class ShardDataset final : public Dataset {
 public:
  // `patterns`: shard paths, each brace-expanded (expand_braces), in the order given. Indexes are
  // loaded or built (load_shard_index) for all shards at open, in parallel. Throws the first shard's
  // error; Error(kInvalidInput) when no pattern is given.
  static std::shared_ptr<const ShardDataset> open(const std::vector<std::string>& patterns,
                                                  const ShardOptions& options = {});

  int64_t size() const override;
  Record read(int64_t index) const override;
  std::string name(int64_t index) const override;
  uint64_t fingerprint() const override;
  std::vector<int64_t> shard_sizes() const override;  // samples per shard, for Shuffle::kShards

  const std::vector<std::string>& shards() const { return shards_; }
  const ShardIndex& index(size_t shard) const { return indexes_.at(shard); }

 private:
  ShardDataset() = default;
  // The shard number and the sample within it of global `index`; Error(kInvalidInput) out of range.
  std::pair<size_t, size_t> locate(int64_t index) const;

  std::vector<std::string> shards_;
  std::vector<ShardIndex> indexes_;
  std::vector<int64_t> starts_;  // global index of each shard's first sample; one more: the total
  ShardOptions options_;
  uint64_t fingerprint_ = 0;
};

}  // namespace loom::loader

LOOM_API_END
