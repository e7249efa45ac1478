#include "stream_metadata.h"

#include "loom/codec/internal/stream_info.h"
#include "metadata_fill.h"

namespace loom::video::detail {

StreamMetadata describe_stream(const AVFormatContext& fmt, const AVStream& stream) {
  ContainerInfo container;
  container.demuxer = fmt.iformat != nullptr ? fmt.iformat->name : "";
  container.duration_seconds = fmt.duration != AV_NOPTS_VALUE ? static_cast<double>(fmt.duration) / AV_TIME_BASE : -1;
  for (unsigned i = 0; i < fmt.nb_streams; ++i) container.streams.push_back(ffmpeg::describe_stream(*fmt.streams[i]));
  StreamMetadata meta;
  static_cast<VideoMetadata&>(meta) = video_metadata(container, container.streams[static_cast<size_t>(stream.index)]);
  return meta;
}

}  // namespace loom::video::detail
