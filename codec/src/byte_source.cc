#include "loom/codec/byte_source.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <utility>

#include "block_cache.h"
#include "loom/codec/error.h"
#include "loom/codec/internal/regular_file.h"
#include "loom/codec/internal/unique_fd.h"

namespace loom {
namespace {

[[noreturn]] void io_error(const std::filesystem::path& path, const char* what, int err) {
  throw Error(ErrorCode::kIo, path.string(), fmt::format("{}: {}", what, std::strerror(err)));
}

// `size` uninitialised bytes from the tensor block cache (block_cache.h): a loop that reads files of
// similar sizes reuses memory whose pages are already mapped (in huge pages where they can be), so that
// reading a file costs about a copy out of the page cache.
std::shared_ptr<uint8_t> allocate_buffer(size_t size) {
  const detail::Block block = detail::allocate_block(size);
  return {static_cast<uint8_t*>(block.data), [block](uint8_t*) { detail::release_block(block); }};
}

// "changed while being read" naming what changed, for a file that was `before` when opened.
[[noreturn]] void changed_error(const std::filesystem::path& path, const struct stat& before, const char* what,
                                uint64_t now) {
  throw Error(ErrorCode::kIo, path.string(),
              fmt::format("changed while being read ({}: {} bytes when opened, {} now); read it again once "
                          "it is complete",
                          what, static_cast<uint64_t>(before.st_size), now));
}

}  // namespace

ByteSource ByteSource::from_file(const std::filesystem::path& path, const Limits& limits) {
  // A device is never opened (opening some has effects of its own); a FIFO swapped in after this check
  // is opened O_NONBLOCK, so as not to wait for a writer, and refused by the fstat below.
  require_regular_file(path);
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (!fd) io_error(path, "cannot open", errno);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) io_error(path, "cannot stat", errno);
  if (!S_ISREG(st.st_mode)) {
    throw Error(ErrorCode::kIo, path.string(),
                S_ISDIR(st.st_mode) ? "is a folder, not a file" : "is not a regular file");
  }
  const auto size = static_cast<uint64_t>(st.st_size);
  if (limits.max_bytes != 0 && size > limits.max_bytes) {
    throw Error(ErrorCode::kLimitExceeded, path.string(),
                fmt::format("file of {} bytes exceeds the limit of {} bytes", size, limits.max_bytes));
  }
  ByteSource src;
  src.name_ = path.string();
  if (size == 0) return src;
  // Read, never mapped: another process may truncate the file at any time, and a mapped page past the
  // new end would kill the whole process with SIGBUS wherever a decoder touched it. A copy is a
  // snapshot; a file that changes while it is copied is refused (a shorter read, or a size or
  // modification time that differs afterwards).
  std::shared_ptr<uint8_t> buffer = allocate_buffer(size);
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::read(fd.get(), buffer.get() + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) io_error(path, "cannot read", errno);
    if (n == 0) changed_error(path, st, "truncated", done);
    done += static_cast<size_t>(n);
  }
  struct stat after {};
  if (::fstat(fd.get(), &after) != 0) io_error(path, "cannot stat", errno);
  if (after.st_size != st.st_size || after.st_mtim.tv_sec != st.st_mtim.tv_sec ||
      after.st_mtim.tv_nsec != st.st_mtim.tv_nsec) {
    changed_error(path, st, after.st_size < st.st_size ? "truncated" : "modified",
                  static_cast<uint64_t>(after.st_size));
  }
  src.bytes_ = {buffer.get(), size};
  src.owner_ = std::move(buffer);
  return src;
}

ByteSource ByteSource::from_memory(std::span<const uint8_t> bytes, std::string name) {
  ByteSource src;
  src.bytes_ = bytes;
  src.name_ = std::move(name);
  return src;
}

ByteSource ByteSource::from_vector(std::vector<uint8_t> bytes, std::string name) {
  auto owned = std::make_shared<std::vector<uint8_t>>(std::move(bytes));
  ByteSource src;
  src.bytes_ = {owned->data(), owned->size()};
  src.owner_ = std::move(owned);
  src.name_ = std::move(name);
  return src;
}

ByteSource ByteSource::renamed(std::string name) const {
  ByteSource src = *this;
  src.name_ = std::move(name);
  return src;
}

}  // namespace loom
