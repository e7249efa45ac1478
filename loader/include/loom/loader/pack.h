// Packing inputs into WebDataset shards: what `loom pack` does, for any caller (the CLI, Python,
// a Ray or Slurm worker). Planning is a pure function of the inputs as listed: every worker that plans
// the same inputs gets the same entries and shards, and write_pack_shard writes shard s byte for byte
// as any other worker would (only the .idx beside it differs: it records the shard's mtime).
//
// A sample is one file, or one manifest row and its file: member "<ext>" with the file's bytes (or what
// the caller's transform makes of them), "cls" with its label in decimal for files in class folders and
// labelled rows, "json" with a row's other fields.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "loom/codec/api.h"
#include "loom/codec/byte_source.h"
#include "loom/loader/shard_plan.h"

LOOM_API_BEGIN

namespace loom::loader {

// One sample, planned.
struct PackEntry {
  std::filesystem::path path;      // the file read
  std::filesystem::path relative;  // what its key is made of: the path below the folder given, the file
                                   // name of a file given, a row's path as written (normalized)
  std::string where;               // names it in messages: its path (for a row: which record of which manifest)
  std::optional<std::string> cls;  // its class folder, for files in class folders of a folder given
  std::string key;                 // the sample key: `relative` without its extension, dots in the name as '_'
  std::string name;                // its data member: the lower-case extension ("jpg")
  uint64_t size = 0;               // the file's size in bytes, when planned
  std::optional<int64_t> label;    // the .cls value
  std::string annotations;         // a row's other fields, a JSON object; "" for none
};

struct PackOptions {
  int64_t shard_size = 0;    // samples per shard, >= 1
  uint64_t shard_bytes = 0;  // also end a shard before its files' sizes would pass this (0: no limit)
  // In folders, the extensions packed (".jpg"; case-insensitive); empty packs every file.
  std::vector<std::string> extensions;
};

// Everything one pack writes: the entries in order and the shards they are cut into.
struct PackPlan {
  std::vector<PackEntry> entries;
  std::vector<IndexRange> shards;  // positions in `entries`, in shard order
  // One line per problem (a missing input, an entry without an extension, two samples for one key):
  // with any, nothing should be written, since the shards depend on the whole input list.
  std::vector<std::string> errors;
};

// Whether `input` names a manifest: not a folder, and its extension is .jsonl, .ndjson or .csv (ASCII
// case-insensitively, as ManifestDataset reads them).
bool names_manifest(const std::string& input);

// Plans `inputs`: files and folders (sorted by path, byte order of the generic form, whatever the order
// given; a file below a class folder of a folder given gets that folder's index among the classes of
// every folder given, merged and sorted: for one folder, torchvision ImageFolder's index), or manifests
// (in order of their paths, each in row order; class-name labels index the sorted names of all
// manifests; integer labels as written). Problems go to PackPlan::errors. Throws
// Error(kInvalidInput) when manifests and other inputs are mixed (their labels share no class list) or
// options.shard_size < 1.
PackPlan plan_pack(std::span<const std::string> inputs, const PackOptions& options);

// What a transform makes of one sample's file: the data member's name ("png") and its bytes.
struct PackedImage {
  std::string name;
  std::vector<uint8_t> bytes;
};

// Turns the file of `entry` (its bytes in `file`) into the member to write; throws to fail the sample.
// Called concurrently for different entries.
using PackTransform = std::function<PackedImage(const PackEntry& entry, const ByteSource& file)>;

struct PackShardOptions {
  bool overwrite = true;  // replace an existing shard (else Error(kIo) when one exists)
  int threads = 1;        // samples read (and transformed, verified) in parallel on a oneTBB arena
  // Decode every data member as an image (after the transform) before writing it: a sample that does
  // not decode fails the shard, as an unreadable file does. The bytes written do not change.
  bool verify = false;
  PackTransform transform;  // empty: the file's bytes as they are
  // Called on the calling thread after each sample is written, with its entry (progress reporting).
  std::function<void(const PackEntry&)> on_written;
};

// The outcome of one shard.
struct PackShardResult {
  bool ok = false;
  int64_t samples = 0;         // written before the end (all of them when ok; the shard is only kept when ok)
  std::string error;           // why it was not written ("" when ok): "<where>: <what>"
  int64_t failed_sample = -1;  // the position in the entries of the sample that failed; -1 when none did
                               // (ok, or the shard could not be created or committed)
};

// Writes `entries` (a PackPlan's entries of one shard, in order) as the shard at `path` (its folder
// created when missing) with its index beside it: whole, or not at all, through TarWriter. Samples are
// read and transformed in parallel a window at a time and written in order. Failures (an unreadable
// file, a transform or verify that throws, the shard cannot be created or committed) are returned, not
// thrown; the first one ends the shard.
PackShardResult write_pack_shard(const std::filesystem::path& path, std::span<const PackEntry> entries,
                                 const PackShardOptions& options = {});

// The path of shard `n` of `pattern`: its one "%d" or "%0Nd" (N up to 20) replaced by n, "%%" by "%".
// Throws Error(kInvalidInput) naming the pattern when it has not exactly one such conversion.
std::string shard_path(const std::string& pattern, int64_t n);

}  // namespace loom::loader

LOOM_API_END
