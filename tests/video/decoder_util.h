// Helpers for the VideoDecoder tests: the corpus, reference frames and pixel comparison.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "../codec/ffprobe_util.h"
#include "loom/codec/tensor.h"
#include "loom/video/decoder.h"
#include "python_reference.h"
#include "test_media.h"

namespace loom::video::test {
namespace fs = std::filesystem;

inline std::vector<fs::path> video_corpus() {
  return loom::test::files_in(loom::test::media("video"));
}

inline std::string param_name(const fs::path& p) {
  std::string name = p.filename().string();
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

// The ffmpeg CLI's RGB24 frames for `indices` (sorted, unique), [N, H, W, 3]; optional resize.
inline Tensor ffmpeg_frames(const fs::path& file, int stream, const std::vector<int64_t>& indices, int out_height,
                            int out_width, bool resize) {
  nlohmann::json p;
  p["file"] = file.string();
  p["stream"] = stream;
  p["indices"] = indices;
  p["sws_flags"] = "bilinear";  // detail::kSwsFlags
  p["out_height"] = out_height;
  p["out_width"] = out_width;
  if (resize) {
    p["height"] = out_height;
    p["width"] = out_width;
  }
  auto out = loom::test::run_python_reference("video_frames_ffmpeg.py", {}, p.dump());
  return out.count("frames") ? out["frames"] : Tensor();
}

// Largest |a - b| over two uint8 tensors of the same shape (HWC or any layout, contiguous).
inline int max_abs_diff(const Tensor& a, const Tensor& b) {
  const Tensor ca = a.contiguous(), cb = b.contiguous();
  EXPECT_EQ(ca.numel(), cb.numel());
  const auto* pa = static_cast<const uint8_t*>(ca.data());
  const auto* pb = static_cast<const uint8_t*>(cb.data());
  int m = 0;
  for (int64_t i = 0; i < std::min(ca.numel(), cb.numel()); ++i) m = std::max(m, std::abs(int(pa[i]) - int(pb[i])));
  return m;
}

// Output of a command (stdout).
inline std::string command_output(const std::string& command) {
  std::string out;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return out;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof(buf), pipe)) > 0;) out.append(buf, n);
  ::pclose(pipe);
  return out;
}

// A FrameIndex from `ffprobe -show_frames` JSON (pts, or pkt_dts when pts is missing; duration or
// pkt_duration; key_frame), as a TorchCodec user would build custom frame mappings.
inline FrameIndex ffprobe_frame_index(const fs::path& file, int stream) {
  const std::string json = command_output("ffprobe -v error -select_streams " + std::to_string(stream) +
                                          " -show_frames -show_entries frame=pts,pkt_dts,duration,pkt_duration,"
                                          "key_frame -of json '" +
                                          file.string() + "'");
  FrameIndex index;
  const nlohmann::json parsed = nlohmann::json::parse(json);
  for (const auto& f : parsed.at("frames")) {
    FrameIndexEntry e;
    e.pts = f.contains("pts") ? f["pts"].get<int64_t>() : f.at("pkt_dts").get<int64_t>();
    e.duration = f.contains("duration")       ? f["duration"].get<int64_t>()
                 : f.contains("pkt_duration") ? f["pkt_duration"].get<int64_t>()
                                              : 0;
    e.key_frame = f.at("key_frame").get<int>() != 0;
    index.push_back(e);
  }
  return index;
}

}  // namespace loom::video::test
