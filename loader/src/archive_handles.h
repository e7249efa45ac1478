// RAII owners for libarchive handles, and the locale libarchive runs under.
//
// libarchive converts member names between the archive's charset and the current locale's. loom never
// changes the process locale, so every libarchive call on a thread runs under a Utf8Locale guard: the
// thread's locale is C.UTF-8 for the guard's lifetime (uselocale, per thread), which makes pax's UTF-8
// names and the raw bytes of ustar/GNU names come through unchanged.
#pragma once

#include <archive.h>
#include <archive_entry.h>
#include <locale.h>

#include <memory>

namespace loom::loader {

struct ArchiveReadFree {
  void operator()(archive* a) const { archive_read_free(a); }
};
struct ArchiveWriteFree {
  void operator()(archive* a) const { archive_write_free(a); }
};
struct ArchiveEntryFree {
  void operator()(archive_entry* e) const { archive_entry_free(e); }
};
using ArchiveReader = std::unique_ptr<archive, ArchiveReadFree>;
using ArchiveWriter = std::unique_ptr<archive, ArchiveWriteFree>;
using ArchiveEntry = std::unique_ptr<archive_entry, ArchiveEntryFree>;

// Sets the calling thread's locale to C.UTF-8 until destroyed (then restores the previous one).
// Throws Error(kUnsupported) when the C library has no C.UTF-8 locale.
class Utf8Locale {
 public:
  Utf8Locale();
  ~Utf8Locale();
  Utf8Locale(const Utf8Locale&) = delete;
  Utf8Locale& operator=(const Utf8Locale&) = delete;

  // Runs `f` (caller code: a callback) under the locale that was current before the guard.
  template <typename F>
  void outside(F&& f) const {
    uselocale(previous_);
    try {
      f();
    } catch (...) {
      uselocale(utf8_);
      throw;
    }
    uselocale(utf8_);
  }

 private:
  locale_t utf8_;
  locale_t previous_;
};

}  // namespace loom::loader
