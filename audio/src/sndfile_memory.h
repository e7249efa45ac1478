// Private: libsndfile over bytes in memory (sf_open_virtual), shared by the decoder (decoder_sndfile.cc,
// reading a ByteSource) and save() (save.cc, writing into a growing buffer).
#pragma once

#include <sndfile.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>
#include <type_traits>
#include <vector>

namespace loom::audio::detail {

struct SndfileCloser {
  void operator()(SNDFILE* f) const { sf_close(f); }
};

// `Bytes` has data() and size(): a ByteSource (read only) or a std::vector<uint8_t> (writes grow it).
// Seeking past the end is allowed (reads then return 0), as lseek allows.
template <typename Bytes>
struct SndfileMemory {
  Bytes bytes;
  sf_count_t pos = 0;

  // The callbacks for sf_open_virtual, whose user data is a SndfileMemory*.
  static SF_VIRTUAL_IO io() { return {length, seek, read, write, tell}; }

 private:
  static SndfileMemory& self(void* user) { return *static_cast<SndfileMemory*>(user); }
  static sf_count_t length(void* user) { return static_cast<sf_count_t>(self(user).bytes.size()); }
  static sf_count_t tell(void* user) { return self(user).pos; }
  static sf_count_t seek(sf_count_t offset, int whence, void* user) {
    SndfileMemory& f = self(user);
    sf_count_t target = offset;
    if (whence == SEEK_CUR)
      target += f.pos;
    else if (whence == SEEK_END)
      target += static_cast<sf_count_t>(f.bytes.size());
    if (target < 0) return -1;
    f.pos = target;
    return target;
  }
  static sf_count_t read(void* ptr, sf_count_t count, void* user) {
    SndfileMemory& f = self(user);
    const auto size = static_cast<sf_count_t>(f.bytes.size());
    if (count <= 0 || f.pos >= size) return 0;
    const sf_count_t n = std::min(count, size - f.pos);
    std::memcpy(ptr, f.bytes.data() + f.pos, static_cast<size_t>(n));
    f.pos += n;
    return n;
  }
  static sf_count_t write(const void* ptr, sf_count_t count, void* user) {
    if constexpr (std::is_same_v<Bytes, std::vector<uint8_t>>) {
      SndfileMemory& f = self(user);
      if (count <= 0) return 0;
      const auto end = static_cast<size_t>(f.pos + count);
      try {
        if (end > f.bytes.size()) f.bytes.resize(end);
      } catch (const std::bad_alloc&) {
        return 0;  // a short write, which libsndfile reports; no exception may cross its C frames
      }
      std::memcpy(f.bytes.data() + f.pos, ptr, static_cast<size_t>(count));
      f.pos += count;
      return count;
    } else {
      return 0;  // read only
    }
  }
};

}  // namespace loom::audio::detail
