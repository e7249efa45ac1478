#include "loom/codec/media_probe.h"

#include "loom/codec/internal/ffmpeg_handles.h"
#include "loom/codec/internal/stream_info.h"

namespace loom {
const StreamInfo* ContainerInfo::best(const std::string& type) const {
  const int index = type == "video" ? best_video : type == "audio" ? best_audio : -1;
  for (const StreamInfo& s : streams) {
    if (s.index == index) return &s;
  }
  return nullptr;
}

ContainerInfo probe_container(const std::filesystem::path& path, const Limits& limits) {
  ffmpeg::Deadline deadline{std::chrono::steady_clock::now() +
                            std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                std::chrono::duration<double>(limits.deadline_seconds))};
  const ffmpeg::UniqueFormatContext ctx = ffmpeg::open_input(path.string(), limits, deadline);
  return ffmpeg::describe_container(*ctx);
}

}  // namespace loom
