#include "loom/loader/storage.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "loom/codec/atomic_file.h"
#include "loom/codec/error.h"
#include "loom/codec/internal/unique_fd.h"

namespace loom::loader {
namespace {

std::string range_text(uint64_t offset, uint64_t length) {
  return "bytes " + std::to_string(offset) + ".." + std::to_string(offset + length);
}

class LocalStorage final : public Storage {
 public:
  ByteSource read(const std::string& path, const Limits& limits) const override {
    return ByteSource::from_file(path, limits);
  }

  ByteSource read_range(const std::string& path, uint64_t offset, uint64_t length) const override {
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
    if (!fd) throw Error(ErrorCode::kIo, path, std::string("cannot open: ") + std::strerror(errno));
    std::vector<uint8_t> bytes(length);
    uint64_t done = 0;
    while (done < length) {
      const ssize_t n = ::pread(fd.get(), bytes.data() + done, length - done, static_cast<off_t>(offset + done));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw Error(ErrorCode::kIo, path, std::string("cannot read: ") + std::strerror(errno));
      if (n == 0) throw Error(ErrorCode::kIo, path, range_text(offset, length) + " lie past the end (truncated?)");
      done += static_cast<uint64_t>(n);
    }
    return ByteSource::from_vector(std::move(bytes), path);
  }

  ObjectStamp stat(const std::string& path) const override {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
      throw Error(ErrorCode::kIo, path, std::string("cannot stat: ") + std::strerror(errno));
    if (!S_ISREG(st.st_mode)) throw Error(ErrorCode::kIo, path, "is not a regular file");
    return {static_cast<uint64_t>(st.st_size), int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec};
  }

  void write(const std::string& path, std::span<const uint8_t> bytes) const override { write_file_atomic(path, bytes); }
};

}  // namespace

std::shared_ptr<const Storage> local_storage() {
  static const auto kLocal = std::make_shared<const LocalStorage>();
  return kLocal;
}

void MemoryStorage::put(const std::string& path, std::vector<uint8_t> bytes) {
  std::lock_guard lock(mutex_);
  objects_[path] = {std::make_shared<const std::vector<uint8_t>>(std::move(bytes)), next_version_++};
}

void MemoryStorage::remove(const std::string& path) {
  std::lock_guard lock(mutex_);
  objects_.erase(path);
}

const MemoryStorage::Object& MemoryStorage::find(const std::string& path) const {
  const auto it = objects_.find(path);
  if (it == objects_.end()) throw Error(ErrorCode::kIo, path, "no such object");
  return it->second;
}

ByteSource MemoryStorage::read(const std::string& path, const Limits& limits) const {
  std::lock_guard lock(mutex_);
  const Object& object = find(path);
  if (limits.max_bytes && object.bytes->size() > limits.max_bytes)
    throw Error(ErrorCode::kLimitExceeded, path,
                "is larger than the limit of " + std::to_string(limits.max_bytes) + " bytes");
  // A copy: the object may be replaced while the source is in use.
  return ByteSource::from_vector(*object.bytes, path);
}

ByteSource MemoryStorage::read_range(const std::string& path, uint64_t offset, uint64_t length) const {
  std::lock_guard lock(mutex_);
  const Object& object = find(path);
  const uint64_t size = object.bytes->size();
  if (offset > size || length > size - offset)
    throw Error(ErrorCode::kIo, path,
                range_text(offset, length) + " lie past the end (" + std::to_string(size) + " bytes)");
  const auto begin = object.bytes->begin() + static_cast<std::ptrdiff_t>(offset);
  return ByteSource::from_vector(std::vector<uint8_t>(begin, begin + static_cast<std::ptrdiff_t>(length)), path);
}

ObjectStamp MemoryStorage::stat(const std::string& path) const {
  std::lock_guard lock(mutex_);
  const Object& object = find(path);
  return {object.bytes->size(), object.version};
}

void MemoryStorage::write(const std::string& path, std::span<const uint8_t> bytes) const {
  std::lock_guard lock(mutex_);
  objects_[path] = {std::make_shared<const std::vector<uint8_t>>(bytes.begin(), bytes.end()), next_version_++};
}

}  // namespace loom::loader
