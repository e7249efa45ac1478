// libpng handles with loom's error handling (private to loom::vision).
//
// As with libjpeg, libpng's error callback must not return: it records the message and longjmp()s
// back to png_guarded(); code run there must hold no object with a destructor.
#pragma once

#include <png.h>

#include <csetjmp>
#include <cstdint>
#include <string>
#include <vector>

namespace loom::vision {

struct PngErrorState {
  std::jmp_buf jump;
  char message[256] = {};
  bool truncated = false;      // the reader ran out of bytes
  uint64_t refused_bytes = 0;  // the largest allocation PngReader refused (see PngReader::max_chunk_bytes)
};

template <typename F>
bool png_guarded(PngErrorState& err, F&& f) {
  if (setjmp(err.jump)) return false;
  f();
  return true;
}

// An in-memory PNG being read.
struct PngReadCursor {
  const uint8_t* data;
  size_t size;
  size_t pos = 0;
  PngErrorState* err = nullptr;
};

class PngReader {
 public:
  // Reads from `cursor`, which must outlive the reader. Throws std::bad_alloc if libpng cannot start.
  explicit PngReader(PngReadCursor& cursor);
  ~PngReader() { png_destroy_read_struct(&png, &info, nullptr); }
  PngReader(const PngReader&) = delete;
  PngReader& operator=(const PngReader&) = delete;

  PngErrorState err;
  png_structp png = nullptr;
  png_infop info = nullptr;
  // libpng 1.6.39 allocates an ancillary chunk's declared length (up to 2 GiB, from a file of a few
  // bytes) before reading it, whatever png_set_chunk_malloc_max says. So a libpng allocation larger
  // than this, than the rest of the input and than a row buffer of the image fails (the read then
  // fails too). Set it to Limits::max_png_chunk_bytes before reading; 0 allows any size.
  uint64_t max_chunk_bytes = uint64_t{1} << 20;
  const PngReadCursor* input = nullptr;
};

class PngWriter {
 public:
  // Appends the encoded file to `out`, which must outlive the writer.
  explicit PngWriter(std::vector<uint8_t>& out);
  ~PngWriter() { png_destroy_write_struct(&png, &info); }
  PngWriter(const PngWriter&) = delete;
  PngWriter& operator=(const PngWriter&) = delete;

  PngErrorState err;
  png_structp png = nullptr;
  png_infop info = nullptr;
};

}  // namespace loom::vision
