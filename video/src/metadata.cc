#include "loom/video/metadata.h"

#include "loom/codec/error.h"
#include "loom/codec/media_probe.h"
#include "metadata_fill.h"

namespace loom::video {

VideoMetadata read_metadata(const std::filesystem::path& path, const Limits& limits) {
  const ContainerInfo container = probe_container(path, limits);
  const StreamInfo* s = container.best("video");
  if (s == nullptr) throw Error(ErrorCode::kInvalidInput, path.string(), "holds no video stream");
  return detail::video_metadata(container, *s);
}

}  // namespace loom::video
