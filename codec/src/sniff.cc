#include "loom/codec/sniff.h"

#include <algorithm>
#include <cstring>
#include <fstream>

#include "loom/codec/internal/regular_file.h"

namespace loom {
namespace {

bool starts_with(std::span<const uint8_t> b, size_t offset, const char* magic, size_t n) {
  return b.size() >= offset + n && std::memcmp(b.data() + offset, magic, n) == 0;
}
template <size_t N>
bool at(std::span<const uint8_t> b, size_t offset, const char (&magic)[N]) {
  return starts_with(b, offset, magic, N - 1);
}

// ISO BMFF: "ftyp" box at offset 4; the major brand tells still images (AVIF/HEIF) from movies.
Format sniff_iso_bmff(std::span<const uint8_t> b) {
  if (at(b, 8, "avif") || at(b, 8, "avis")) return Format::kAvif;
  if (at(b, 8, "heic") || at(b, 8, "heix") || at(b, 8, "mif1") || at(b, 8, "msf1")) return Format::kHeif;
  return Format::kMp4;
}

// An MPEG audio frame header: 11 sync bits, a valid layer, bitrate and sample rate index.
bool is_mpeg_audio_frame(std::span<const uint8_t> b) {
  if (b.size() < 4 || b[0] != 0xFF || (b[1] & 0xE0) != 0xE0) return false;
  const int version = (b[1] >> 3) & 3, layer = (b[1] >> 1) & 3;
  const int bitrate = b[2] >> 4, rate = (b[2] >> 2) & 3;
  return version != 1 && layer != 0 && bitrate != 0 && bitrate != 15 && rate != 3;
}

// ADTS (AAC): 12 sync bits, layer 00.
bool is_adts(std::span<const uint8_t> b) {
  return b.size() >= 7 && b[0] == 0xFF && (b[1] & 0xF6) == 0xF0;
}

}  // namespace

std::string_view format_name(Format format) {
  switch (format) {
    case Format::kUnknown: return "unknown";
    case Format::kJpeg: return "jpeg";
    case Format::kPng: return "png";
    case Format::kWebp: return "webp";
    case Format::kGif: return "gif";
    case Format::kBmp: return "bmp";
    case Format::kTiff: return "tiff";
    case Format::kJpeg2000: return "jpeg2000";
    case Format::kAvif: return "avif";
    case Format::kHeif: return "heif";
    case Format::kQoi: return "qoi";
    case Format::kPnm: return "pnm";
    case Format::kWav: return "wav";
    case Format::kAiff: return "aiff";
    case Format::kFlac: return "flac";
    case Format::kMp3: return "mp3";
    case Format::kAdts: return "aac";
    case Format::kAu: return "au";
    case Format::kOgg: return "ogg";
    case Format::kMp4: return "mp4";
    case Format::kMatroska: return "matroska";
    case Format::kAvi: return "avi";
    case Format::kMpegTs: return "mpegts";
    case Format::kMpegPs: return "mpeg";
  }
  return "unknown";
}

MediaKind media_kind(Format format) {
  switch (format) {
    case Format::kUnknown: return MediaKind::kUnknown;
    case Format::kJpeg:
    case Format::kPng:
    case Format::kWebp:
    case Format::kGif:
    case Format::kBmp:
    case Format::kTiff:
    case Format::kJpeg2000:
    case Format::kAvif:
    case Format::kHeif:
    case Format::kQoi:
    case Format::kPnm: return MediaKind::kImage;
    case Format::kWav:
    case Format::kAiff:
    case Format::kFlac:
    case Format::kMp3:
    case Format::kAdts:
    case Format::kAu: return MediaKind::kAudio;
    case Format::kAvi: return MediaKind::kVideo;
    case Format::kOgg:
    case Format::kMp4:
    case Format::kMatroska:
    case Format::kMpegTs:
    case Format::kMpegPs: return MediaKind::kContainer;
  }
  return MediaKind::kUnknown;
}

std::string_view kind_name(MediaKind kind) {
  switch (kind) {
    case MediaKind::kUnknown: return "unknown";
    case MediaKind::kImage: return "image";
    case MediaKind::kAudio: return "audio";
    case MediaKind::kVideo: return "video";
    case MediaKind::kContainer: return "container";
  }
  return "unknown";
}

Format sniff_format(std::span<const uint8_t> b) {
  if (b.size() >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF) return Format::kJpeg;
  if (at(b, 0, "\x89PNG\r\n\x1a\n")) return Format::kPng;
  if (at(b, 0, "RIFF") || at(b, 0, "RF64") || at(b, 0, "RIFX")) {
    if (at(b, 8, "WEBP")) return Format::kWebp;
    if (at(b, 8, "WAVE")) return Format::kWav;
    if (at(b, 8, "AVI ")) return Format::kAvi;
    return Format::kUnknown;
  }
  if (at(b, 0, "GIF87a") || at(b, 0, "GIF89a")) return Format::kGif;
  if (at(b, 0, "BM") && b.size() >= 14) return Format::kBmp;
  // Classic TIFF and BigTIFF.
  if (at(b, 0, "II*\0") || at(b, 0, "MM\0*") || at(b, 0, "II+\0") || at(b, 0, "MM\0+")) return Format::kTiff;
  if (at(b, 0, "\0\0\0\x0cjP  \r\n\x87\n") || at(b, 0, "\xff\x4f\xff\x51")) return Format::kJpeg2000;
  if (at(b, 4, "ftyp")) return sniff_iso_bmff(b);
  if (at(b, 0, "qoif")) return Format::kQoi;
  if (b.size() >= 3 && b[0] == 'P' && b[1] >= '1' && b[1] <= '7' &&
      (b[2] == '\n' || b[2] == ' ' || b[2] == '\r' || b[2] == '\t')) {
    return Format::kPnm;
  }
  if (at(b, 0, "FORM") && (at(b, 8, "AIFF") || at(b, 8, "AIFC"))) return Format::kAiff;
  if (at(b, 0, "fLaC")) return Format::kFlac;
  if (at(b, 0, ".snd")) return Format::kAu;
  if (at(b, 0, "OggS")) return Format::kOgg;
  if (at(b, 0, "\x1a\x45\xdf\xa3")) return Format::kMatroska;
  if (at(b, 0, "\0\0\x01\xba")) return Format::kMpegPs;
  if (b.size() >= 377 && b[0] == 0x47 && b[188] == 0x47 && b[376] == 0x47) return Format::kMpegTs;
  if (at(b, 0, "ID3") || is_mpeg_audio_frame(b)) return Format::kMp3;
  if (is_adts(b)) return Format::kAdts;
  return Format::kUnknown;
}

Format sniff_file(const std::filesystem::path& path) {
  require_regular_file(path);  // an ifstream would block on a FIFO and read /dev/zero
  uint8_t head[512];
  std::ifstream in(path, std::ios::binary);
  in.read(reinterpret_cast<char*>(head), sizeof(head));
  return sniff_format({head, static_cast<size_t>(std::max<std::streamsize>(in.gcount(), 0))});
}

}  // namespace loom
