#include "jpeg_handles.h"

#include <cstdlib>
#include <new>

namespace loom::vision {
namespace {

void on_error(j_common_ptr cinfo) {
  auto* err = reinterpret_cast<JpegErrorManager*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, err->message);
  std::longjmp(err->jump, 1);
}

// Warnings (level -1) are counted, except premature end of data: loom never returns an image whose
// missing part libjpeg filled in, so a truncated file is an error.
void on_message(j_common_ptr cinfo, int level) {
  auto* err = reinterpret_cast<JpegErrorManager*>(cinfo->err);
  if (level >= 0) return;  // trace messages
  if (cinfo->err->msg_code == JWRN_JPEG_EOF) {
    err->truncated = true;
    (*cinfo->err->format_message)(cinfo, err->message);
    std::longjmp(err->jump, 1);
  }
  ++err->warnings;
}

// Called by libjpeg between passes and rows; stops progressive files with a scan flood.
void on_progress(j_common_ptr cinfo) {
  auto* err = reinterpret_cast<JpegErrorManager*>(cinfo->err);
  if (!cinfo->is_decompressor || err->max_scans <= 0) return;
  auto* dinfo = reinterpret_cast<j_decompress_ptr>(cinfo);
  if (dinfo->progressive_mode && dinfo->input_scan_number > err->max_scans) {
    err->too_many_scans = true;
    std::longjmp(err->jump, 1);
  }
}

void install(JpegErrorManager& err) {
  jpeg_std_error(&err.pub);
  err.pub.error_exit = on_error;
  err.pub.emit_message = on_message;
  err.progress.progress_monitor = on_progress;
}

}  // namespace

JpegDecompressor::JpegDecompressor() {
  install(err);
  cinfo.err = &err.pub;
  // Creation fails only when out of memory.
  if (!guarded(err, [this] { jpeg_create_decompress(&cinfo); })) throw std::bad_alloc();
  cinfo.progress = &err.progress;
}

JpegCompressor::JpegCompressor() {
  install(err);
  cinfo.err = &err.pub;
  if (!guarded(err, [this] { jpeg_create_compress(&cinfo); })) throw std::bad_alloc();
}

JpegCompressor::~JpegCompressor() {
  jpeg_destroy_compress(&cinfo);
  std::free(buffer);
}

}  // namespace loom::vision
