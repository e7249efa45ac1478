// load(), decode() and AudioReader over the private decoders (audio_decoder.h).
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <system_error>
#include <vector>

#include "audio_decoder.h"
#include "loom/audio/load.h"
#include "loom/audio/reader.h"
#include "loom/codec/error.h"

namespace loom::audio {
namespace detail {

std::unique_ptr<Decoder> open_decoder(const Input& input, int stream_index, const Limits& limits) {
  const std::string name = input.name();
  if (stream_index < -1) throw Error(ErrorCode::kInvalidInput, name, fmt::format("stream index {}", stream_index));
  if (!input.source) {
    std::error_code ec;
    const auto status = std::filesystem::status(input.path, ec);
    if (ec || !std::filesystem::exists(status)) {
      throw Error(ErrorCode::kIo, name, "cannot open: no such file");
    }
    if (!std::filesystem::is_regular_file(status)) throw Error(ErrorCode::kIo, name, "cannot open: not a regular file");
  } else if (input.source->size() == 0) {
    throw Error(ErrorCode::kInvalidInput, name, "is empty (0 bytes)");
  }
  std::unique_ptr<Decoder> d = open_sndfile(input, limits);
  if (d != nullptr && stream_index > 0) {
    throw Error(ErrorCode::kInvalidInput, name, fmt::format("stream {} is not an audio stream (the file has one stream)",
                                                            stream_index));
  }
  if (d == nullptr) d = open_ffmpeg(input, stream_index, limits);
  if (d->channels() <= 0 || d->sample_rate() <= 0) {
    throw Error(ErrorCode::kInvalidInput, name,
                fmt::format("audio stream has {} channels at {} Hz", d->channels(), d->sample_rate()));
  }
  if (d->channels() > limits.max_audio_channels || d->sample_rate() > limits.max_sample_rate) {
    throw Error(ErrorCode::kLimitExceeded, name,
                fmt::format("audio stream of {} channels at {} Hz exceeds the limits ({} channels, {} Hz)",
                            d->channels(), d->sample_rate(), limits.max_audio_channels, limits.max_sample_rate));
  }
  return d;
}

}  // namespace detail

namespace {

// Interleaved [frames, channels] bytes -> contiguous tensor in the requested layout.
Tensor to_tensor(const uint8_t* data, int64_t frames, int channels, DType dtype, bool channels_first) {
  if (!channels_first || channels == 1 || frames == 0) {
    Tensor t = channels_first ? Tensor::empty({channels, frames}, dtype) : Tensor::empty({frames, channels}, dtype);
    if (frames > 0) std::memcpy(t.data(), data, t.nbytes());
    return t;
  }
  const int64_t shape[2] = {frames, channels};
  const Tensor interleaved = Tensor::from_blob(const_cast<uint8_t*>(data), shape, {}, dtype);
  Tensor t = Tensor::empty({channels, frames}, dtype);
  t.copy_from(interleaved.permute({1, 0}));
  return t;
}

void check_output_size(const Limits& limits, const std::string& name, int64_t frames, int channels, DType dtype) {
  if (limits.max_bytes == 0) return;
  const auto bytes = static_cast<uint64_t>(frames) * static_cast<uint64_t>(channels) * element_size(dtype);
  if (bytes > limits.max_bytes) {
    throw Error(ErrorCode::kLimitExceeded, name,
                fmt::format("decoded audio exceeds the limit of {} bytes (Limits::max_bytes)", limits.max_bytes));
  }
}

Audio load_from(const detail::Input& input, const LoadOptions& o) {
  const std::string name = input.name();
  if (o.frame_offset < 0 || o.num_frames < -1) {
    throw Error(ErrorCode::kInvalidInput, name,
                fmt::format("frame_offset {} and num_frames {}: need frame_offset >= 0 and num_frames >= -1",
                            o.frame_offset, o.num_frames));
  }
  if (!input.source && o.limits.max_bytes != 0) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(input.path, ec);
    if (!ec && size > o.limits.max_bytes) {
      throw Error(ErrorCode::kLimitExceeded, name,
                  fmt::format("file of {} bytes exceeds the limit of {} bytes (Limits::max_bytes)", size,
                              o.limits.max_bytes));
    }
  }
  std::unique_ptr<detail::Decoder> d = detail::open_decoder(input, o.stream_index, o.limits);
  const int channels = d->channels();
  const DType dtype = o.normalize ? DType::kFloat32 : d->native_dtype();
  const size_t frame_bytes = static_cast<size_t>(channels) * element_size(dtype);
  if (o.frame_offset > 0) d->seek(o.frame_offset);
  // Grows with what is decoded; never sized from the header.
  std::vector<uint8_t> buffer;
  int64_t frames = 0;
  // Chunks of at most 4 MiB (and 65536 frames), so that the buffer never runs far ahead of the data.
  const int64_t chunk = std::clamp<int64_t>(static_cast<int64_t>((size_t{4} << 20) / frame_bytes), 1, 1 << 16);
  while (o.num_frames < 0 || frames < o.num_frames) {
    const int64_t want = o.num_frames < 0 ? chunk : std::min(chunk, o.num_frames - frames);
    buffer.resize(static_cast<size_t>(frames + want) * frame_bytes);
    const int64_t got = d->read(buffer.data() + static_cast<size_t>(frames) * frame_bytes, want, o.normalize);
    frames += got;
    check_output_size(o.limits, name, frames, channels, dtype);
    if (got == 0) break;
  }
  return {to_tensor(buffer.data(), frames, channels, dtype, o.channels_first), d->sample_rate()};
}

}  // namespace

Audio load(const std::filesystem::path& path, const LoadOptions& options) {
  detail::Input input;
  input.path = path;
  return load_from(input, options);
}

Audio decode(const ByteSource& source, const LoadOptions& options) {
  detail::Input input;
  input.source = source;
  if (options.limits.max_bytes != 0 && source.size() > options.limits.max_bytes) {
    throw Error(ErrorCode::kLimitExceeded, source.name(),
                fmt::format("input of {} bytes exceeds the limit of {} bytes (Limits::max_bytes)", source.size(),
                            options.limits.max_bytes));
  }
  return load_from(input, options);
}

// ---- AudioReader ----

struct AudioReader::Impl {
  std::string name;
  ReaderOptions options;
  std::unique_ptr<detail::Decoder> decoder;
  std::vector<uint8_t> buffer;  // reused between reads
};

AudioReader::AudioReader(const std::filesystem::path& path, const ReaderOptions& options)
    : impl_(std::make_unique<Impl>()) {
  detail::Input input;
  input.path = path;
  impl_->name = input.name();
  impl_->options = options;
  impl_->decoder = detail::open_decoder(input, options.stream_index, options.limits);
}

AudioReader::AudioReader(const ByteSource& source, const ReaderOptions& options) : impl_(std::make_unique<Impl>()) {
  detail::Input input;
  input.source = source;
  impl_->name = input.name();
  impl_->options = options;
  impl_->decoder = detail::open_decoder(input, options.stream_index, options.limits);
}

AudioReader::~AudioReader() = default;
AudioReader::AudioReader(AudioReader&&) noexcept = default;
AudioReader& AudioReader::operator=(AudioReader&&) noexcept = default;

int AudioReader::sample_rate() const { return impl_->decoder->sample_rate(); }
int AudioReader::channels() const { return impl_->decoder->channels(); }
std::optional<int64_t> AudioReader::num_frames() const { return impl_->decoder->num_frames(); }
int64_t AudioReader::position() const { return impl_->decoder->position(); }

Tensor AudioReader::read(int64_t max_frames) {
  if (max_frames <= 0) {
    throw Error(ErrorCode::kInvalidInput, impl_->name, fmt::format("read of {} frames: need > 0", max_frames));
  }
  detail::Decoder& d = *impl_->decoder;
  const ReaderOptions& o = impl_->options;
  const DType dtype = o.normalize ? DType::kFloat32 : d.native_dtype();
  check_output_size(o.limits, impl_->name, max_frames, d.channels(), dtype);
  const size_t bytes = static_cast<size_t>(max_frames) * static_cast<size_t>(d.channels()) * element_size(dtype);
  if (impl_->buffer.size() < bytes) impl_->buffer.resize(bytes);
  const int64_t got = d.read(impl_->buffer.data(), max_frames, o.normalize);
  return to_tensor(impl_->buffer.data(), got, d.channels(), dtype, o.channels_first);
}

void AudioReader::seek(int64_t frame) {
  if (frame < 0) throw Error(ErrorCode::kInvalidInput, impl_->name, fmt::format("seek to frame {}", frame));
  impl_->decoder->seek(frame);
}

}  // namespace loom::audio
