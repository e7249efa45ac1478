// Private decoder interface shared by load(), decode() and AudioReader: libsndfile for the PCM/FLAC/
// Vorbis families, FFmpeg for everything else.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "loom/accel/pcm.h"
#include "loom/codec/byte_source.h"
#include "loom/codec/internal/unique_fd.h"
#include "loom/codec/limits.h"
#include "loom/codec/tensor.h"

namespace loom::audio::detail {

// Where the encoded bytes come from: a file path (read through the OS, never whole) or a ByteSource.
struct Input {
  std::filesystem::path path;  // used when source is empty
  std::optional<ByteSource> source;
  std::string name() const { return source ? source->name() : path.string(); }
};

class Decoder {
 public:
  virtual ~Decoder() = default;
  int sample_rate() const { return sample_rate_; }
  int channels() const { return channels_; }
  // dtype of read(normalize = false).
  DType native_dtype() const { return native_; }
  // Exact frame count when known before decoding, else nullopt.
  std::optional<int64_t> num_frames() const { return num_frames_; }
  int64_t position() const { return position_; }
  // A guess of the frame count from the container (duration times rate) when num_frames() is unknown; used
  // only to size load()'s first output block (checked against the input's size), never trusted.
  virtual std::optional<int64_t> estimated_frames() const { return num_frames_; }

  // Reads up to `max_frames` interleaved frames into `out` (room for max_frames * channels() elements
  // of float32 when normalize, native_dtype() otherwise). Returns the frames read; 0 only at the end.
  virtual int64_t read(void* out, int64_t max_frames, bool normalize) = 0;
  // The same frames, planar: channel c's samples go to rows[c][0], rows[c][1], ... (each row with room
  // for max_frames elements). The default reads interleaved pieces into a small scratch buffer and splits
  // them; decoders whose frames are planar already override it.
  virtual int64_t read_planar(void* const* rows, int64_t max_frames, bool normalize);
  // Exact seek; past the end, read() returns 0.
  virtual void seek(int64_t frame) = 0;

 protected:
  int sample_rate_ = 0;
  int channels_ = 0;
  DType native_ = DType::kFloat32;
  std::optional<int64_t> num_frames_;
  int64_t position_ = 0;

 private:
  std::vector<uint8_t> planar_scratch_;  // read_planar's default
};

// Interleaved [frames, channels] elements of `element_bytes` (1, 2, 4 or 8) at `src` -> rows[c][offset + i].
void deinterleave(const void* src, int64_t frames, int channels, size_t element_bytes, void* const* rows,
                  int64_t offset);

// libsndfile when it recognises the input as one of the formats it serves, else nullptr. WAV-family
// files of plain little-endian samples go to open_pcm with the layout libsndfile found.
std::unique_ptr<Decoder> open_sndfile(const Input& input, const Limits& limits);

// Where the samples of a PCM WAV-family file are: `frames` frames of `channels` interleaved samples of
// `encoding` from byte `data_offset` on (as libsndfile parsed the header).
struct PcmLayout {
  int64_t data_offset = 0;
  int64_t frames = 0;
  int channels = 0;
  int sample_rate = 0;
  accel::PcmEncoding encoding = accel::PcmEncoding::kS16;
};
// Reads them straight from `fd` (input.path opened), or from input.source's bytes (fd unused).
std::unique_ptr<Decoder> open_pcm(const Input& input, UniqueFd fd, const PcmLayout& layout);
// FFmpeg; throws loom::Error when the input cannot be decoded.
std::unique_ptr<Decoder> open_ffmpeg(const Input& input, int stream_index, const Limits& limits);

// Throws unless a stream's channels and rate are positive and within the limits (load, reader and info).
void check_stream(const std::string& name, int channels, int sample_rate, const Limits& limits);

// open_sndfile, else open_ffmpeg; checks the stream index, channels and rate against the limits.
std::unique_ptr<Decoder> open_decoder(const Input& input, int stream_index, const Limits& limits);

}  // namespace loom::audio::detail
