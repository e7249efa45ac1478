// Streaming audio decoding: chunks of a long file with flat memory (the decoded whole is never held).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>

#include "loom/codec/api.h"
#include "loom/codec/byte_source.h"
#include "loom/codec/limits.h"
#include "loom/codec/tensor.h"

LOOM_API_BEGIN

namespace loom::audio {

struct ReaderOptions {
  bool normalize = true;       // as LoadOptions::normalize (the same dtypes)
  bool channels_first = true;  // chunks are [channels, frames] (true) or [frames, channels] (false)
  int stream_index = -1;       // as LoadOptions::stream_index
  // max_audio_channels / max_sample_rate refuse streams; deadline_seconds bounds each FFmpeg call of
  // the constructor and of each read()/seek(); max_bytes bounds one chunk (the file size is not limited:
  // the reader never holds the whole file).
  Limits limits;
};

// Decodes one audio stream chunk by chunk, through the same decoders as load() and with the same sample
// values: concatenating every chunk equals load() of the whole file. Memory stays flat: the decoder's
// buffers are reused between calls; each read() allocates only the returned chunk.
// Errors are those of load() (loom::Error naming the input), thrown by the constructor or by read().
// Thread safety: one reader is used by one thread at a time; distinct readers are independent.
class AudioReader {
 public:
  // Reads the file at `path` (not memory-mapped, never read whole).
  explicit AudioReader(const std::filesystem::path& path, const ReaderOptions& options = {});
  // Reads encoded bytes in memory; the reader keeps a copy of `source` (sharing its bytes).
  explicit AudioReader(const ByteSource& source, const ReaderOptions& options = {});
  ~AudioReader();
  AudioReader(AudioReader&&) noexcept;
  AudioReader& operator=(AudioReader&&) noexcept;

  int sample_rate() const;  // Hz
  int channels() const;
  // Frames per channel of the whole stream when exactly known before decoding (libsndfile-decoded files);
  // std::nullopt for FFmpeg-decoded streams, whose exact count is only known once decoded.
  std::optional<int64_t> num_frames() const;
  // The next frame read() returns, counted from the first decoded sample.
  int64_t position() const;

  // The next up to `max_frames` frames (max_frames > 0, else Error(kInvalidInput)); fewer only at the
  // end of the stream, and 0 frames (a defined tensor of shape [channels, 0] / [0, channels]) once the
  // end is reached.
  Tensor read(int64_t max_frames);

  // Moves to `frame` (>= 0) exactly: the next read() starts with that sample. A frame past the end makes
  // the next read() return 0 frames. FFmpeg-decoded streams seek forward by decoding and discarding,
  // and backward by decoding again from the start.
  void seek(int64_t frame);

 private:
  struct LOOM_HIDDEN Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace loom::audio

LOOM_API_END
