// Encodes two seconds of a synthetic moving pattern with a 440 Hz tone: an H.264/AAC MP4 (or whatever
// container the extension names), then a lossless FFV1 MKV beside it.
//   sample_encode_video OUTPUT.mp4
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "loom/codec/error.h"
#include "loom/codec/tensor.h"
#include "loom/video/encoder.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <output.mp4|.mkv|.webm|.avi|.mov>\n", argv[0]);
    return 2;
  }
  constexpr int kWidth = 320, kHeight = 240, kFps = 25, kSeconds = 2, kRate = 48000;
  try {
    // Frames as NHWC uint8 RGB, written in batches of one second.
    loom::video::EncoderOptions options;
    options.fps = kFps;
    options.crf = 23;
    options.dimension_order = loom::Layout::kHWC;
    loom::video::AudioTrack audio;
    audio.samples = loom::Tensor::empty({1, int64_t{kRate} * kSeconds}, loom::DType::kFloat32);
    audio.sample_rate = kRate;
    float* s = audio.samples.data<float>();
    for (int64_t i = 0; i < audio.samples.size(1); ++i) s[i] = 0.3f * std::sin(6.2831853f * 440.0f * i / kRate);

    loom::video::VideoEncoder encoder = loom::video::VideoEncoder::open(argv[1], kWidth, kHeight, options, audio);
    loom::Tensor batch = loom::Tensor::empty({kFps, kHeight, kWidth, 3}, loom::DType::kUInt8);
    for (int second = 0; second < kSeconds; ++second) {
      uint8_t* p = batch.data<uint8_t>();
      for (int f = 0; f < kFps; ++f) {
        const int t = second * kFps + f;
        for (int y = 0; y < kHeight; ++y) {
          for (int x = 0; x < kWidth; ++x, p += 3) {
            p[0] = static_cast<uint8_t>((x + 4 * t) & 255);
            p[1] = static_cast<uint8_t>((y + 2 * t) & 255);
            p[2] = static_cast<uint8_t>(((x ^ y) + t) & 255);
          }
        }
      }
      encoder.write(batch);
    }
    encoder.close();  // without close() nothing would appear at argv[1]
    std::printf("wrote %s: %lld frames, %s at %d/%d fps, %lld bytes\n", argv[1],
                static_cast<long long>(encoder.frames_written()), encoder.codec_name().c_str(), encoder.fps_num(),
                encoder.fps_den(), static_cast<long long>(std::filesystem::file_size(argv[1])));

    // Lossless RGB: FFV1 with bgr0 keeps every value of the input.
    loom::video::EncoderOptions lossless;
    lossless.codec = "ffv1";
    lossless.pixel_format = "bgr0";
    lossless.dimension_order = loom::Layout::kHWC;
    const std::filesystem::path mkv = std::filesystem::path(argv[1]).replace_extension(".lossless.mkv");
    loom::video::encode_video(mkv, batch, kFps, lossless);
    std::printf("wrote %s: %lld bytes\n", mkv.c_str(), static_cast<long long>(std::filesystem::file_size(mkv)));
  } catch (const loom::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
