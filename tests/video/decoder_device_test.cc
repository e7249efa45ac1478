// DecoderOptions::device and cpu_fallback where no CUDA device can be used: the clear errors and the
// CPU fallback. (tests/video/decoder_gpu_test.cc covers a machine with a device.)
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "decoder_util.h"
#include "loom/accel/cuda.h"
#include "loom/video/decoder.h"
#include "nv12_util.h"

namespace loom::video {
namespace {

using loom::test::error_of;

DecoderOptions cuda_options(int index = 0, bool fallback = false) {
  DecoderOptions o;
  o.device = Device::cuda(index);
  o.cpu_fallback = fallback;
  return o;
}

TEST(DecoderDeviceTest, NegativeDeviceIndexIsInvalid) {
  const Error e = error_of([] { VideoDecoder::open(loom::test::media("video/nasa_13013.mp4"), cuda_options(-1)); });
  EXPECT_EQ(e.code(), ErrorCode::kInvalidInput);
  EXPECT_NE(std::string(e.what()).find("cuda:-1"), std::string::npos) << e.what();
}

TEST(DecoderDeviceTest, NoDeviceIsUnsupportedNamingTheFile) {
  if (accel::cuda_device_count() > 0) GTEST_SKIP() << "a CUDA device is present (decoder_gpu_test.cc covers it)";
  const std::string file = loom::test::media("video/nasa_13013.mp4").string();
  const Error e = error_of([&] { VideoDecoder::open(file, cuda_options()); });
  EXPECT_EQ(e.code(), ErrorCode::kUnsupported);
  const std::string what = e.what();
  EXPECT_NE(what.find(file), std::string::npos) << what;
  EXPECT_NE(what.find("cuda:0"), std::string::npos) << what;
  EXPECT_NE(what.find("cpu_fallback"), std::string::npos) << what;
  if (accel::built_with_cuda()) {
    EXPECT_NE(what.find("no such CUDA device"), std::string::npos) << what;
  } else {
    EXPECT_NE(what.find("no CUDA support"), std::string::npos) << what;
  }
  // A larger index says the same.
  EXPECT_EQ(error_of([&] { VideoDecoder::open(file, cuda_options(3)); }).code(), ErrorCode::kUnsupported);
}

// FFV1 has no CUDA decoder in FFmpeg: refused whether or not a device is present (at open, before any
// device is touched).
TEST(DecoderDeviceTest, CodecWithoutHardwareDecoderIsUnsupported) {
  if (!accel::built_with_cuda()) GTEST_SKIP() << "a build without CUDA refuses every CUDA device first";
  const loom::test::TempDir dir;
  const std::string file = detail::ffv1_clip(dir);
  const Error e = error_of([&] { VideoDecoder::open(file, cuda_options()); });
  EXPECT_EQ(e.code(), ErrorCode::kUnsupported);
  const std::string what = e.what();
  EXPECT_NE(what.find(file), std::string::npos) << what;
  EXPECT_NE(what.find("no CUDA (NVDEC) decoder for codec ffv1"), std::string::npos) << what;
}

// With cpu_fallback and no device, the decoder is the CPU decoder: the same frames, on the CPU.
TEST(DecoderDeviceTest, FallbackWithoutDeviceDecodesOnTheCpu) {
  if (accel::cuda_device_count() > 0) GTEST_SKIP() << "a CUDA device is present (decoder_gpu_test.cc covers it)";
  const loom::test::TempDir dir;
  for (const std::string& file : {loom::test::media("video/nasa_13013.mp4").string(), detail::ffv1_clip(dir)}) {
    const std::string& name = file;
    VideoDecoder fallback = VideoDecoder::open(file, cuda_options(0, true));
    VideoDecoder cpu = VideoDecoder::open(file);
    EXPECT_TRUE(fallback.device().is_cpu()) << name;
    EXPECT_TRUE(cpu.device().is_cpu());
    EXPECT_EQ(fallback.num_frames(), cpu.num_frames());
    const std::vector<int64_t> indices = {0, 5, 1, 5};
    const Frames a = fallback.get_frames_at(indices);
    const Frames b = cpu.get_frames_at(indices);
    EXPECT_TRUE(a.data.device().is_cpu());
    EXPECT_TRUE(std::ranges::equal(a.data.shape(), b.data.shape()));
    EXPECT_EQ(test::max_abs_diff(a.data, b.data), 0) << name;
    EXPECT_EQ(a.pts_seconds, b.pts_seconds);
  }
}

TEST(DecoderDeviceTest, CpuDecoderIgnoresFallback) {
  DecoderOptions o;
  o.cpu_fallback = true;
  EXPECT_TRUE(VideoDecoder::open(loom::test::media("video/nasa_13013.mp4"), o).device().is_cpu());
}

}  // namespace
}  // namespace loom::video
