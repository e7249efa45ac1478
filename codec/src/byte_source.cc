#include "loom/codec/byte_source.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "loom/codec/error.h"
#include "loom/codec/internal/regular_file.h"
#include "loom/codec/internal/unique_fd.h"

namespace loom {
namespace {

// Files at least this large are memory-mapped; smaller ones are cheaper to read() in one go.
constexpr size_t kMmapThreshold = size_t{1} << 20;

[[noreturn]] void io_error(const std::filesystem::path& path, const char* what, int err) {
  throw Error(ErrorCode::kIo, path.string(), fmt::format("{}: {}", what, std::strerror(err)));
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
  if (size >= kMmapThreshold) {
    void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd.get(), 0);
    if (map == MAP_FAILED) io_error(path, "cannot map", errno);
    src.owner_ = std::shared_ptr<const void>(map, [size](const void* p) { ::munmap(const_cast<void*>(p), size); });
    src.bytes_ = {static_cast<const uint8_t*>(map), size};
    return src;
  }
  auto buffer = std::make_shared<std::vector<uint8_t>>(size);
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::read(fd.get(), buffer->data() + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) io_error(path, "cannot read", errno);
    if (n == 0) break;  // the file shrank while we read it: keep what is there
    done += static_cast<size_t>(n);
  }
  buffer->resize(done);
  src.bytes_ = {buffer->data(), done};
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
