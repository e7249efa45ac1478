#include "stream_metadata.h"

#include "loom/codec/internal/stream_info.h"
#include "metadata_fill.h"

namespace loom::video::detail {

StreamMetadata describe_stream(const AVFormatContext& fmt, const AVStream& stream) {
  const ContainerInfo container = ffmpeg::describe_container(fmt);
  StreamMetadata meta;
  static_cast<VideoMetadata&>(meta) = video_metadata(container, container.streams[static_cast<size_t>(stream.index)]);
  return meta;
}

}  // namespace loom::video::detail
