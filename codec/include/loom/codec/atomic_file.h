// Atomic file output: a file appears at its path whole, or not at all.
//
// An AtomicFile writes into a hidden temporary ".NAME.loom-XXXXXX" in the destination's folder (when that
// would exceed NAME_MAX, NAME is cut and followed by a hash of the whole name, ".CUT.HASH.loom-XXXXXX",
// so every legal name can be written);
// commit() gives it the usual permissions (0666 less the umask), syncs it to disk and moves it onto the
// path. Until then the path is untouched, and a destructor without commit(), an error, or
// remove_pending_files() (from a signal handler) removes the temporary. Errors are Error(kIo) naming the
// destination path and the system's reason.
//
// Thread safety: one AtomicFile is used by one thread at a time; distinct ones are independent.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>

#include "loom/codec/api.h"

LOOM_API_BEGIN

namespace loom {

class AtomicFile {
 public:
  // Creates the temporary beside `path`. With overwrite == false an existing `path` (a symlink
  // included, never followed) is an error, and so is a destination that appears before commit().
  // A folder at `path` is always an error. Throws Error(kIo).
  static AtomicFile create(const std::filesystem::path& path, bool overwrite = true);

  AtomicFile(AtomicFile&&) noexcept;
  AtomicFile& operator=(AtomicFile&&) noexcept;
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();  // abandons the file unless committed

  // Appends `bytes` (all of them, retrying short writes and EINTR). Throws Error(kIo).
  void write(std::span<const uint8_t> bytes);

  // The temporary's descriptor, for a library that writes (and seeks) itself, such as an FFmpeg
  // AVIOContext; owned by this object, valid until commit() or abandon(). -1 after them.
  int fd() const;

  // The destination path.
  const std::filesystem::path& path() const;

  // Sets the permissions, syncs, closes and moves the temporary onto the destination (rename(), or
  // link() when not overwriting, so a racing writer is never clobbered). Throws Error(kIo) and
  // removes the temporary on failure; nothing is left to abandon afterwards either way.
  void commit();

  // Removes the temporary now (idempotent; no-op after commit()). Never throws.
  void abandon() noexcept;

 private:
  struct LOOM_HIDDEN State;
  explicit AtomicFile(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// Writes `bytes` to `path` through an AtomicFile: on any error `path` is untouched. Throws Error(kIo);
// with overwrite == false an existing `path` is an error and nothing is written.
void write_file_atomic(const std::filesystem::path& path, std::span<const uint8_t> bytes, bool overwrite = true);

// Deletes the temporaries of every AtomicFile not yet committed or abandoned, including one that
// another thread is creating at that moment (waited for, at most a second), and closes the registry:
// afterwards AtomicFile::create throws Error(kIo) in this process. Async-signal-safe: meant for the
// handler of a fatal signal (SIGINT, SIGTERM, SIGHUP, ...), which then ends the process. A destination
// file is never partial; only a hidden temporary beside it can be left, by a kill that cannot be caught.
void remove_pending_files() noexcept;

}  // namespace loom

LOOM_API_END
