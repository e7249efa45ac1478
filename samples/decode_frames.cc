// Decode frames of a video by index and by time, and save one as a PPM image.
//   sample_decode_frames VIDEO OUT.ppm
#include <cstdio>
#include <fstream>
#include <vector>

#include "loom/codec/error.h"
#include "loom/video/decoder.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s VIDEO OUT.ppm\n", argv[0]);
    return 2;
  }
  try {
    loom::video::DecoderOptions options;  // exact seek mode; uint8 RGB, here [H, W, 3]
    options.dimension_order = loom::Layout::kHWC;
    loom::video::VideoDecoder decoder = loom::video::VideoDecoder::open(argv[1], options);
    const loom::video::StreamMetadata& m = decoder.metadata();
    const loom::StreamInfo& v = m.stream;  // what the headers say
    std::printf("%s %dx%d %s (%s, %s range), %lld frames, %.3f to %.3f s, %zu keyframes\n", v.codec.c_str(), v.width,
                v.height, v.pixel_format.c_str(), v.color_space.c_str(), v.color_range.c_str(),
                static_cast<long long>(decoder.num_frames()), m.begin_stream_seconds, m.end_stream_seconds,
                m.key_frame_indices.size());

    // Four frames spread over the video, last one first (any order is fine).
    const int64_t n = decoder.num_frames();
    const std::vector<int64_t> indices = {-1, 0, n / 3, 2 * n / 3};
    const loom::video::Frames frames = decoder.get_frames_at(indices);
    for (size_t i = 0; i < indices.size(); ++i) {
      std::printf("frame %lld: pts %.3f s, duration %.3f s\n", static_cast<long long>(indices[i]),
                  frames.pts_seconds[i], frames.duration_seconds[i]);
    }

    // The frame on screen at the middle of the video, written as a binary PPM ([H, W, 3] uint8).
    const double middle = (m.begin_stream_seconds + m.end_stream_seconds) / 2;
    const loom::video::Frame frame = decoder.get_frame_played_at(middle);
    std::ofstream out(argv[2], std::ios::binary);
    out << "P6\n" << frame.data.size(1) << ' ' << frame.data.size(0) << "\n255\n";
    out.write(static_cast<const char*>(frame.data.data()), static_cast<std::streamsize>(frame.data.nbytes()));
    std::printf("played at %.3f s: frame with pts %.3f s -> %s\n", middle, frame.pts_seconds, argv[2]);
    return out ? 0 : 1;
  } catch (const loom::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
