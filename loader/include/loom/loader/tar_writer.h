// Writing WebDataset shards: a tar archive that appears whole, or not at all, with its index beside it.
//
// Headers are deterministic, so equal inputs give byte-identical shards on any machine and run: pax
// (libarchive's "restricted pax": plain ustar headers, plus a pax record only for what ustar cannot
// hold: long or non-ASCII names, sizes of 8 GiB and more), regular files with mode 0644, mtime 0, uid
// and gid 0, no user or group names; archive records of 10240 bytes, the last one padded with zeros,
// as GNU tar and Python's tarfile write them.
//
// Thread safety: one TarWriter is used by one thread at a time; distinct ones are independent.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>

#include "loom/codec/api.h"

LOOM_API_BEGIN

namespace loom::loader {

struct TarWriterOptions {
  bool overwrite = true;    // replace an existing shard (else Error(kIo) when one exists, as AtomicFile)
  bool write_index = true;  // write "<shard>.idx" (loom/loader/shards.h) with the shard
};

// One member of a sample: written as "<key>.<name>".
struct TarMember {
  std::string name;  // "jpg", "cls", "seg.png": what the reader's split gives back (lower-case)
  std::span<const uint8_t> bytes;
};

// Why sample `key` may not hold a member `name` ("" when it may): what TarWriter::write refuses for one
// member, for checking names before writing anything.
std::string member_problem(const std::string& key, const std::string& name);

class TarWriter {
 public:
  // Starts the shard at `path` through an AtomicFile (a hidden temporary beside it). Throws Error(kIo).
  static TarWriter create(const std::filesystem::path& path, const TarWriterOptions& options = {});

  TarWriter(TarWriter&&) noexcept;
  TarWriter& operator=(TarWriter&&) noexcept;
  TarWriter(const TarWriter&) = delete;
  TarWriter& operator=(const TarWriter&) = delete;
  ~TarWriter();  // abandons the shard unless committed

  // Appends sample `key` with `members`, in the order given. Error(kInvalidInput) naming the shard,
  // with nothing written, when a member would not read back as given (split_member_path of
  // "<key>.<name>" must give key and name back: no dot in the key's basename, a lower-case name
  // without '/'), for an unsafe path (absolute, "..", not UTF-8), a sample without members, two members
  // with one name, or a key written before. Error(kIo) when writing fails.
  void write(const std::string& key, std::span<const TarMember> members);

  // Ends the archive, writes the index (atomically, before the shard, so that whoever sees the new
  // shard finds its index current) and moves the shard into place. Throws Error(kIo); the shard is
  // then not written. Nothing may be written afterwards.
  void commit();

  // Removes the temporary (idempotent; no-op after commit()). Never throws.
  void abandon() noexcept;

  const std::filesystem::path& path() const;
  int64_t samples() const;  // written so far
  uint64_t bytes() const;   // of archive written so far (headers and padding included)

 private:
  struct LOOM_HIDDEN State;
  explicit TarWriter(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace loom::loader

LOOM_API_END
