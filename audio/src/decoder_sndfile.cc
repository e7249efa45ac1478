// libsndfile decoding for WAV/AIFF/AU/CAF/FLAC PCM-family files and Ogg/Vorbis.
#include <fmt/format.h>
#include <sndfile.h>

#include <fcntl.h>
#include <unistd.h>

#include <bit>
#include <cstring>
#include <fstream>
#include <optional>
#include <vector>

#include "audio_decoder.h"
#include "loom/codec/error.h"
#include "loom/codec/sniff.h"
#include "sndfile_memory.h"
#include "vorbis_headers.h"

namespace loom::audio::detail {
namespace {

using VirtualFile = SndfileMemory<ByteSource>;

bool served(const SF_INFO& info) {
  const int major = info.format & SF_FORMAT_TYPEMASK;
  const int sub = info.format & SF_FORMAT_SUBMASK;
  switch (major) {
    case SF_FORMAT_WAV:
    case SF_FORMAT_WAVEX:
    case SF_FORMAT_RF64:
    case SF_FORMAT_W64:
    case SF_FORMAT_AIFF:
    case SF_FORMAT_AU:
    case SF_FORMAT_CAF:
    case SF_FORMAT_FLAC:
    case SF_FORMAT_OGG: break;
    default: return false;
  }
  switch (sub) {
    case SF_FORMAT_PCM_S8:
    case SF_FORMAT_PCM_16:
    case SF_FORMAT_PCM_24:
    case SF_FORMAT_PCM_32:
    case SF_FORMAT_PCM_U8:
    case SF_FORMAT_FLOAT:
    case SF_FORMAT_DOUBLE:
    case SF_FORMAT_ULAW:
    case SF_FORMAT_ALAW:
    case SF_FORMAT_VORBIS: return true;
    default: return false;  // ADPCM, Opus, MP3, ...: FFmpeg
  }
}

// The direct PCM path's encoding for a file libsndfile opened (open_pcm), or nullopt: WAV, WAVEX, RF64
// and W64 of little-endian u8, s16, s24, s32 or float samples, on a little-endian host.
std::optional<accel::PcmEncoding> direct_encoding(const SF_INFO& info) {
  if constexpr (std::endian::native != std::endian::little) return std::nullopt;
  const int major = info.format & SF_FORMAT_TYPEMASK;
  const int endian = info.format & SF_FORMAT_ENDMASK;
  if ((major != SF_FORMAT_WAV && major != SF_FORMAT_WAVEX && major != SF_FORMAT_RF64 && major != SF_FORMAT_W64) ||
      (endian != SF_ENDIAN_FILE && endian != SF_ENDIAN_LITTLE)) {
    return std::nullopt;
  }
  switch (info.format & SF_FORMAT_SUBMASK) {
    case SF_FORMAT_PCM_U8: return accel::PcmEncoding::kU8;
    case SF_FORMAT_PCM_16: return accel::PcmEncoding::kS16;
    case SF_FORMAT_PCM_24: return accel::PcmEncoding::kS24;
    case SF_FORMAT_PCM_32: return accel::PcmEncoding::kS32;
    case SF_FORMAT_FLOAT: return accel::PcmEncoding::kF32;
    default: return std::nullopt;
  }
}

class SndfileDecoder final : public Decoder {
 public:
  SndfileDecoder(UniqueFd fd, std::unique_ptr<VirtualFile> vf, std::unique_ptr<SNDFILE, SndfileCloser> file,
                 const SF_INFO& info, std::string name)
      : fd_(std::move(fd)), vf_(std::move(vf)), file_(std::move(file)), name_(std::move(name)) {
    sample_rate_ = info.samplerate;
    channels_ = info.channels;
    frames_ = info.frames;
    num_frames_ = info.frames;
    sub_ = info.format & SF_FORMAT_SUBMASK;
    switch (sub_) {
      case SF_FORMAT_PCM_U8: native_ = DType::kUInt8; break;
      case SF_FORMAT_PCM_S8:
      case SF_FORMAT_PCM_16:
      case SF_FORMAT_ULAW:
      case SF_FORMAT_ALAW: native_ = DType::kInt16; break;
      case SF_FORMAT_PCM_24:
      case SF_FORMAT_PCM_32: native_ = DType::kInt32; break;
      case SF_FORMAT_DOUBLE: native_ = DType::kFloat64; break;
      default: native_ = DType::kFloat32; break;  // FLOAT, VORBIS
    }
  }

  int64_t read(void* out, int64_t max_frames, bool normalize) override {
    if (position_ >= frames_ || max_frames <= 0) return 0;
    const sf_count_t want = std::min<sf_count_t>(max_frames, frames_ - position_);
    sf_count_t got = 0;
    SNDFILE* f = file_.get();
    if (normalize) {
      got = sf_readf_float(f, static_cast<float*>(out), want);
    } else {
      switch (native_) {
        case DType::kUInt8: {
          // libsndfile reads u8 as (x - 128) << 8; undo it exactly (no loss: the low byte is 0).
          scratch_.resize(static_cast<size_t>(want * channels_));
          got = sf_readf_short(f, scratch_.data(), want);
          auto* o = static_cast<uint8_t*>(out);
          for (sf_count_t i = 0; i < got * channels_; ++i) o[i] = static_cast<uint8_t>((scratch_[i] >> 8) + 128);
          break;
        }
        case DType::kInt16: got = sf_readf_short(f, static_cast<short*>(out), want); break;
        case DType::kInt32: got = sf_readf_int(f, static_cast<int*>(out), want); break;
        case DType::kFloat64: got = sf_readf_double(f, static_cast<double*>(out), want); break;
        default: got = sf_readf_float(f, static_cast<float*>(out), want); break;
      }
    }
    if (got < want) {
      const int err = sf_error(f);
      if (err != SF_ERR_NO_ERROR) {
        throw Error(ErrorCode::kInvalidInput, name_,
                    fmt::format("corrupt audio data near frame {}: {}", position_ + got, sf_strerror(f)));
      }
      frames_ = position_ + got;  // the data ends early: what is there is what the file holds
    }
    position_ += got;
    return got;
  }

  void seek(int64_t frame) override {
    if (frame >= frames_) {
      position_ = frame;
      return;
    }
    if (sub_ == SF_FORMAT_VORBIS) {
      // libsndfile's Vorbis seek is not sample-exact near the end of a stream (its output differs from a
      // full decode there), so seek by decoding: forward from here, backward from the start.
      if (frame < position_) {
        if (sf_seek(file_.get(), 0, SEEK_SET) != 0) {
          throw Error(ErrorCode::kInvalidInput, name_,
                      fmt::format("cannot seek to the start: {}", sf_strerror(file_.get())));
        }
        position_ = 0;
      }
      scratch_float_.resize(static_cast<size_t>(4096) * static_cast<size_t>(channels_));
      while (position_ < frame) {
        if (read(scratch_float_.data(), std::min<int64_t>(4096, frame - position_), true) == 0) {
          position_ = frame;
          break;
        }
      }
      return;
    }
    if (sf_seek(file_.get(), frame, SEEK_SET) != frame) {
      throw Error(ErrorCode::kInvalidInput, name_,
                  fmt::format("cannot seek to frame {}: {}", frame, sf_strerror(file_.get())));
    }
    position_ = frame;
  }

 private:
  UniqueFd fd_;                      // the file libsndfile reads (path inputs), or
  std::unique_ptr<VirtualFile> vf_;  // the bytes (sources); both outlive file_ (declared first)
  std::unique_ptr<SNDFILE, SndfileCloser> file_;
  std::string name_;
  int64_t frames_ = 0;
  int sub_ = 0;
  std::vector<short> scratch_;
  std::vector<float> scratch_float_;
};

}  // namespace

std::unique_ptr<Decoder> open_sndfile(const Input& input, const Limits&) {
  // Formats that loom's sniffer names and libsndfile does not serve go straight to FFmpeg (libsndfile's
  // MP3 reader would also print warnings of its own on stderr).
  const Format sniffed = input.source
                             ? sniff_format(input.source->bytes().first(std::min<size_t>(input.source->size(), 512)))
                             : sniff_file(input.path);
  if (sniffed != Format::kUnknown && sniffed != Format::kWav && sniffed != Format::kAiff && sniffed != Format::kFlac &&
      sniffed != Format::kAu && sniffed != Format::kOgg) {
    return nullptr;
  }
  if (sniffed == Format::kOgg) {
    // Broken Vorbis headers make libsndfile leak (vorbis_headers.h): FFmpeg reports them instead.
    size_t pos = 0;
    std::ifstream file;
    if (!input.source) file.open(input.path, std::ios::binary);
    const bool ok = vorbis_headers_ok([&](uint8_t* out, size_t n) -> size_t {
      if (input.source) {
        n = std::min(n, input.source->size() - pos);
        std::memcpy(out, input.source->data() + pos, n);
        pos += n;
        return n;
      }
      file.read(reinterpret_cast<char*>(out), static_cast<std::streamsize>(n));
      return static_cast<size_t>(file.gcount());
    });
    if (!ok) return nullptr;
  }
  SF_INFO info{};
  UniqueFd fd;
  std::unique_ptr<VirtualFile> vf;
  SNDFILE* raw = nullptr;
  if (input.source) {
    vf = std::make_unique<VirtualFile>(VirtualFile{*input.source, 0});
    SF_VIRTUAL_IO io = VirtualFile::io();
    raw = sf_open_virtual(&io, SFM_READ, &info, vf.get());
  } else {
    fd.reset(::open(input.path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd) return nullptr;  // FFmpeg's open reports why
    raw = sf_open_fd(fd.get(), SFM_READ, &info, SF_FALSE);
  }
  if (raw == nullptr) return nullptr;  // not a format libsndfile knows: FFmpeg gets its turn
  std::unique_ptr<SNDFILE, SndfileCloser> file(raw);
  if (!served(info) || info.frames < 0) return nullptr;
  if (const std::optional<accel::PcmEncoding> encoding = direct_encoding(info)) {
    // libsndfile leaves the file at the start of the samples when it has parsed the header.
    const int64_t offset = input.source ? vf->pos : static_cast<int64_t>(::lseek(fd.get(), 0, SEEK_CUR));
    if (offset > 0) {
      file.reset();
      return open_pcm(input, std::move(fd), {offset, info.frames, info.channels, info.samplerate, *encoding});
    }
  }
  return std::make_unique<SndfileDecoder>(std::move(fd), std::move(vf), std::move(file), info, input.name());
}

}  // namespace loom::audio::detail
