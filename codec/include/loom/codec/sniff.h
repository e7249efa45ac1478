// Format sniffing from the first bytes of an input, never from its file name.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string_view>

#include "loom/codec/api.h"

LOOM_API_BEGIN

namespace loom {

enum class MediaKind {
  kUnknown,
  kImage,
  kAudio,
  kVideo,
  kContainer,  // may hold video or only audio: probe the streams to know
};

enum class Format {
  kUnknown,
  // images
  kJpeg,
  kPng,
  kWebp,
  kGif,
  kBmp,
  kTiff,
  kJpeg2000,
  kAvif,
  kHeif,
  kQoi,
  kPnm,
  // audio
  kWav,
  kAiff,
  kFlac,
  kMp3,
  kAdts,
  kAu,
  // containers
  kOgg,
  kMp4,
  kMatroska,
  kAvi,
  kMpegTs,
  kMpegPs,
};

// "jpeg", "png", ..., "mp4", "matroska", "mpegts"; "unknown" for kUnknown.
std::string_view format_name(Format format);
MediaKind media_kind(Format format);
// "image", "audio", "video", "container" or "unknown".
std::string_view kind_name(MediaKind kind);

// Identifies the format from magic bytes. `head` should hold the first 64 bytes or more of the input
// (MPEG-TS needs 377 to see three sync bytes); fewer bytes simply match fewer formats.
Format sniff_format(std::span<const uint8_t> head);

// sniff_format of the first bytes of a file; kUnknown when it cannot be read. Throws Error(kIo,
// "is not a regular file" or "is a folder, not a file") for a FIFO, device, socket or folder, which
// are never opened (a FIFO with no writer would block); nothing else.
Format sniff_file(const std::filesystem::path& path);

}  // namespace loom

LOOM_API_END
