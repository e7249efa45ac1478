#include "archive_handles.h"

#include "loom/codec/error.h"

namespace loom::loader {
namespace {

// C.UTF-8 for LC_CTYPE (what libarchive's conversions read), created once and kept for the process.
locale_t utf8_locale() {
  static const locale_t kLocale = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(nullptr));
  if (kLocale == static_cast<locale_t>(nullptr))
    throw Error(ErrorCode::kUnsupported, "tar", "the C library has no C.UTF-8 locale (needed for member names)");
  return kLocale;
}

}  // namespace

Utf8Locale::Utf8Locale() : utf8_(utf8_locale()), previous_(uselocale(utf8_)) {}

Utf8Locale::~Utf8Locale() {
  uselocale(previous_);
}

}  // namespace loom::loader
