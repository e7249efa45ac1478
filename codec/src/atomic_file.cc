// write_file_atomic: temp file in the destination folder, fsync, rename.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "loom/codec/byte_source.h"
#include "loom/codec/error.h"
#include "pending_files.h"
#include "unique_fd.h"

namespace loom {
namespace {

[[noreturn]] void io_error(const std::filesystem::path& path, const std::string& what, int err) {
  throw Error(ErrorCode::kIo, path.string(), fmt::format("{}: {}", what, std::strerror(err)));
}

// umask() can only be read by setting it, so read it once while the program starts, before any
// thread could create files concurrently.
const mode_t kProcessUmask = [] {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return mask;
}();

}  // namespace

void write_file_atomic(const std::filesystem::path& path, std::span<const uint8_t> bytes, bool overwrite) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (!overwrite) throw Error(ErrorCode::kIo, path.string(), "already exists (pass overwrite to replace it)");
    if (S_ISDIR(st.st_mode)) throw Error(ErrorCode::kIo, path.string(), "is a folder");
  }
  const std::filesystem::path folder = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  std::string tmpl = (folder / fmt::format(".{}.loom-XXXXXX", path.filename().string())).string();
  UniqueFd fd(::mkostemp(tmpl.data(), O_CLOEXEC));
  if (!fd) io_error(path, "cannot create a temporary file", errno);
  const std::filesystem::path tmp(tmpl);
  struct Registration {
    int slot;
    ~Registration() { pending_files::release(slot); }
  } registration{pending_files::add(tmpl.c_str())};
  try {
    size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::write(fd.get(), bytes.data() + done, bytes.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) io_error(path, "cannot write", errno);
      done += static_cast<size_t>(n);
    }
    // mkostemp creates 0600; give the file the usual permissions.
    if (::fchmod(fd.get(), 0666 & ~kProcessUmask) != 0) io_error(path, "cannot set permissions", errno);
    if (::fsync(fd.get()) != 0) io_error(path, "cannot sync", errno);
    if (::close(fd.release()) != 0) io_error(path, "cannot close", errno);
    if (!overwrite) {
      // link() fails if the destination appeared meanwhile, so a racing writer is never clobbered.
      if (::link(tmp.c_str(), path.c_str()) != 0) io_error(path, "cannot create", errno);
      ::unlink(tmp.c_str());
    } else if (::rename(tmp.c_str(), path.c_str()) != 0) {
      // rename() replaces a symlink at `path` itself and never writes through it.
      io_error(path, "cannot rename into place", errno);
    }
  } catch (...) {
    ::unlink(tmp.c_str());
    throw;
  }
}

}  // namespace loom
