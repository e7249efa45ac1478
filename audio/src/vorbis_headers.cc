// See vorbis_headers.h.
#include "vorbis_headers.h"

#include <ogg/ogg.h>
#include <vorbis/codec.h>

#include <cstring>

namespace loom::audio::detail {
namespace {

// libogg and libvorbis state, released on every path.
struct OggVorbisState {
  ogg_sync_state sync{};
  ogg_stream_state stream{};
  bool stream_ready = false;
  vorbis_info info{};
  vorbis_comment comment{};
  OggVorbisState() {
    ogg_sync_init(&sync);
    vorbis_info_init(&info);
    vorbis_comment_init(&comment);
  }
  ~OggVorbisState() {
    vorbis_comment_clear(&comment);
    vorbis_info_clear(&info);
    if (stream_ready) ogg_stream_clear(&stream);
    ogg_sync_clear(&sync);
  }
  OggVorbisState(const OggVorbisState&) = delete;
  OggVorbisState& operator=(const OggVorbisState&) = delete;
};

}  // namespace

bool vorbis_headers_ok(const std::function<size_t(uint8_t*, size_t)>& read) {
  constexpr size_t kChunk = 64 * 1024;
  OggVorbisState s;
  ogg_page page;
  // The next page of the input; false at the end of the input.
  auto next_page = [&]() {
    while (ogg_sync_pageout(&s.sync, &page) != 1) {
      char* buffer = ogg_sync_buffer(&s.sync, kChunk);
      if (buffer == nullptr) return false;
      const size_t n = read(reinterpret_cast<uint8_t*>(buffer), kChunk);
      if (n == 0) return false;
      ogg_sync_wrote(&s.sync, static_cast<long>(n));
    }
    return true;
  };
  if (!next_page()) return true;  // not Ogg at all: nothing for libsndfile's Vorbis reader to trip on
  ogg_stream_init(&s.stream, ogg_page_serialno(&page));
  s.stream_ready = true;
  ogg_packet packet;
  if (ogg_stream_pagein(&s.stream, &page) != 0 || ogg_stream_packetout(&s.stream, &packet) != 1) return true;
  if (packet.bytes < 7 || std::memcmp(packet.packet, "\x01vorbis", 7) != 0) return true;  // Opus, FLAC, ...
  // libsndfile's own conditions (ogg_vorbis.c, vorbis_read_header), then the two further headers,
  // which it does not check.
  if (!packet.b_o_s || ogg_stream_packetpeek(&s.stream, nullptr) != 0) return false;
  if (vorbis_synthesis_headerin(&s.info, &s.comment, &packet) != 0) return false;
  for (int headers = 1; headers < 3;) {
    const int got = ogg_stream_packetout(&s.stream, &packet);
    if (got < 0) return false;  // a hole in the header packets
    if (got == 0) {
      if (!next_page()) return false;       // the input ends before the headers do
      ogg_stream_pagein(&s.stream, &page);  // pages of other logical streams are refused: skipped
      continue;
    }
    if (vorbis_synthesis_headerin(&s.info, &s.comment, &packet) != 0) return false;
    ++headers;
  }
  return true;
}

}  // namespace loom::audio::detail
