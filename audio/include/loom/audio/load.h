// Whole-file audio decoding into a tensor (torchaudio.load's contract; TorchCodec-exact sample positions).
//
// Decoders: libsndfile for WAV (incl. WAVE_FORMAT_EXTENSIBLE, RF64, W64), AIFF/AIFC, AU, CAF and FLAC
// holding PCM (u8, s8, s16, s24, s32), float, double, u-law or A-law samples, and for Ogg/Vorbis.
// FFmpeg (local demuxers only, see loom/codec/media_probe.h) for everything else: MP3, AAC/M4A/ADTS, Opus,
// ADPCM, and the audio stream of any video container. Sample values equal soundfile's (libsndfile) for the
// first group and PyAV's (the same libavcodec decoders, every frame concatenated, encoder delay and padding
// trimmed the way libavcodec trims them) for the second.
//
// Thread safety: load and decode keep no shared state; call them from any number of threads.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string_view>

#include "loom/codec/api.h"
#include "loom/codec/byte_source.h"
#include "loom/codec/limits.h"
#include "loom/codec/tensor.h"

LOOM_API_BEGIN

namespace loom::audio {

struct LoadOptions {
  // First frame (sample per channel) to return, counted from the first decoded sample. Exact in every
  // format: compressed streams are decoded from their start and trimmed. An offset at or past the end
  // gives an empty result (0 frames). Must be >= 0.
  int64_t frame_offset = 0;
  // Most frames to return; -1 reads to the end. Must be >= -1.
  int64_t num_frames = -1;
  // true: float32 in [-1, 1] (integers divided by 2^(bits-1), u8 as (x - 128) / 128; float files as
  // stored, so they may exceed 1). false: the file's native sample type: uint8 (u8), int16 (s8 and s16,
  // s8 left-aligned to 16 bits; u-law/A-law decoded to 16-bit linear), int32 (s24 left-aligned, i.e.
  // x * 256, like soundfile's int32; s32), float32, float64. Lossy codecs (MP3, AAC, Opus, Vorbis) are
  // always float32; other FFmpeg-decoded streams use the decoder's sample type (FLAC in Matroska: int32,
  // ADPCM: int16).
  bool normalize = true;
  // true: shape [channels, frames]; false: [frames, channels]. Always a contiguous tensor.
  bool channels_first = true;
  // FFmpeg stream index of the audio stream to read; -1 picks FFmpeg's best audio stream (as TorchCodec;
  // see ContainerInfo::best). Files that libsndfile decodes hold exactly one stream, index 0.
  int stream_index = -1;
  // max_bytes bounds the input size and the decoded output size (checked while decoding, never from header
  // sizes); max_audio_channels and max_sample_rate refuse streams above them; deadline_seconds bounds
  // FFmpeg's opening of the file, the decoding up to frame_offset, and each further chunk of up to 65536
  // frames.
  Limits limits;
};

struct Audio {
  Tensor samples;       // see LoadOptions::normalize and channels_first for the dtype and layout
  int sample_rate = 0;  // Hz
};

// Decodes the audio of `path`. Throws loom::Error naming the file: kIo when it cannot be read;
// kInvalidInput for bad options, a file that is not audio or holds no audio stream, 0 channels or a 0 Hz
// rate, and for corrupt or truncated coded data that the decoder rejects (nothing partial is returned;
// a PCM file whose data ends early is not an error: the samples present are returned, as libsndfile
// does); kUnsupported for a codec loom cannot decode or a stream whose channel count, rate or sample
// type changes midway; kLimitExceeded past any of `limits`.
Audio load(const std::filesystem::path& path, const LoadOptions& options = {});

// The same over encoded bytes in memory (the name used in errors is source.name()).
Audio decode(const ByteSource& source, const LoadOptions& options = {});

}  // namespace loom::audio

LOOM_API_END
