// Reading shards with libarchive over the Storage seam: the one member scan and the one WebDataset
// grouping, shared by the index builder (headers only) and the streaming reader (with data).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "loom/codec/limits.h"
#include "loom/loader/dataset.h"
#include "loom/loader/storage.h"

namespace loom::loader {

// Why `path` may not name a shard member ("is an absolute path", "has a '..' component", "is not valid
// UTF-8", "is empty"), or "" when it may.
std::string unsafe_member_path(std::string_view path);

struct ScannedMember {
  std::string name;            // WebDataset member name ("seg.png")
  uint64_t offset = 0;         // of its data in the shard (kHeaders; 0 in kData)
  uint64_t size = 0;           // declared by its header
  std::vector<uint8_t> bytes;  // its data (kData only)
};

struct ScannedSample {
  std::string key;
  std::vector<ScannedMember> members;
};

enum class ScanMode {
  kHeaders,  // uncompressed shards only: member data is seeked over; offsets are checked and filled in
  kData,     // plain or compressed: member data is read, bytes filled in
};

// Calls `sample` with each sample of `shard`, in archive order, grouped and checked as shards.h
// describes. Throws loom::Error (naming `shard`) for everything shards.h lists; what `sample` throws
// propagates. Reads through `storage` in blocks; never extracts anything.
void scan_shard(const Storage& storage, const std::string& shard, ScanMode mode, const Limits& limits,
                const std::function<void(ScannedSample&&)>& sample);

// A shard sample as a Record: label from its "cls" member, annotations from its "json" member (see
// for_each_sample). Throws Error(kInvalidInput) naming "<shard>:<key>.cls" or ".json" when they are
// malformed.
Record make_shard_record(const std::string& shard, std::string key, std::vector<Member> members);

// "<shard>:<key>.<name>": how a member's bytes are named.
std::string member_source_name(const std::string& shard, std::string_view key, std::string_view name);

}  // namespace loom::loader
