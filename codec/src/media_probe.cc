#include "loom/codec/media_probe.h"

#include "loom/codec/internal/ffmpeg_handles.h"
#include "loom/codec/internal/stream_info.h"

namespace loom {
const StreamInfo* ContainerInfo::first(const std::string& type) const {
  for (const StreamInfo& s : streams) {
    if (s.type == type && !s.attached_picture) return &s;
  }
  return nullptr;
}

ContainerInfo probe_container(const std::filesystem::path& path, const Limits& limits) {
  ffmpeg::Deadline deadline{std::chrono::steady_clock::now() +
                            std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                std::chrono::duration<double>(limits.deadline_seconds))};
  ffmpeg::UniqueFormatContext ctx = ffmpeg::open_input(path.string(), limits, deadline);
  ContainerInfo info;
  info.demuxer = ctx->iformat->name;
  info.duration_seconds = ctx->duration == AV_NOPTS_VALUE ? -1.0 : static_cast<double>(ctx->duration) / AV_TIME_BASE;
  info.bit_rate = ctx->bit_rate;
  info.streams.reserve(ctx->nb_streams);
  for (unsigned i = 0; i < ctx->nb_streams; ++i) info.streams.push_back(ffmpeg::describe_stream(*ctx->streams[i]));
  return info;
}

}  // namespace loom
