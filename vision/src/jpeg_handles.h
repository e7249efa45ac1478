// libjpeg-turbo (libjpeg API) handles with loom's error handling (private to loom::vision).
//
// libjpeg reports errors through a callback that must not return. loom's callback records the message
// and longjmp()s back to the setjmp() in guarded(), which then reports failure; the caller turns that
// into loom::Error. Code run by guarded() must therefore hold no object with a destructor.
#pragma once

#include <csetjmp>
#include <cstddef>
#include <cstdio>  // jpeglib.h needs FILE and size_t first

#include <jerror.h>
#include <jpeglib.h>

namespace loom::vision {

struct JpegErrorManager {
  jpeg_error_mgr pub;  // first member: libjpeg casts between the two
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX] = {};
  bool truncated = false;  // the data ended before the image did
  int warnings = 0;        // corrupt-data warnings that libjpeg recovered from
  int max_scans = 0;       // progressive scans allowed (0: no limit)
  bool too_many_scans = false;
  jpeg_progress_mgr progress;
};

// Runs f(); returns false if libjpeg raised an error meanwhile (see JpegErrorManager::message).
template <typename F>
bool guarded(JpegErrorManager& err, F&& f) {
  if (setjmp(err.jump)) return false;
  f();
  return true;
}

class JpegDecompressor {
 public:
  JpegDecompressor();
  ~JpegDecompressor() { jpeg_destroy_decompress(&cinfo); }
  JpegDecompressor(const JpegDecompressor&) = delete;
  JpegDecompressor& operator=(const JpegDecompressor&) = delete;

  jpeg_decompress_struct cinfo;
  JpegErrorManager err;
};

class JpegCompressor {
 public:
  JpegCompressor();
  ~JpegCompressor();
  JpegCompressor(const JpegCompressor&) = delete;
  JpegCompressor& operator=(const JpegCompressor&) = delete;

  jpeg_compress_struct cinfo;
  JpegErrorManager err;
  unsigned char* buffer = nullptr;  // jpeg_mem_dest output, owned (malloc'd by libjpeg)
  unsigned long size = 0;
};

}  // namespace loom::vision
