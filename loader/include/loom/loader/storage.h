// The storage seam: how the loader reads bytes. Datasets read files and byte ranges (tar members)
// through a Storage, so another backend (an object store, a cache) plugs in without touching the
// datasets or the pipeline.
//
// Paths are plain strings in the backend's own namespace (a filesystem path for local storage, any
// key for memory storage). Errors: Error(kIo) naming the path for a missing or unreadable object or a
// range past its end, Error(kLimitExceeded) for an object larger than limits.max_bytes.
// Thread safety: every method may be called from any thread at once.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "loom/codec/api.h"
#include "loom/codec/byte_source.h"
#include "loom/codec/limits.h"

LOOM_API_BEGIN

namespace loom::loader {

// What identifies one version of an object: an index built from it is valid while both are unchanged.
struct ObjectStamp {
  uint64_t size = 0;
  int64_t modified_ns = 0;  // modification time in ns since the epoch; 0 where the backend has none
  bool operator==(const ObjectStamp&) const = default;
};

class Storage {
 public:
  virtual ~Storage() = default;
  // The whole object.
  virtual ByteSource read(const std::string& path, const Limits& limits = {}) const = 0;
  // `length` bytes from `offset`; the range must lie inside the object.
  virtual ByteSource read_range(const std::string& path, uint64_t offset, uint64_t length) const = 0;
  virtual ObjectStamp stat(const std::string& path) const = 0;
  // Writes an object whole, or not at all (local storage: through loom::AtomicFile).
  virtual void write(const std::string& path, std::span<const uint8_t> bytes) const = 0;
};

// The local filesystem. read() is ByteSource::from_file (regular files only); read_range reads with
// pread. The same object is shared by every caller.
std::shared_ptr<const Storage> local_storage();

// Objects held in memory, for tests and for data built on the fly. put() replaces an object and
// changes its stamp.
class MemoryStorage final : public Storage {
 public:
  void put(const std::string& path, std::vector<uint8_t> bytes);
  void remove(const std::string& path);

  ByteSource read(const std::string& path, const Limits& limits = {}) const override;
  ByteSource read_range(const std::string& path, uint64_t offset, uint64_t length) const override;
  ObjectStamp stat(const std::string& path) const override;
  void write(const std::string& path, std::span<const uint8_t> bytes) const override;

 private:
  struct Object {
    std::shared_ptr<const std::vector<uint8_t>> bytes;
    int64_t version = 0;
  };
  const Object& find(const std::string& path) const;  // caller holds mutex_

  mutable std::mutex mutex_;
  mutable std::map<std::string, Object> objects_;
  mutable int64_t next_version_ = 1;
};

}  // namespace loom::loader

LOOM_API_END
