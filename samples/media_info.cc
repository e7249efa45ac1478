// Describe the audio and video streams of a media file (FFmpeg probing, local files only).
//   sample_media_info FILE
#include <cstdio>

#include "loom/audio/info.h"
#include "loom/codec/error.h"
#include "loom/video/metadata.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s FILE\n", argv[0]);
    return 2;
  }
  try {
    const loom::StreamInfo v = loom::video::read_metadata(argv[1]).stream;
    std::printf("video: %s %dx%d %s, %.3f fps, %.3f s\n", v.codec.c_str(), v.width, v.height, v.pixel_format.c_str(),
                v.average_fps, v.duration_seconds);
  } catch (const loom::Error& e) {
    std::printf("video: none (%s)\n", e.message().c_str());
  }
  try {
    const loom::audio::AudioInfo a = loom::audio::info(argv[1]);
    std::printf("audio: %s (%s) %d Hz, %d channels, %lld frames, %.3f s\n", a.codec.c_str(), a.encoding.c_str(),
                a.sample_rate, a.channels, static_cast<long long>(a.num_frames), a.duration_seconds);
  } catch (const loom::Error& e) {
    std::printf("audio: none (%s)\n", e.message().c_str());
  }
  return 0;
}
