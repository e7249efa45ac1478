// `loom info FILE...`: one JSON object per line describing each file.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "loom/audio/info.h"
#include "loom/codec/byte_source.h"
#include "loom/codec/error.h"
#include "loom/codec/media_probe.h"
#include "loom/codec/sniff.h"
#include "loom/loader/file_list.h"
#include "loom/video/decoder.h"
#include "loom/vision/image.h"

namespace loom::cli {
namespace {

using nlohmann::ordered_json;

struct InfoArgs {
  std::vector<std::string> paths;  // files or folders, as given
  bool no_scan = false;            // videos: headers only
};

ordered_json describe_image(const ByteSource& src, Format format) {
  ordered_json j;
  j["kind"] = "image";
  j["format"] = format_name(format);
  if (format != Format::kJpeg && format != Format::kPng) return j;  // not decodable yet: kind and format only
  const vision::ImageInfo info = vision::read_image_info(src);
  j["width"] = info.width;
  j["height"] = info.height;
  j["channels"] = info.channels;
  j["bit_depth"] = info.bit_depth;
  j["orientation"] = info.orientation;
  j["progressive"] = info.progressive;
  return j;
}

ordered_json describe_audio(const std::filesystem::path& path) {
  const audio::AudioInfo a = audio::info(path);
  ordered_json j;
  j["kind"] = "audio";
  j["format"] = a.format;
  j["codec"] = a.codec;
  j["encoding"] = a.encoding;
  j["sample_rate"] = a.sample_rate;
  j["channels"] = a.channels;
  j["num_frames"] = a.num_frames;
  j["duration"] = a.duration_seconds;
  j["bits_per_sample"] = a.bits_per_sample;
  j["stream_index"] = a.stream_index;
  return j;
}

// The decoder's metadata of the best video stream. With `scan` (the default) the packets are read once
// (not decoded) for the exact frame count, begin/end and keyframes; without it only headers are read.
ordered_json describe_video(const std::filesystem::path& path, Format format, bool scan) {
  video::DecoderOptions options;
  options.seek_mode = scan ? video::SeekMode::kExact : video::SeekMode::kApproximate;
  const video::VideoDecoder decoder = video::VideoDecoder::open(path, options);
  const video::StreamMetadata& m = decoder.metadata();
  ordered_json j;
  j["kind"] = "video";
  j["format"] = format_name(format);
  j["container"] = m.container;
  const StreamInfo& v = m.stream;
  j["stream_index"] = v.index;
  j["codec"] = v.codec;
  j["width"] = v.width;
  j["height"] = v.height;
  j["pixel_format"] = v.pixel_format.empty() ? "unknown" : v.pixel_format;
  j["color_space"] = v.color_space;
  j["color_range"] = v.color_range;
  j["color_primaries"] = v.color_primaries;
  j["rotation"] = v.rotation;
  j["fps"] = v.average_fps;
  j["num_frames"] = m.num_frames_from_content.value_or(v.num_frames);
  j["num_frames_from_header"] = v.num_frames;
  j["num_frames_from_content"] =
      m.num_frames_from_content ? ordered_json(*m.num_frames_from_content) : ordered_json(nullptr);
  j["duration"] = v.duration_seconds;
  j["begin"] = m.begin_stream_seconds;
  j["end"] = m.end_stream_seconds;
  j["num_keyframes"] = scan ? ordered_json(m.key_frame_indices.size()) : ordered_json(nullptr);
  j["audio_streams"] = m.audio_streams.size();
  ordered_json audio = ordered_json::array();
  for (const StreamInfo& a : m.audio_streams) {
    audio.push_back(ordered_json{{"stream_index", a.index},
                                 {"codec", a.codec},
                                 {"sample_rate", a.sample_rate},
                                 {"channels", a.channels},
                                 {"duration", a.duration_seconds}});
  }
  j["audio"] = std::move(audio);
  return j;
}

// Why a file that sniffed as no known format is not described: it cannot be opened (the system's
// reason), it is empty, or its bytes are no format loom knows.
[[noreturn]] void refuse_unknown(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorCode::kIo, path.string(), std::string("cannot open: ") + std::strerror(errno));
  if (in.peek() == std::ifstream::traits_type::eof())
    throw Error(ErrorCode::kInvalidInput, path.string(), "empty file");
  throw Error(ErrorCode::kInvalidInput, path.string(), "unknown format (not an image, audio or video file)");
}

// Sniffed from the first bytes: only an image is read whole (its header may lie anywhere after its
// metadata), so that `info` on a large video or audio file reads little of it.
ordered_json describe(const std::filesystem::path& path, bool scan) {
  const Format format = sniff_file(path);
  switch (media_kind(format)) {
    case MediaKind::kImage: return describe_image(ByteSource::from_file(path), format);
    case MediaKind::kAudio: return describe_audio(path);
    case MediaKind::kVideo: return describe_video(path, format, scan);
    case MediaKind::kContainer: {
      // mp4, mkv, ogg, ts: video when a real video track is present, else audio.
      const ContainerInfo c = probe_container(path);
      return c.first("video") ? describe_video(path, format, scan) : describe_audio(path);
    }
    case MediaKind::kUnknown: break;
  }
  refuse_unknown(path);
}

// One JSON line on stdout. File names and messages are bytes, not necessarily UTF-8: bytes that are
// not valid UTF-8 are written as U+FFFD (the replacement character), so every line is valid JSON.
void print_line(const ordered_json& line) {
  std::cout << line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
}

int run_info(const InfoArgs& args) {
  int status = 0;
  for (const std::string& input : args.paths) {
    std::vector<loader::FileEntry> files;
    try {
      files = loader::scan_files(input);
    } catch (const Error& e) {
      print_line(ordered_json{{"path", input}, {"error", e.message()}});
      status = 1;
      continue;
    }
    for (const loader::FileEntry& f : files) {
      ordered_json line{{"path", f.path.string()}};
      try {
        line.update(describe(f.path, !args.no_scan));
      } catch (const Error& e) {
        line["error"] = e.message();
        status = 1;
      } catch (const std::exception& e) {
        line["error"] = e.what();
        status = 1;
      }
      print_line(line);
    }
  }
  return status;
}

}  // namespace

Command add_info_command(CLI::App& app) {
  auto args = std::make_shared<InfoArgs>();
  CLI::App* cmd =
      app.add_subcommand("info", "Print one JSON object per line for each file (folders: every file below)");
  cmd->add_option("FILE", args->paths, "Files or folders")->required();
  cmd->add_flag("--no-scan", args->no_scan,
                "Videos: read headers only (no packet scan): num_frames from the header, no keyframe count");
  return {cmd, [args] { return run_info(*args); }};
}

}  // namespace loom::cli
