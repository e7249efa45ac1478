// (Internal to codec, audio and video.) The one check every path-based input goes through before anything opens it (our
// own open(), a sniff, FFmpeg, libsndfile, libsox): special files are refused, so that a FIFO with no writer, a
// terminal or a device never blocks a decode and /dev/zero never streams forever.
#pragma once

#include <filesystem>

namespace loom {

// Throws Error(kIo, path, "is not a regular file") when `path` names (after symlinks) a FIFO, socket,
// character or block device, and Error(kIo, path, "is a folder, not a file") for a folder. kIo, not
// kInvalidInput: the refusal is about the file system object, never about bytes, which are not read.
// A path that cannot be stat'ed (missing, no permission) passes: the open that follows reports it
// with its own errno. One stat(); never opens or blocks. Thread-safe.
void require_regular_file(const std::filesystem::path& path);

}  // namespace loom
