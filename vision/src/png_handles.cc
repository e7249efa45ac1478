#include "png_handles.h"

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
  png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &err, on_error, on_warning);
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
