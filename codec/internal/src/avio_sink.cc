#include "loom/codec/internal/avio_sink.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>

namespace loom::ffmpeg {

AvioSink AvioSink::to_memory(int buffer_size) {
  return AvioSink(std::make_unique<Target>(), buffer_size);
}

AvioSink AvioSink::to_fd(int fd, int buffer_size) {
  auto target = std::make_unique<Target>();
  target->fd = fd;
  return AvioSink(std::move(target), buffer_size);
}

AvioSink::AvioSink(std::unique_ptr<Target> target, int buffer_size) : target_(std::move(target)) {
  io_ = make_avio(buffer_size, target_.get(), nullptr, write, seek);
}

int AvioSink::write(void* opaque, uint8_t* buf, int size) {
  auto* t = static_cast<Target*>(opaque);
  if (size <= 0) return 0;
  if (t->fd < 0) {
    const size_t end = t->pos + static_cast<size_t>(size);
    try {
      if (end > t->bytes.size()) t->bytes.resize(end);
    } catch (const std::bad_alloc&) {
      if (t->write_errno == 0) t->write_errno = ENOMEM;
      return AVERROR(ENOMEM);
    }
    std::memcpy(t->bytes.data() + t->pos, buf, static_cast<size_t>(size));
    t->pos = end;
    return size;
  }
  int done = 0;
  while (done < size) {
    const ssize_t n = ::write(t->fd, buf + done, static_cast<size_t>(size - done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      if (t->write_errno == 0) t->write_errno = err;
      return AVERROR(err);
    }
    done += static_cast<int>(n);
  }
  return size;
}

int64_t AvioSink::seek(void* opaque, int64_t offset, int whence) {
  auto* t = static_cast<Target*>(opaque);
  whence &= ~AVSEEK_FORCE;
  if (t->fd >= 0) {
    if (whence == AVSEEK_SIZE) {
      struct stat st {};
      return ::fstat(t->fd, &st) == 0 ? static_cast<int64_t>(st.st_size) : AVERROR(errno);
    }
    const off_t r = ::lseek(t->fd, static_cast<off_t>(offset), whence);
    return r < 0 ? AVERROR(errno) : static_cast<int64_t>(r);
  }
  if (whence == AVSEEK_SIZE) return static_cast<int64_t>(t->bytes.size());
  int64_t target = offset;
  if (whence == SEEK_CUR) {
    target += static_cast<int64_t>(t->pos);
  } else if (whence == SEEK_END) {
    target += static_cast<int64_t>(t->bytes.size());
  } else if (whence != SEEK_SET) {
    return AVERROR(EINVAL);
  }
  if (target < 0) return AVERROR(EINVAL);
  t->pos = static_cast<size_t>(target);
  return target;
}

}  // namespace loom::ffmpeg
