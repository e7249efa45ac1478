// A seekable output AVIOContext that a muxer writes through, into memory or into a file descriptor
// (an AtomicFile's). Internal to loom: audio::save muxes into memory, the VideoEncoder into its file.
//
// The callbacks never throw (no exception may cross libavformat's C frames): a failed write returns an
// AVERROR to the muxer and is remembered as write_errno() (ENOMEM when memory runs out). Seeking is
// supported both ways: the MP4 muxer goes back to fill in sizes, the MP3 muxer its Xing header.
// Not thread-safe; one muxer writes through one sink.
#pragma once

#include <cstdint>
#include <vector>

#include "loom/codec/internal/ffmpeg_handles.h"

namespace loom::ffmpeg {

class AvioSink {
 public:
  // Writes into a growing buffer, taken with take_bytes().
  static AvioSink to_memory(int buffer_size = 64 * 1024);
  // Writes at the position of `fd` (not owned; it must outlive the sink), which must be seekable.
  static AvioSink to_fd(int fd, int buffer_size = 256 * 1024);

  AVIOContext* context() const { return io_.get(); }
  // 0, or the errno of the first failed write.
  int write_errno() const { return target_->write_errno; }
  // The bytes a memory sink holds (after avio_flush), moved out.
  std::vector<uint8_t> take_bytes() { return std::move(target_->bytes); }

 private:
  struct Target {
    int fd = -1;                 // -1: memory
    std::vector<uint8_t> bytes;  // memory
    size_t pos = 0;              // memory
    int write_errno = 0;
  };
  AvioSink(std::unique_ptr<Target> target, int buffer_size);
  static int write(void* opaque, uint8_t* buf, int size);
  static int64_t seek(void* opaque, int64_t offset, int whence);

  std::unique_ptr<Target> target_;  // stable address: the AVIOContext's opaque
  UniqueAvio io_;
};

}  // namespace loom::ffmpeg
