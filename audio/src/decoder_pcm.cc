// The direct PCM path: WAV-family files of little-endian integer or float samples read straight from their
// data (pread, or the source's bytes) and converted by accel/pcm.h, instead of through libsndfile's
// buffers and scalar loops. libsndfile still parses the header (decoder_sndfile.cc decides what comes
// here), so every header it accepts means the same frames; the samples equal its reads bit for bit.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <system_error>
#include <vector>

#include "audio_decoder.h"
#include "loom/codec/error.h"

namespace loom::audio::detail {
namespace {

class PcmDecoder final : public Decoder {
 public:
  PcmDecoder(const Input& input, UniqueFd fd, const PcmLayout& layout)
      : source_(input.source), fd_(std::move(fd)), name_(input.name()), layout_(layout) {
    sample_rate_ = layout.sample_rate;
    channels_ = layout.channels;
    num_frames_ = layout.frames;
    frames_ = layout.frames;
    switch (layout.encoding) {
      case accel::PcmEncoding::kU8: native_ = DType::kUInt8; break;
      case accel::PcmEncoding::kS16: native_ = DType::kInt16; break;
      case accel::PcmEncoding::kS24:
      case accel::PcmEncoding::kS32: native_ = DType::kInt32; break;
      case accel::PcmEncoding::kF32: native_ = DType::kFloat32; break;
    }
  }

  int64_t read(void* out, int64_t max_frames, bool normalize) override {
    const int64_t want = frames_left(max_frames);
    if (want == 0) return 0;
    if (!source_ && in_place(normalize)) return advance(want, pread_full(static_cast<uint8_t*>(out), want));
    const uint8_t* raw = nullptr;
    const int64_t got = advance(want, raw_frames(want, raw));
    convert(raw, samples(got), normalize, out);
    return got;
  }

  int64_t read_planar(void* const* rows, int64_t max_frames, bool normalize) override {
    const size_t element_bytes = normalize ? sizeof(float) : element_size(native_);
    // Blocks of about 256 KiB from the file (they stay in the L2 cache), converted in pieces of about
    // 16 KiB that stay in the L1 cache between the conversion and the split into rows.
    const int64_t block = std::max<int64_t>(1, static_cast<int64_t>((size_t{1} << 18) / frame_bytes()));
    const int64_t piece = std::max<int64_t>(1, 4096 / channels_);
    int64_t done = 0;
    while (done < max_frames) {
      const int64_t want = frames_left(std::min(block, max_frames - done));
      if (want == 0) break;
      const uint8_t* raw = nullptr;
      const int64_t got = advance(want, raw_frames(want, raw));
      for (int64_t p = 0; p < got; p += piece) {
        const int64_t n = std::min(piece, got - p);
        const uint8_t* src = raw + static_cast<size_t>(p) * frame_bytes();
        if (channels_ == 1) {
          convert(src, samples(n), normalize,
                  static_cast<uint8_t*>(rows[0]) + static_cast<size_t>(done + p) * element_bytes);
          continue;
        }
        // The split needs elements aligned to their size: a source's bytes at an odd data offset are not.
        const void* interleaved = src;
        if (!in_place(normalize) || reinterpret_cast<uintptr_t>(src) % element_bytes != 0) {
          piece_.resize(samples(piece) * element_bytes);
          convert(src, samples(n), normalize, piece_.data());
          interleaved = piece_.data();
        }
        deinterleave(interleaved, n, channels_, element_bytes, rows, done + p);
      }
      done += got;
      if (got < want) break;
    }
    return done;
  }

  void seek(int64_t frame) override { position_ = frame; }

 private:
  size_t frame_bytes() const { return static_cast<size_t>(channels_) * accel::pcm_bytes(layout_.encoding); }
  size_t samples(int64_t frames) const { return static_cast<size_t>(frames) * static_cast<size_t>(channels_); }
  int64_t frames_left(int64_t max_frames) const {
    return position_ >= frames_ || max_frames <= 0 ? 0 : std::min(max_frames, frames_ - position_);
  }
  // Whether the file's bytes are the output as they are: float samples read as float, or native integers
  // other than 24-bit.
  bool in_place(bool normalize) const {
    return layout_.encoding == accel::PcmEncoding::kF32 || (!normalize && layout_.encoding != accel::PcmEncoding::kS24);
  }
  // Moves the position past the `got` frames read of `want`; fewer means the data ends there.
  int64_t advance(int64_t want, int64_t got) {
    if (got < want) frames_ = position_ + got;  // what is there is what the file holds
    position_ += got;
    return got;
  }
  // The bytes of up to `want` frames at the position: in the source, or read into scratch_.
  int64_t raw_frames(int64_t want, const uint8_t*& raw) {
    const uint64_t offset =
        static_cast<uint64_t>(layout_.data_offset) + static_cast<uint64_t>(position_) * frame_bytes();
    if (source_) {
      raw = source_->data() + std::min<uint64_t>(offset, source_->size());
      const uint64_t available = offset < source_->size() ? source_->size() - offset : 0;
      return static_cast<int64_t>(std::min<uint64_t>(static_cast<uint64_t>(want), available / frame_bytes()));
    }
    scratch_.resize(static_cast<size_t>(want) * frame_bytes());
    raw = scratch_.data();
    return pread_full(scratch_.data(), want);
  }
  void convert(const uint8_t* raw, size_t n, bool normalize, void* out) const {
    if (in_place(normalize)) {
      if (n > 0) std::memcpy(out, raw, n * accel::pcm_bytes(layout_.encoding));
    } else if (normalize) {
      accel::pcm_to_float(raw, n, layout_.encoding, static_cast<float*>(out));
    } else {
      accel::s24_to_s32(raw, n, static_cast<int32_t*>(out));
    }
  }

  // Reads the bytes of up to `frames` frames at the position into `into`; returns the whole frames read,
  // fewer only at the end of the file (one truncated since it was opened). Error(kIo) naming the file
  // for a failed read.
  int64_t pread_full(uint8_t* into, int64_t frames) {
    const size_t n = static_cast<size_t>(frames) * frame_bytes();
    const auto offset = static_cast<off_t>(layout_.data_offset + position_ * static_cast<int64_t>(frame_bytes()));
    size_t done = 0;
    while (done < n) {
      const ssize_t r = ::pread(fd_.get(), into + done, n - done, offset + static_cast<off_t>(done));
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) {
        throw Error(ErrorCode::kIo, name_, fmt::format("cannot read: {}", std::generic_category().message(errno)));
      }
      if (r == 0) break;
      done += static_cast<size_t>(r);
    }
    return static_cast<int64_t>(done / frame_bytes());
  }

  std::optional<ByteSource> source_;  // the bytes, or
  UniqueFd fd_;                       // the file
  std::string name_;
  PcmLayout layout_;
  int64_t frames_ = 0;
  std::vector<uint8_t> scratch_;  // the file's bytes of one read
  std::vector<uint8_t> piece_;    // one piece converted, before the split into rows
};

}  // namespace

std::unique_ptr<Decoder> open_pcm(const Input& input, UniqueFd fd, const PcmLayout& layout) {
  return std::make_unique<PcmDecoder>(input, std::move(fd), layout);
}

}  // namespace loom::audio::detail
