#include "png_handles.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

namespace loom::vision {
namespace {

void on_error(png_structp png, png_const_charp message) {
  auto* err = static_cast<PngErrorState*>(png_get_error_ptr(png));
  std::strncpy(err->message, message, sizeof(err->message) - 1);
  std::longjmp(err->jump, 1);
}

// Warnings (a bad CRC on an ancillary chunk, a benign error) are not failures: libpng has already
// skipped what was wrong.
void on_warning(png_structp, png_const_charp) {}

void read_bytes(png_structp png, png_bytep out, png_size_t length) {
  auto* c = static_cast<PngReadCursor*>(png_get_io_ptr(png));
  if (length > c->size - c->pos) {
    c->err->truncated = true;
    png_error(png, "the data ends before the image");
  }
  std::memcpy(out, c->data + c->pos, length);
  c->pos += length;
}

// libpng's allocator for a PngReader: refuses a block larger than the reader's chunk limit, the rest
// of the input (plus libpng's terminating NUL) and a row buffer of the image (8 bytes a pixel for
// 16-bit RGBA, interlace padding; the width is 0 until IHDR is read), each with 64 KiB to spare for
// libpng's and zlib's own structures (zlib's window is 32 KiB).
png_voidp allocate(png_structp png, png_alloc_size_t size) {
  auto* r = static_cast<PngReader*>(png_get_mem_ptr(png));
  const uint64_t width = r->info != nullptr ? png_get_image_width(png, r->info) : 0;
  const uint64_t row = 8 * (width + 8);
  const uint64_t rest = r->input->size - r->input->pos + 1;
  if (r->max_chunk_bytes != 0 && size > std::max({r->max_chunk_bytes, rest, row}) + (uint64_t{64} << 10)) {
    r->err.refused_bytes = std::max<uint64_t>(r->err.refused_bytes, size);
    return nullptr;
  }
  return std::malloc(size);
}

void release(png_structp, png_voidp p) {
  std::free(p);
}

void write_bytes(png_structp png, png_bytep data, png_size_t length) {
  auto* out = static_cast<std::vector<uint8_t>*>(png_get_io_ptr(png));
  bool ok = true;
  try {
    out->insert(out->end(), data, data + length);
  } catch (const std::bad_alloc&) {
    ok = false;  // no exception may cross libpng's C frames
  }
  if (!ok) png_error(png, "out of memory");
}

void flush(png_structp) {}

}  // namespace

PngReader::PngReader(PngReadCursor& cursor) {
  cursor.err = &err;
  input = &cursor;
  png = png_create_read_struct_2(PNG_LIBPNG_VER_STRING, &err, on_error, on_warning, this, allocate, release);
  if (png == nullptr) throw std::bad_alloc();
  info = png_create_info_struct(png);
  if (info == nullptr) {
    png_destroy_read_struct(&png, nullptr, nullptr);
    throw std::bad_alloc();
  }
  png_set_read_fn(png, &cursor, read_bytes);
}

PngWriter::PngWriter(std::vector<uint8_t>& out) {
  png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &err, on_error, on_warning);
  if (png == nullptr) throw std::bad_alloc();
  info = png_create_info_struct(png);
  if (info == nullptr) {
    png_destroy_write_struct(&png, nullptr);
    throw std::bad_alloc();
  }
  png_set_write_fn(png, &out, write_bytes, flush);
}

}  // namespace loom::vision
