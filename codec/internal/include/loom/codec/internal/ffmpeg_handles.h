// The shared FFmpeg layer (internal to loom: codec, audio and video use it; never included by a public
// header): RAII owners for FFmpeg objects, the one place where FFmpeg error codes become loom::Error,
// and opening inputs and encoders with loom's whitelists, limits and deadlines.
#pragma once

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavformat/avio.h>
#include <libavutil/error.h>
#include <libavutil/frame.h>
#include <libavutil/mem.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>
}

#include <chrono>
#include <map>
#include <memory>
#include <new>
#include <string>

#include "loom/codec/byte_source.h"
#include "loom/codec/error.h"
#include "loom/codec/limits.h"

namespace loom::ffmpeg {

struct FormatContextDeleter {
  void operator()(AVFormatContext* ctx) const { avformat_close_input(&ctx); }
};
using UniqueFormatContext = std::unique_ptr<AVFormatContext, FormatContextDeleter>;

struct DictionaryDeleter {
  void operator()(AVDictionary* dict) const { av_dict_free(&dict); }
};
using UniqueDictionary = std::unique_ptr<AVDictionary, DictionaryDeleter>;

struct CodecContextDeleter {
  void operator()(AVCodecContext* c) const { avcodec_free_context(&c); }
};
using UniqueCodecContext = std::unique_ptr<AVCodecContext, CodecContextDeleter>;

struct FrameDeleter {
  void operator()(AVFrame* f) const { av_frame_free(&f); }
};
using UniqueFrame = std::unique_ptr<AVFrame, FrameDeleter>;

struct PacketDeleter {
  void operator()(AVPacket* p) const { av_packet_free(&p); }
};
using UniquePacket = std::unique_ptr<AVPacket, PacketDeleter>;

// A muxer's context (from avformat_alloc_output_context2), which avformat_close_input must not free.
struct OutputContextDeleter {
  void operator()(AVFormatContext* c) const { avformat_free_context(c); }
};
using UniqueOutputContext = std::unique_ptr<AVFormatContext, OutputContextDeleter>;

struct SwsDeleter {
  void operator()(SwsContext* c) const { sws_freeContext(c); }
};
using UniqueSws = std::unique_ptr<SwsContext, SwsDeleter>;

struct SwrDeleter {
  void operator()(SwrContext* s) const { swr_free(&s); }
};
using UniqueSwr = std::unique_ptr<SwrContext, SwrDeleter>;

// A custom AVIOContext together with its av_malloc'ed buffer.
struct AvioDeleter {
  void operator()(AVIOContext* io) const {
    if (io) av_freep(&io->buffer);
    avio_context_free(&io);
  }
};
using UniqueAvio = std::unique_ptr<AVIOContext, AvioDeleter>;

// Silences FFmpeg's own log output (loom reports every failure as a loom::Error). Idempotent and
// thread-safe; every entry point that opens a demuxer, muxer or codec calls it.
void quiet_logging();

// A custom AVIOContext over `opaque` with an av_malloc'ed buffer of `buffer_size` bytes (owned by the
// result). `write` non-null makes it an output context.
UniqueAvio make_avio(int buffer_size, void* opaque, int (*read)(void*, uint8_t*, int),
                     int (*write)(void*, uint8_t*, int), int64_t (*seek)(void*, int64_t, int));

// FFmpeg's message for an AVERROR code.
std::string error_string(int errnum);

// Throws the loom::Error for a failed FFmpeg call `what` on `input`.
[[noreturn]] void throw_error(int errnum, const std::string& input, const std::string& what);

// `p`, or std::bad_alloc when an FFmpeg allocator returned null.
template <typename T>
T* check_alloc(T* p) {
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

// Opens the encoder context `ctx` (allocated for its codec) with the caller's private `options`.
// Error(kLimitExceeded) when FFmpeg runs out of memory, Error(kInvalidInput) naming `output` when the
// encoder refuses the settings or does not know one of the options.
void open_encoder(AVCodecContext* ctx, const std::map<std::string, std::string>& options, const std::string& output);

// Deadline checked by FFmpeg's interrupt callback; must outlive the context it is attached to.
struct Deadline {
  std::chrono::steady_clock::time_point until;
  bool expired() const { return std::chrono::steady_clock::now() > until; }
};

// Opens a local media file with loom's whitelists, limits and `deadline` (attached as the interrupt
// callback), then reads stream information. Quietens FFmpeg's logging once per process.
UniqueFormatContext open_input(const std::string& path, const Limits& limits, Deadline& deadline);

// An input opened from memory: the custom AVIOContext that reads `source`, and the format context that
// uses it. Members are destroyed in reverse order, so the format context is closed before its I/O.
struct MemoryInput {
  struct State;  // the ByteSource and the read position
  std::shared_ptr<State> state;
  UniqueAvio io;
  UniqueFormatContext ctx;
};

// open_input over the bytes of `source` (same whitelist, limits and deadline; errors name
// source.name()). The source's bytes must stay alive while the result exists (ByteSource copies share
// them, and the result holds a copy).
MemoryInput open_input(const ByteSource& source, const Limits& limits, Deadline& deadline);

}  // namespace loom::ffmpeg
