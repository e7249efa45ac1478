// load(), decode() and AudioReader over the private decoders (audio_decoder.h).
#include "loom/audio/load.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <system_error>
#include <vector>

#include "audio_decoder.h"
#include "loom/accel/interleave.h"
#include "loom/audio/reader.h"
#include "loom/codec/error.h"
#include "loom/codec/internal/regular_file.h"

namespace loom::audio {
namespace detail {

void check_stream(const std::string& name, int channels, int sample_rate, const Limits& limits) {
  if (channels <= 0 || sample_rate <= 0) {
    throw Error(ErrorCode::kInvalidInput, name,
                fmt::format("audio stream has {} channels at {} Hz", channels, sample_rate));
  }
  if (channels > limits.max_audio_channels || sample_rate > limits.max_sample_rate) {
    throw Error(ErrorCode::kLimitExceeded, name,
                fmt::format("audio stream of {} channels at {} Hz exceeds the limits ({} channels, {} Hz)", channels,
                            sample_rate, limits.max_audio_channels, limits.max_sample_rate));
  }
}

std::unique_ptr<Decoder> open_decoder(const Input& input, int stream_index, const Limits& limits) {
  const std::string name = input.name();
  if (stream_index < -1) throw Error(ErrorCode::kInvalidInput, name, fmt::format("stream index {}", stream_index));
  if (!input.source) {
    std::error_code ec;
    const auto status = std::filesystem::status(input.path, ec);
    if (ec || !std::filesystem::exists(status)) {
      throw Error(ErrorCode::kIo, name, "cannot open: no such file");
    }
    require_regular_file(input.path);
  } else if (input.source->size() == 0) {
    throw Error(ErrorCode::kInvalidInput, name, "is empty (0 bytes)");
  }
  std::unique_ptr<Decoder> d = open_sndfile(input, limits);
  if (d != nullptr && stream_index > 0) {
    throw Error(ErrorCode::kInvalidInput, name,
                fmt::format("stream {} is not an audio stream (the file has one stream)", stream_index));
  }
  if (d == nullptr) d = open_ffmpeg(input, stream_index, limits);
  check_stream(name, d->channels(), d->sample_rate(), limits);
  return d;
}

void deinterleave(const void* src, int64_t frames, int channels, size_t element_bytes, void* const* rows,
                  int64_t offset) {
  void* small[16];  // the rows `offset` elements in; on the stack for up to 16 channels
  std::vector<void*> large;
  void** planes = small;
  if (channels > 16) {
    large.resize(static_cast<size_t>(channels));
    planes = large.data();
  }
  const auto skip = static_cast<size_t>(offset) * element_bytes;
  for (int c = 0; c < channels; ++c) planes[c] = static_cast<uint8_t*>(rows[c]) + skip;
  accel::deinterleave(src, static_cast<size_t>(frames), channels, element_bytes, planes);
}

int64_t Decoder::read_planar(void* const* rows, int64_t max_frames, bool normalize) {
  if (channels_ == 1) return read(rows[0], max_frames, normalize);
  const size_t element_bytes = normalize ? sizeof(float) : element_size(native_);
  // Pieces small enough to stay in the L1/L2 cache between the decoder's write and the split.
  const int64_t piece = std::max<int64_t>(1, 16384 / channels_);
  const size_t piece_bytes = static_cast<size_t>(piece) * static_cast<size_t>(channels_) * element_bytes;
  if (planar_scratch_.size() < piece_bytes) planar_scratch_.resize(piece_bytes);
  int64_t done = 0;
  while (done < max_frames) {
    const int64_t got = read(planar_scratch_.data(), std::min(piece, max_frames - done), normalize);
    if (got == 0) break;
    deinterleave(planar_scratch_.data(), got, channels_, element_bytes, rows, done);
    done += got;
  }
  return done;
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
  Tensor t = Tensor::empty({channels, frames}, dtype);
  const size_t element_bytes = element_size(dtype);
  std::vector<void*> rows(static_cast<size_t>(channels));
  for (int c = 0; c < channels; ++c)
    rows[c] = static_cast<uint8_t*>(t.data()) + static_cast<size_t>(c * frames) * element_bytes;
  detail::deinterleave(data, frames, channels, element_bytes, rows.data(), 0);
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

// Decoded samples in the final layout, in one or more blocks: [channels, capacity] (channels_first) or
// [capacity, channels]. The first block is the output tensor itself when the header's frame count is
// plausible, so that a file whose data matches its header is decoded straight into the result.
struct Block {
  Tensor t;
  int64_t capacity = 0;
  int64_t used = 0;
};

Audio load_from(const detail::Input& input, const LoadOptions& o) {
  const std::string name = input.name();
  if (o.frame_offset < 0 || o.num_frames < -1) {
    throw Error(ErrorCode::kInvalidInput, name,
                fmt::format("frame_offset {} and num_frames {}: need frame_offset >= 0 and num_frames >= -1",
                            o.frame_offset, o.num_frames));
  }
  uint64_t input_bytes = input.source ? input.source->size() : 0;
  if (!input.source) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(input.path, ec);
    if (!ec) input_bytes = size;
    if (!ec && o.limits.max_bytes != 0 && size > o.limits.max_bytes) {
      throw Error(
          ErrorCode::kLimitExceeded, name,
          fmt::format("file of {} bytes exceeds the limit of {} bytes (Limits::max_bytes)", size, o.limits.max_bytes));
    }
  }
  std::unique_ptr<detail::Decoder> d = detail::open_decoder(input, o.stream_index, o.limits);
  const int channels = d->channels();
  const DType dtype = o.normalize ? DType::kFloat32 : d->native_dtype();
  const size_t element_bytes = element_size(dtype);
  const size_t frame_bytes = static_cast<size_t>(channels) * element_bytes;
  if (o.frame_offset > 0) d->seek(o.frame_offset);
  auto make_block = [&](int64_t capacity) {
    Block b;
    b.capacity = capacity;
    b.t = o.channels_first ? Tensor::empty({channels, capacity}, dtype) : Tensor::empty({capacity, channels}, dtype);
    return b;
  };
  std::vector<Block> blocks;
  bool from_header = false;  // blocks[0] holds exactly the frames the header announces
  // The header's frame count (or, for FFmpeg, the container's duration) sizes the first block only while it
  // is plausible for the input's size (64 bytes of output per input byte covers u8 and A-law to float32 and
  // Vorbis above ~90 kbit/s) and within max_bytes; the decoded data, never the header, decides the result's
  // length.
  const std::optional<int64_t> exact = d->num_frames();
  int64_t header_capacity = 0;
  if (const std::optional<int64_t> header = exact ? exact : d->estimated_frames()) {
    int64_t expected = std::max<int64_t>(0, *header - o.frame_offset);
    if (o.num_frames >= 0) expected = std::min(expected, o.num_frames);
    const auto bytes = static_cast<uint64_t>(expected) * frame_bytes;
    const uint64_t plausible = input_bytes * 64 + (uint64_t{1} << 20);
    if (expected > 0 && bytes <= plausible && (o.limits.max_bytes == 0 || bytes <= o.limits.max_bytes)) {
      blocks.push_back(make_block(expected));
      header_capacity = expected;
      from_header = exact.has_value();
    }
  }
  // Chunks of at most 4 MiB (and 65536 frames): the unit of the deadline and of the size checks.
  const int64_t chunk = std::clamp<int64_t>(static_cast<int64_t>((size_t{4} << 20) / frame_bytes), 1, 1 << 16);
  std::vector<void*> rows(static_cast<size_t>(channels));
  int64_t frames = 0;
  while (o.num_frames < 0 || frames < o.num_frames) {
    if (!blocks.empty() && blocks.back().used == blocks.back().capacity && blocks.size() == 1 && from_header) {
      break;  // num_frames() is exact: the decoder has no frame past it (a short file ends the loop below)
    }
    if (blocks.empty() || blocks.back().used == blocks.back().capacity) {
      // Further blocks grow with what is decoded (1 to 64 MiB): a header never sizes them.
      const auto block_bytes = std::clamp<uint64_t>(static_cast<uint64_t>(frames - header_capacity) * frame_bytes,
                                                    uint64_t{1} << 20, uint64_t{64} << 20);
      int64_t capacity = std::max<int64_t>(1, static_cast<int64_t>(block_bytes / frame_bytes));
      if (o.num_frames >= 0) capacity = std::min(capacity, o.num_frames - frames);
      blocks.push_back(make_block(capacity));
    }
    Block& b = blocks.back();
    const int64_t want = std::min(chunk, b.capacity - b.used);
    auto* base = static_cast<uint8_t*>(b.t.data());
    int64_t got = 0;
    if (o.channels_first) {
      for (int c = 0; c < channels; ++c) {
        rows[c] = base + (static_cast<size_t>(c) * static_cast<size_t>(b.capacity) + static_cast<size_t>(b.used)) *
                             element_bytes;
      }
      got = d->read_planar(rows.data(), want, o.normalize);
    } else {
      got = d->read(base + static_cast<size_t>(b.used) * frame_bytes, want, o.normalize);
    }
    b.used += got;
    frames += got;
    check_output_size(o.limits, name, frames, channels, dtype);
    if (got == 0) break;
  }
  while (!blocks.empty() && blocks.back().used == 0) blocks.pop_back();
  if (blocks.size() == 1 && blocks[0].used == blocks[0].capacity) return {std::move(blocks[0].t), d->sample_rate()};
  if (blocks.size() == 1 && blocks[0].used >= blocks[0].capacity - blocks[0].capacity / 8) {
    // A little shorter than announced (a duration estimate, a file cut near its end): keep the block, its
    // rows moved together (each row moves down, so in ascending order nothing is overwritten early).
    Block& b = blocks[0];
    if (o.channels_first) {
      auto* base = static_cast<uint8_t*>(b.t.data());
      const size_t row = static_cast<size_t>(b.used) * element_bytes;
      for (int c = 1; c < channels; ++c) {
        std::memmove(base + static_cast<size_t>(c) * row,
                     base + static_cast<size_t>(c) * static_cast<size_t>(b.capacity) * element_bytes, row);
      }
    }
    const int64_t shape[2] = {o.channels_first ? channels : b.used, o.channels_first ? b.used : channels};
    const int64_t all = b.capacity * channels;
    return {b.t.view({all}).slice(0, 0, b.used * channels).view(shape), d->sample_rate()};
  }
  Tensor out = o.channels_first ? Tensor::empty({channels, frames}, dtype) : Tensor::empty({frames, channels}, dtype);
  auto* dst = static_cast<uint8_t*>(out.data());
  if (o.channels_first) {
    for (int c = 0; c < channels; ++c) {
      for (const Block& b : blocks) {
        const size_t n = static_cast<size_t>(b.used) * element_bytes;
        std::memcpy(dst,
                    static_cast<const uint8_t*>(b.t.data()) +
                        static_cast<size_t>(c) * static_cast<size_t>(b.capacity) * element_bytes,
                    n);
        dst += n;
      }
    }
  } else {
    for (const Block& b : blocks) {
      const size_t n = static_cast<size_t>(b.used) * frame_bytes;
      std::memcpy(dst, b.t.data(), n);
      dst += n;
    }
  }
  return {std::move(out), d->sample_rate()};
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

int AudioReader::sample_rate() const {
  return impl_->decoder->sample_rate();
}
int AudioReader::channels() const {
  return impl_->decoder->channels();
}
std::optional<int64_t> AudioReader::num_frames() const {
  return impl_->decoder->num_frames();
}
int64_t AudioReader::position() const {
  return impl_->decoder->position();
}

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
