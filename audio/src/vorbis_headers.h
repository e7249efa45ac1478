// A pre-check of Ogg/Vorbis headers before libsndfile opens a file.
//
// libsndfile 1.2.0 (Debian 12) leaks the vorbis_info it initialised (about 6 KB, more with comments
// and codebooks) whenever its Vorbis header parsing fails, because the codec's close function is only
// installed after a successful parse; and when the comment or setup header does not parse it ignores
// the error and goes on with a decoder that has no codebooks. Found by fuzz/audio_decode_fuzzer.cc.
// So an Ogg stream that starts with a Vorbis identification header only goes to libsndfile when its
// three headers parse here (libogg + libvorbis, every allocation released); otherwise FFmpeg gets it
// (and rejects it cleanly or decodes what it can).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

namespace loom::audio::detail {

// `read(buffer, capacity)` fills up to `capacity` bytes and returns how many it gave (0 at the end).
// Returns false when the first Ogg page holds a Vorbis identification header and the stream's three
// Vorbis headers are not all present and valid (the conditions under which libsndfile would leak or
// decode without codebooks); true otherwise, including for anything that is not Ogg/Vorbis.
bool vorbis_headers_ok(const std::function<size_t(uint8_t*, size_t)>& read);

}  // namespace loom::audio::detail
