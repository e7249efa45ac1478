// AtomicFile: a temporary in the destination folder, registered before it exists, then fchmod, fsync,
// rename (or link).
#include "loom/codec/atomic_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>
#include <string>
#include <string_view>
#include <utility>

#include "loom/codec/error.h"
#include "loom/codec/internal/unique_fd.h"
#include "pending_files.h"

namespace loom {
namespace {

[[noreturn]] void io_error(const std::filesystem::path& path, const std::string& what, int err) {
  throw Error(ErrorCode::kIo, path.string(), fmt::format("{}: {}", what, std::strerror(err)));
}

// AtomicFile::create after remove_pending_files(): the process is ending.
[[noreturn]] void interrupted_error(const std::filesystem::path& path) {
  throw Error(ErrorCode::kIo, path.string(), "not written: the process is being interrupted");
}

// umask() can only be read by setting it, so read it once while the program starts, before any
// thread could create files concurrently.
const mode_t kProcessUmask = [] {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return mask;
}();

// Six characters of [0-9A-Za-z] for a temporary's name, as mkstemp's XXXXXX (uniqueness comes from
// O_EXCL; the randomness only makes clashes rare).
std::string random_suffix() {
  static constexpr char kAlphabet[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  thread_local std::mt19937_64 rng(std::random_device{}() ^ (static_cast<uint64_t>(::getpid()) << 32));
  std::string suffix(6, '0');
  for (char& c : suffix) c = kAlphabet[rng() % (sizeof(kAlphabet) - 1)];
  return suffix;
}

// The temporary's path without its random suffix: ".NAME.loom-" in the destination's folder. When that
// name with the suffix would exceed NAME_MAX (NAME of 244 to 255 bytes), NAME is cut and followed by a
// 64-bit FNV-1a hash of the whole name, ".CUT.HHHHHHHHHHHHHHHH.loom-", exactly NAME_MAX with the suffix:
// still hidden, still ending in ".loom-XXXXXX", and distinct for names that differ only after the cut
// (uniqueness itself comes from O_EXCL).
std::string temporary_prefix(const std::filesystem::path& path) {
  constexpr size_t kNameMax = NAME_MAX;
  constexpr size_t kTail = std::char_traits<char>::length(".loom-") + 6;  // + random_suffix()
  const std::filesystem::path folder = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  const std::string name = path.filename().string();
  if (1 + name.size() + kTail <= kNameMax) return (folder / fmt::format(".{}.loom-", name)).string();
  uint64_t hash = 0xcbf29ce484222325;
  for (const char c : name) hash = (hash ^ static_cast<uint8_t>(c)) * 0x100000001b3;
  constexpr size_t kKeep = kNameMax - 1 - 17 - kTail;  // 17: ".HHHHHHHHHHHHHHHH"
  return (folder / fmt::format(".{}.{:016x}.loom-", std::string_view(name).substr(0, kKeep), hash)).string();
}

}  // namespace

struct AtomicFile::State {
  std::filesystem::path path;
  std::string tmp;  // empty once committed or abandoned
  bool overwrite = true;
  UniqueFd fd;
  int slot = -1;  // in the pending-files registry

  ~State() { abandon(); }
  void abandon() noexcept {
    fd.reset();
    if (!tmp.empty()) ::unlink(tmp.c_str());
    tmp.clear();
    pending_files::release(std::exchange(slot, -1));
  }
};

AtomicFile AtomicFile::create(const std::filesystem::path& path, bool overwrite) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (!overwrite) throw Error(ErrorCode::kIo, path.string(), "already exists (pass overwrite to replace it)");
    if (S_ISDIR(st.st_mode)) throw Error(ErrorCode::kIo, path.string(), "is a folder");
  }
  auto state = std::make_unique<State>();
  state->path = path;
  state->overwrite = overwrite;
  const std::string prefix = temporary_prefix(path);
  // The name is registered before the file exists and the file is then created with O_EXCL, so that a
  // signal at any moment finds every temporary of this process registered (mkostemp then registering
  // left a window in which an interrupted run leaked its temporary); pending_files.h has the protocol.
  for (int attempt = 0;; ++attempt) {
    state->tmp = prefix + random_suffix();
    state->slot = pending_files::add(state->tmp.c_str());
    if (state->slot == pending_files::kClosed) {
      state->tmp.clear();
      interrupted_error(path);
    }
    state->fd.reset(::open(state->tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
    if (state->fd) {
      if (pending_files::created(state->slot)) break;
      state->abandon();  // remove_pending_files() began meanwhile
      interrupted_error(path);
    }
    const int err = errno;
    state->tmp.clear();  // not ours: nothing to remove
    pending_files::release(std::exchange(state->slot, -1));
    if (err != EEXIST || attempt == 99) io_error(path, "cannot create a temporary file", err);
  }
  return AtomicFile(std::move(state));
}

AtomicFile::AtomicFile(std::unique_ptr<State> state) : state_(std::move(state)) {}
AtomicFile::AtomicFile(AtomicFile&&) noexcept = default;
AtomicFile& AtomicFile::operator=(AtomicFile&&) noexcept = default;
AtomicFile::~AtomicFile() = default;

int AtomicFile::fd() const {
  return state_->fd.get();
}
const std::filesystem::path& AtomicFile::path() const {
  return state_->path;
}
void AtomicFile::abandon() noexcept {
  state_->abandon();
}

void AtomicFile::write(std::span<const uint8_t> bytes) {
  if (!state_->fd) throw Error(ErrorCode::kIo, state_->path.string(), "write after commit or abandon");
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(state_->fd.get(), bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) io_error(state_->path, "cannot write", errno);
    done += static_cast<size_t>(n);
  }
}

void AtomicFile::commit() {
  State& s = *state_;
  if (!s.fd) throw Error(ErrorCode::kIo, s.path.string(), "commit after commit or abandon");
  try {
    // The file was created 0600; give it the usual permissions.
    if (::fchmod(s.fd.get(), 0666 & ~kProcessUmask) != 0) io_error(s.path, "cannot set permissions", errno);
    if (::fsync(s.fd.get()) != 0) io_error(s.path, "cannot sync", errno);
    if (::close(s.fd.release()) != 0) io_error(s.path, "cannot close", errno);
    if (!s.overwrite) {
      // link() fails if the destination appeared meanwhile, so a racing writer is never clobbered.
      if (::link(s.tmp.c_str(), s.path.c_str()) != 0) io_error(s.path, "cannot create", errno);
      ::unlink(s.tmp.c_str());
    } else if (::rename(s.tmp.c_str(), s.path.c_str()) != 0) {
      // rename() replaces a symlink at `path` itself and never writes through it.
      io_error(s.path, "cannot rename into place", errno);
    }
  } catch (...) {
    s.abandon();
    throw;
  }
  s.tmp.clear();  // in place: nothing to remove
  s.abandon();
}

void write_file_atomic(const std::filesystem::path& path, std::span<const uint8_t> bytes, bool overwrite) {
  AtomicFile file = AtomicFile::create(path, overwrite);
  file.write(bytes);
  file.commit();
}

}  // namespace loom
