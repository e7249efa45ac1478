// (Internal to codec, audio and video.) RIFF chunk sizes, checked before FFmpeg reads a WAV file: its
// WAV demuxer allocates and zero-fills what a metadata chunk claims (a 2 KB file whose LIST chunk
// claimed 2.6 GB made avformat_open_input take 1.6 GB; fuzz/regressions/audio_decode/oom-bcadd66...).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace loom::ffmpeg {

// Reads up to n bytes at `offset` into `buffer`; returns how many it read (0 at the end).
using ReadAt = std::function<size_t(uint64_t offset, uint8_t* buffer, size_t n)>;

// Walks the chunk headers of a RIFF WAVE input of `size` bytes (anything else returns at once) and throws
// Error(kInvalidInput, name, "its 'LIST' chunk at byte 82 claims 2634023962 bytes, but 2020 follow") when
// a chunk other than 'data' claims more bytes than follow its header. A 'data' chunk may (a file cut
// short, or written while streaming); the walk stops there unless the whole chunk is present. Reads at
// most 4096 chunk headers of 8 bytes. Thread-safe.
void check_riff_chunks(const ReadAt& read, uint64_t size, const std::string& name);

}  // namespace loom::ffmpeg
