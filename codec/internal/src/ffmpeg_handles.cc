#include "loom/codec/internal/ffmpeg_handles.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <mutex>

#include "loom/codec/internal/regular_file.h"
#include "loom/codec/internal/riff_chunks.h"
#include "loom/codec/internal/unique_fd.h"

namespace loom::ffmpeg {
namespace {

// Demuxers for local media files. Anything that can name other files or URLs (hls, dash, concat,
// image2 sequences, sdp, rtsp, ...) is absent on purpose.
constexpr const char* kFormatWhitelist =
    "mov,mp4,m4a,3gp,3g2,mj2,matroska,webm,avi,mpegts,mpeg,mpegvideo,ogg,wav,w64,aiff,flac,mp3,aac,au,caf,"
    "ivf,h264,hevc,m4v,flv,asf,nut,amr,ac3,eac3,dts,truehd,wv,ape,tta,voc,mxf,gif,webp_pipe,apng";

int interrupt_callback(void* opaque) {
  return static_cast<Deadline*>(opaque)->expired() ? 1 : 0;
}

}  // namespace

std::string error_string(int errnum) {
  char buf[AV_ERROR_MAX_STRING_SIZE] = {};
  av_strerror(errnum, buf, sizeof(buf));
  return buf;
}

void open_encoder(AVCodecContext* ctx, const std::map<std::string, std::string>& options, const std::string& output) {
  AVDictionary* dict = nullptr;
  for (const auto& [k, v] : options) av_dict_set(&dict, k.c_str(), v.c_str(), 0);
  const std::string name = ctx->codec->name;  // avcodec_open2 clears ctx->codec when it fails
  const int r = avcodec_open2(ctx, ctx->codec, &dict);
  const UniqueDictionary left(dict);
  if (r < 0) {
    const ErrorCode code = r == AVERROR(ENOMEM) ? ErrorCode::kLimitExceeded : ErrorCode::kInvalidInput;
    throw Error(code, output, fmt::format("cannot open encoder {}: {}", name, error_string(r)));
  }
  if (const AVDictionaryEntry* e = av_dict_get(left.get(), "", nullptr, AV_DICT_IGNORE_SUFFIX)) {
    throw Error(ErrorCode::kInvalidInput, output, fmt::format("encoder {} has no option '{}'", name, e->key));
  }
}

void throw_error(int errnum, const std::string& input, const std::string& what) {
  ErrorCode code = ErrorCode::kInvalidInput;
  if (errnum == AVERROR_EXIT) {
    throw Error(ErrorCode::kLimitExceeded, input, what + ": deadline exceeded");
  }
  if (errnum == AVERROR(ENOENT) || errnum == AVERROR(EACCES) || errnum == AVERROR(EISDIR) || errnum == AVERROR(EIO)) {
    code = ErrorCode::kIo;
  } else if (errnum == AVERROR_PROTOCOL_NOT_FOUND || errnum == AVERROR_DECODER_NOT_FOUND ||
             errnum == AVERROR_DEMUXER_NOT_FOUND || errnum == AVERROR_PATCHWELCOME) {
    code = ErrorCode::kUnsupported;
  } else if (errnum == AVERROR(ENOMEM)) {
    code = ErrorCode::kLimitExceeded;
  }
  throw Error(code, input, fmt::format("{}: {}", what, error_string(errnum)));
}

void quiet_logging() {
  static std::once_flag quiet;
  std::call_once(quiet, [] { av_log_set_level(AV_LOG_QUIET); });
}

UniqueAvio make_avio(int buffer_size, void* opaque, int (*read)(void*, uint8_t*, int),
                     int (*write)(void*, uint8_t*, int), int64_t (*seek)(void*, int64_t, int)) {
  auto* buffer = static_cast<unsigned char*>(av_malloc(static_cast<size_t>(buffer_size)));
  if (buffer == nullptr) throw std::bad_alloc();
  AVIOContext* io = avio_alloc_context(buffer, buffer_size, write != nullptr ? 1 : 0, opaque, read, write, seek);
  if (io == nullptr) {
    av_free(buffer);
    throw std::bad_alloc();
  }
  return UniqueAvio(io);
}

namespace {

// Shared by both open_input overloads: `pb` is a custom AVIOContext or nullptr for a file path.
UniqueFormatContext open_with(const std::string& path, const std::string& url, AVIOContext* pb, const Limits& limits,
                              Deadline& deadline) {
  quiet_logging();
  AVFormatContext* raw = avformat_alloc_context();
  if (raw == nullptr) throw std::bad_alloc();
  raw->interrupt_callback = {interrupt_callback, &deadline};
  if (pb != nullptr) {
    raw->pb = pb;
    raw->flags |= AVFMT_FLAG_CUSTOM_IO;
  }
  raw->max_streams = limits.max_streams;
  AVDictionary* opts = nullptr;
  av_dict_set(&opts, "protocol_whitelist", "file", 0);
  av_dict_set(&opts, "format_whitelist", kFormatWhitelist, 0);
  av_dict_set_int(&opts, "probesize", limits.probe_bytes, 0);
  av_dict_set_int(&opts, "analyzeduration", static_cast<int64_t>(limits.analyze_seconds * AV_TIME_BASE), 0);
  UniqueDictionary owned_opts(opts);
  AVDictionary* o = owned_opts.release();
  // avformat_open_input frees `raw` itself on failure.
  const int ret = avformat_open_input(&raw, url.c_str(), nullptr, &o);
  owned_opts.reset(o);
  if (ret == AVERROR_INVALIDDATA) throw Error(ErrorCode::kInvalidInput, path, "not a media file FFmpeg can read");
  if (ret == AVERROR(EINVAL) && raw == nullptr) {
    // Format found but rejected by the whitelist.
    throw Error(ErrorCode::kUnsupported, path, "container format is not allowed (only local media files are)");
  }
  if (ret == AVERROR(ENOMEM)) {
    // What FFmpeg returns past max_streams (or when memory really runs out).
    throw Error(ErrorCode::kLimitExceeded, path,
                fmt::format("cannot open: more than {} streams, or out of memory", limits.max_streams));
  }
  // Reading from memory cannot fail: an I/O error there means the bytes ended inside a header.
  if (ret == AVERROR(EIO) && pb != nullptr) throw Error(ErrorCode::kInvalidInput, path, "cannot open: truncated");
  if (ret < 0) throw_error(ret, path, "cannot open");
  UniqueFormatContext ctx(raw);
  const int info = avformat_find_stream_info(ctx.get(), nullptr);
  if (info < 0) throw_error(info, path, "cannot read stream information");
  // An interrupted avformat_find_stream_info can return success with the streams' parameters unset
  // (0 channels, 0 Hz): report the deadline, not a broken file.
  if (deadline.expired()) throw_error(AVERROR_EXIT, path, "cannot read stream information");
  if (ctx->nb_streams == 0) throw Error(ErrorCode::kInvalidInput, path, "holds no streams");
  return ctx;
}

}  // namespace

namespace {

// check_riff_chunks on the file at `path` (a regular file, or one that cannot be opened: FFmpeg's own
// open then reports that).
void check_riff_chunks_of(const std::string& path) {
  const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat st {};
  if (!fd || ::fstat(fd.get(), &st) != 0) return;
  check_riff_chunks(
      [&fd](uint64_t offset, uint8_t* buffer, size_t n) {
        const ssize_t got = ::pread(fd.get(), buffer, n, static_cast<off_t>(offset));
        return got > 0 ? static_cast<size_t>(got) : size_t{0};
      },
      static_cast<uint64_t>(st.st_size), path);
}

}  // namespace

UniqueFormatContext open_input(const std::string& path, const Limits& limits, Deadline& deadline) {
  require_regular_file(path);  // FFmpeg's file protocol would block in open() on a FIFO
  check_riff_chunks_of(path);
  // "file:" keeps a path with a colon from being read as a protocol name.
  return open_with(path, "file:" + path, nullptr, limits, deadline);
}

struct MemoryInput::State {
  ByteSource source;
  size_t pos = 0;
};

namespace {

int memory_read(void* opaque, uint8_t* buf, int size) {
  auto* s = static_cast<MemoryInput::State*>(opaque);
  const size_t n = std::min(static_cast<size_t>(size), s->source.size() - s->pos);
  if (n == 0) return AVERROR_EOF;
  std::memcpy(buf, s->source.data() + s->pos, n);
  s->pos += n;
  return static_cast<int>(n);
}

int64_t memory_seek(void* opaque, int64_t offset, int whence) {
  auto* s = static_cast<MemoryInput::State*>(opaque);
  const auto size = static_cast<int64_t>(s->source.size());
  whence &= ~AVSEEK_FORCE;
  if (whence == AVSEEK_SIZE) return size;
  int64_t target = offset;
  if (whence == SEEK_CUR)
    target += static_cast<int64_t>(s->pos);
  else if (whence == SEEK_END)
    target += size;
  else if (whence != SEEK_SET)
    return AVERROR(EINVAL);
  if (target < 0 || target > size) return AVERROR(EINVAL);
  s->pos = static_cast<size_t>(target);
  return target;
}

}  // namespace

MemoryInput open_input(const ByteSource& source, const Limits& limits, Deadline& deadline) {
  check_riff_chunks(
      [&source](uint64_t offset, uint8_t* buffer, size_t n) {
        if (offset >= source.size()) return size_t{0};
        const size_t got = std::min<uint64_t>(n, source.size() - offset);
        std::memcpy(buffer, source.data() + offset, got);
        return got;
      },
      source.size(), source.name());
  MemoryInput in;
  in.state = std::make_shared<MemoryInput::State>(MemoryInput::State{source, 0});
  in.io = make_avio(64 * 1024, in.state.get(), memory_read, nullptr, memory_seek);
  in.ctx = open_with(source.name(), source.name(), in.io.get(), limits, deadline);
  return in;
}

}  // namespace loom::ffmpeg
