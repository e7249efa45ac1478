#include "loom/codec/internal/riff_chunks.h"

#include <fmt/format.h>

#include <cstring>

#include "loom/codec/error.h"

namespace loom::ffmpeg {
namespace {

constexpr int kMaxChunks = 4096;

uint32_t le32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 | static_cast<uint32_t>(p[2]) << 16 |
         static_cast<uint32_t>(p[3]) << 24;
}

// The chunk id as text, non-printable bytes as '?'.
std::string chunk_name(const uint8_t* id) {
  std::string name(reinterpret_cast<const char*>(id), 4);
  for (char& c : name) {
    if (c < 0x20 || c > 0x7E) c = '?';
  }
  return name;
}

}  // namespace

void check_riff_chunks(const ReadAt& read, uint64_t size, const std::string& name) {
  uint8_t header[12];
  if (size < 12 || read(0, header, 12) != 12) return;
  if (std::memcmp(header, "RIFF", 4) != 0 || std::memcmp(header + 8, "WAVE", 4) != 0) return;
  uint64_t at = 12;
  for (int i = 0; i < kMaxChunks && at + 8 <= size; ++i) {
    uint8_t chunk[8];
    if (read(at, chunk, 8) != 8) return;
    const uint64_t claimed = le32(chunk + 4), follow = size - at - 8;
    if (claimed > follow) {
      if (std::memcmp(chunk, "data", 4) == 0) return;
      throw Error(ErrorCode::kInvalidInput, name,
                  fmt::format("its '{}' chunk at byte {} claims {} bytes, but {} follow", chunk_name(chunk), at,
                              claimed, follow));
    }
    at += 8 + claimed + (claimed & 1);  // chunks are padded to an even size
  }
}

}  // namespace loom::ffmpeg
