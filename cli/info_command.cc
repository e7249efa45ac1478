// `loom info FILE...`: one JSON object per line describing each file.
#include <fmt/format.h>

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

#include "batch.h"
#include "commands.h"
#include "loom/audio/info.h"
#include "loom/audio/load.h"
#include "loom/codec/byte_source.h"
#include "loom/codec/error.h"
#include "loom/codec/media_probe.h"
#include "loom/codec/sniff.h"
#include "loom/loader/file_list.h"
#include "loom/video/decoder.h"
#include "loom/vision/image.h"
#include "messages.h"
#include "summary.h"

namespace loom::cli {
namespace {

using nlohmann::ordered_json;

struct InfoArgs {
  std::vector<std::string> paths;  // files or folders, as given
  bool no_scan = false;            // videos: headers only
  bool verify = false;             // decode every file whole (verify())
  std::vector<std::string> ext;    // --ext: what a folder scan keeps (empty: every file)
};

// Seconds in the JSON lines are rounded to the microsecond (as ffprobe prints them) and frame rates to
// 6 decimals, so that no line carries binary float noise (0.30000000000000004).
double seconds(double s) {
  return round_decimals(s, 6);
}

ordered_json describe_image(const ByteSource& src, Format format) {
  ordered_json j;
  j["kind"] = "image";
  j["format"] = format_name(format);
  if (!vision::decodes_format(format)) return j;  // kind and format only
  const vision::ImageInfo info = vision::read_image_info(src);
  j["width"] = info.width;
  j["height"] = info.height;
  j["channels"] = info.channels;
  j["bit_depth"] = info.bit_depth;
  j["orientation"] = info.orientation;
  j["progressive"] = info.progressive;
  j["frames"] = info.frames;
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
  j["duration"] = seconds(a.duration_seconds);
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
  j["fps"] = round_decimals(v.average_fps, 6);
  j["num_frames"] = m.num_frames_from_content.value_or(v.num_frames);
  j["num_frames_from_header"] = v.num_frames;
  j["num_frames_from_content"] =
      m.num_frames_from_content ? ordered_json(*m.num_frames_from_content) : ordered_json(nullptr);
  j["duration"] = seconds(v.duration_seconds);
  j["begin"] = seconds(m.begin_stream_seconds);
  j["end"] = seconds(m.end_stream_seconds);
  j["num_keyframes"] = scan ? ordered_json(m.key_frame_indices.size()) : ordered_json(nullptr);
  j["audio_streams"] = m.audio_streams.size();
  ordered_json audio = ordered_json::array();
  for (const StreamInfo& a : m.audio_streams) {
    audio.push_back(ordered_json{{"stream_index", a.index},
                                 {"codec", a.codec},
                                 {"sample_rate", a.sample_rate},
                                 {"channels", a.channels},
                                 {"duration", seconds(a.duration_seconds)}});
  }
  j["audio"] = std::move(audio);
  return j;
}

// Why a file that sniffed as no known format is not described: it cannot be opened (the system's
// reason), it is empty, or its bytes are no format loom knows.
[[noreturn]] void refuse_unknown(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorCode::kIo, path.string(), std::string("cannot open: ") + std::strerror(errno));
  throw not_media_file(path, "image, audio or video", Format::kUnknown);
}

// Decodes all of `path`, described as `kind` ("image", "audio", "video"), and drops the result: finds
// what a header read misses (a truncated or corrupt body). An MP4/MOV video (`format` "mp4") must also
// hold every frame its sample table declares. Throws the decoder's loom::Error.
void verify(const std::filesystem::path& path, const std::string& kind, const std::string& format) {
  if (kind == "image") {
    vision::decode_image(ByteSource::from_file(path));
  } else if (kind == "audio") {
    audio::load(path);
  } else if (kind == "video") {
    video::DecoderOptions options;
    options.seek_mode = video::SeekMode::kExact;
    video::VideoDecoder decoder = video::VideoDecoder::open(path, options);
    const int64_t n = decoder.num_frames();
    for (int64_t i = 0; i < n; ++i) decoder.get_frame_at(i);  // in order: each packet decoded once
    const int64_t declared = decoder.metadata().stream.num_frames;
    // An MP4 or MOV cut short keeps its whole sample table, which counts exactly: the scan finds fewer.
    // (An AVI's index may count dropped frames that hold no data, so its count is no evidence.)
    if (format == "mp4" && declared > 0 && n < declared) {
      throw Error(ErrorCode::kInvalidInput, path.string(),
                  fmt::format("truncated: the header declares {} frames, {} are in the file", declared, n));
    }
  }
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
      return c.best("video") ? describe_video(path, format, scan) : describe_audio(path);
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
      loader::ScanOptions scan;
      scan.extensions = scan_extensions(args.ext, {});
      files = list_input(input, scan);
    } catch (const Error& e) {
      print_line(ordered_json{{"path", input}, {"error", e.message()}});
      status = 1;
      continue;
    }
    for (const loader::FileEntry& f : files) {
      ordered_json line{{"path", f.path.string()}};
      try {
        line.update(describe(f.path, !args.no_scan));
        if (args.verify) {
          verify(f.path, line["kind"].get<std::string>(), line.value("format", ""));
          line["verified"] = true;
        }
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
  cmd->add_flag("--verify", args->verify,
                "Decode every file whole (all pixels, samples, frames): a truncated or corrupt file is an error "
                "even when its header reads; \"verified\": true on success");
  add_ext_flag(*cmd, args->ext);
  return {cmd, [args] { return run_info(*args); }};
}

}  // namespace loom::cli
