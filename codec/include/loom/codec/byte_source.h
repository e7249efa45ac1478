// Byte sources: the encoded bytes of one input (a file, or a buffer in memory) and its name.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "loom/codec/api.h"
#include "loom/codec/limits.h"

LOOM_API_BEGIN

namespace loom {

// An immutable byte range plus the name used in error messages. Copies share the bytes.
// Thread safety: const methods may be called from any thread.
class ByteSource {
 public:
  // Reads a regular file into memory: a snapshot, never a mapping, so that another process truncating
  // the file cannot fault the reader. Throws Error(kIo) when it cannot be opened or read (missing, a
  // folder, a special file, no permission) or when it changed while being read (truncated, or its size
  // or modification time differ afterwards), and Error(kLimitExceeded) when it is larger than
  // limits.max_bytes. An empty file gives an empty source.
  static ByteSource from_file(const std::filesystem::path& path, const Limits& limits = {});
  // Borrows `bytes`: the caller keeps them alive and unchanged while any copy of the source exists.
  static ByteSource from_memory(std::span<const uint8_t> bytes, std::string name = "<memory>");
  // Takes ownership of `bytes`.
  static ByteSource from_vector(std::vector<uint8_t> bytes, std::string name = "<memory>");

  // The same bytes (shared, not copied) under another name: a part of a larger object named for
  // messages ("shard.tar:key.jpg").
  ByteSource renamed(std::string name) const;

  const uint8_t* data() const { return bytes_.data(); }
  size_t size() const { return bytes_.size(); }
  std::span<const uint8_t> bytes() const { return bytes_; }
  // The path (for files) or the name given (for memory), for messages.
  const std::string& name() const { return name_; }

 private:
  std::shared_ptr<const void> owner_;
  std::span<const uint8_t> bytes_;
  std::string name_;
};

}  // namespace loom

LOOM_API_END
