// Audio encoding to a file (torchaudio.save's contract), through libsndfile, written atomically.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "loom/codec/api.h"
#include "loom/codec/tensor.h"

LOOM_API_BEGIN

namespace loom::audio {

struct SaveOptions {
  // "wav", "flac", "aiff", "ogg" (Vorbis; "vorbis" is accepted too), "opus" (Ogg/Opus), "mp3", "m4a" (AAC
  // in an MP4/M4A file) or "adts" (raw AAC with ADTS headers; "aac" is accepted too). Empty: from the file
  // extension (.wav, .flac, .aif/.aiff/.aifc, .ogg/.oga, .opus, .mp3, .m4a, .aac); anything else is
  // Error(kInvalidInput). WAV, FLAC, AIFF and Vorbis are written with libsndfile; MP3 (libmp3lame), Opus
  // (libopus) and AAC (FFmpeg's aac) with FFmpeg.
  std::string format;
  // WAV/AIFF: "PCM_S", "PCM_U" (8 bits, WAV only), "PCM_F" (32 or 64 bits), "ULAW", "ALAW"; FLAC:
  // "PCM_S" (8, 16 or 24 bits). Empty: from the tensor's dtype: uint8 -> PCM_U 8 (AIFF: PCM_S 8), int16 ->
  // PCM_S 16, int32 -> PCM_S 32 (FLAC: 24), float32 -> PCM_F 32 (FLAC: PCM_S 24), float64 -> PCM_F 64.
  // Vorbis, Opus, MP3 and AAC take no encoding (it must be empty).
  std::string encoding;
  // Bits per sample for the encoding; 0 picks the default above (ULAW/ALAW: 8).
  int bits_per_sample = 0;
  // FLAC: compression level 0 (fastest) .. 8 (smallest), default 5. Vorbis: quality 0 .. 10 (oggenc's
  // scale, higher is better), default 4 (libsndfile's default). MP3: LAME's VBR quality 0 (best, largest)
  // .. 9 (smallest), as lame -V (not with bit_rate). Opus: the encoder's complexity 0 .. 10 (an integer;
  // higher is slower and better; default 10). Out of range, or given for WAV/AIFF/AAC: Error(kInvalidInput).
  std::optional<double> compression;
  // Target bit rate in bits per second for MP3 (constant bit rate, 8000 .. 320000; LAME picks the nearest
  // rate its MPEG version has), Opus (constrained variable bit rate averaging this, 500 .. 256000 per channel) and AAC
  // (average, 8000 .. 6144 bits per channel per 1024 samples). Empty: the encoder's default (MP3: 128 kb/s;
  // Opus and AAC: from the channels and rate). Given for WAV, FLAC, AIFF or Vorbis: Error(kInvalidInput).
  std::optional<int64_t> bit_rate;
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
// MP3, Opus and AAC take float samples (integers are scaled to [-1, 1) as above) at a rate the encoder
// supports: an input rate it does not take is resampled (swresample) to the lowest supported rate above
// it, else to its highest (Opus: 8, 12, 16, 24 or 48 kHz, so 44100 Hz is stored at 48000 Hz; MP3: 8 ..
// 48 kHz), and the file's rate (what load returns) is that one, except for Opus, whose files always
// decode at 48000 Hz (the codec's own rate; the encoder ran at the chosen one). They have at most 64
// channels.
// Throws loom::Error naming the path: kInvalidInput for bad arguments (no samples, 0 channels, a rate
// <= 0, a dtype or device that cannot be written, an encoding/bits/format combination libsndfile
// refuses, a bit rate or compression out of range or given for a format that has none), kUnsupported when
// this FFmpeg lacks the encoder, kIo when the file cannot be written.
// Thread safety: no shared state; concurrent saves to different paths are independent.
void save(const std::filesystem::path& path, const Tensor& samples, int sample_rate, const SaveOptions& options = {});

}  // namespace loom::audio

LOOM_API_END
