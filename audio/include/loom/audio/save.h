// Audio encoding to a file (torchaudio.save's contract), through libsndfile, written atomically.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "loom/codec/tensor.h"

namespace loom::audio {

struct SaveOptions {
  // "wav", "flac", "aiff", "ogg" (Vorbis; "vorbis" is accepted too), "opus" (Ogg/Opus) or "mp3". Empty:
  // from the file extension (.wav, .flac, .aif/.aiff/.aifc, .ogg/.oga, .opus, .mp3); anything else is
  // Error(kInvalidInput).
  std::string format;
  // WAV/AIFF: "PCM_S", "PCM_U" (8 bits, WAV only), "PCM_F" (32 or 64 bits), "ULAW", "ALAW"; FLAC:
  // "PCM_S" (8, 16 or 24 bits). Empty: from the tensor's dtype: uint8 -> PCM_U 8 (AIFF: PCM_S 8), int16 ->
  // PCM_S 16, int32 -> PCM_S 32 (FLAC: 24), float32 -> PCM_F 32 (FLAC: PCM_S 24), float64 -> PCM_F 64.
  // Vorbis, Opus and MP3 take no encoding (it must be empty).
  std::string encoding;
  // Bits per sample for the encoding; 0 picks the default above (ULAW/ALAW: 8).
  int bits_per_sample = 0;
  // FLAC: compression level 0 (fastest) .. 8 (smallest), default 5. Vorbis: quality 0 .. 10 (oggenc's
  // scale, higher is better), default 4 (libsndfile's default). Opus and MP3: libsndfile's compression
  // level 0 (highest bit rate) .. 1 (lowest). Out of range, or given for WAV/AIFF: Error(kInvalidInput).
  std::optional<double> compression;
  // true: samples are [channels, frames]; false: [frames, channels]. A 1-D tensor is one channel.
  bool channels_first = true;
  // false: an existing file (or symlink) at the path is an Error(kIo) and nothing is written.
  bool overwrite = true;
};

// Encodes `samples` (CPU; uint8, int16, int32, float32 or float64; any strides) at `sample_rate` Hz and
// writes the result atomically (loom::write_file_atomic: a temporary file in the same folder, fsync,
// rename), so `path` is either untouched or complete.
// Sample conversion is libsndfile's (as soundfile's): integers are shifted to the output width (uint8 is
// (x - 128) << 8 first); floats are scaled by the integer maximum (x * 0x7FFF for 16 bits) and clipped to
// the integer range (soundfile does not clip: values outside [-1, 1] may differ from soundfile's).
// Throws loom::Error naming the path: kInvalidInput for bad arguments (no samples, 0 channels, a rate
// <= 0, a dtype or device that cannot be written, an encoding/bits/format combination libsndfile
// refuses, e.g. Opus at 44100 Hz), kIo when the file cannot be written.
// Thread safety: no shared state; concurrent saves to different paths are independent.
void save(const std::filesystem::path& path, const Tensor& samples, int sample_rate, const SaveOptions& options = {});

}  // namespace loom::audio
