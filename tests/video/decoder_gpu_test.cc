// The CUDA decode path on a device: the NV12/P010 kernel against its scalar reference (bit for bit),
// and VideoDecoder(device cuda) through NVDEC against the CPU decoder (the bound of docs/video.md),
// on the default stream and on a stream of its own, with the CPU fallback where NVDEC cannot decode.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <cstring>

#include "loom/accel/cuda.h"
#include "loom/accel/device_memory.h"
#include "loom/accel/stream.h"
#include "loom/video/decoder.h"
#include "nv12_convert.h"
#include "nv12_kernels.h"
#include "nv12_util.h"
#include "test_media.h"

namespace loom::video {
namespace {

using loom::test::error_of;

#define SKIP_WITHOUT_DEVICE() \
  if (loom::accel::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device"

// Largest |a - b| over two contiguous uint8 CPU tensors of the same shape.
int max_abs_diff(const Tensor& a, const Tensor& b) {
  EXPECT_EQ(a.numel(), b.numel());
  const auto* pa = static_cast<const uint8_t*>(a.data());
  const auto* pb = static_cast<const uint8_t*>(b.data());
  int m = 0;
  for (int64_t i = 0; i < std::min(a.numel(), b.numel()); ++i) m = std::max(m, std::abs(int(pa[i]) - int(pb[i])));
  return m;
}

Tensor on_host(const Tensor& t) {
  return accel::to_device(t, Device::cpu());
}

Tensor host_bytes(const std::vector<uint8_t>& bytes) {
  const int64_t shape[1] = {static_cast<int64_t>(bytes.size())};
  return Tensor::from_blob(const_cast<uint8_t*>(bytes.data()), shape, {}, DType::kUInt8).clone();
}

// The kernel on repacked software-decoded frames (pitched NV12 and P010) equals the reference.
TEST(Nv12KernelGpuTest, BitExactWithReference) {
#if !defined(LOOM_WITH_CUDA)
  GTEST_SKIP() << "no CUDA device (loom was built without CUDA)";
#else
  SKIP_WITHOUT_DEVICE();
  for (const char* name : {"video/nasa_13013.mp4", "video/exo_roadtrip-vp92-10bit.webm", "video/h264_10bits.mp4",
                           "video/exo_sample_with_increasing_timestamps_320w_240h.mp4"}) {
    const auto frames = detail::decode_frames(loom::test::media(name).string(), 2);
    ASSERT_EQ(frames.size(), 2u) << name;
    for (const auto& frame : frames) {
      detail::SemiPlanar sp = detail::repack(*frame);
      const Tensor luma = accel::to_device(host_bytes(sp.luma), Device::cuda(0));
      const Tensor chroma = accel::to_device(host_bytes(sp.chroma), Device::cuda(0));
      for (Layout layout : {Layout::kCHW, Layout::kHWC}) {
        const size_t bytes = static_cast<size_t>(frame->width) * frame->height * 3;
        std::vector<uint8_t> expected(bytes);
        detail::nv12_to_rgb_reference(detail::nv12_plan(*sp.frame, sp.format, expected.data(), layout));
        const Tensor out = accel::empty_device({static_cast<int64_t>(bytes)}, DType::kUInt8, Device::cuda(0),
                                               accel::current_stream(0));
        detail::Nv12Plan plan = detail::nv12_plan(*sp.frame, sp.format, static_cast<uint8_t*>(out.data()), layout);
        plan.luma = static_cast<const uint8_t*>(luma.data());
        plan.chroma = static_cast<const uint8_t*>(chroma.data());
        accel::check_cuda(detail::nv12_to_rgb_cuda(plan, accel::current_stream(0).handle()), "nv12_to_rgb");
        const Tensor got = on_host(out);
        EXPECT_EQ(std::memcmp(got.data(), expected.data(), bytes), 0) << name;
      }
    }
  }
#endif
}

DecoderOptions cuda_options(Layout layout = Layout::kCHW, bool fallback = false) {
  DecoderOptions o;
  o.device = Device::cuda(0);
  o.dimension_order = layout;
  o.cpu_fallback = fallback;
  return o;
}

// NVDEC frames against the CPU decoder's: same indices and times, colour within the bound.
// `name`: a file of the test media, or an absolute path.
void expect_like_cpu(const std::string& name, const DecoderOptions& options, int bound) {
  const std::string file = name.front() == '/' ? name : loom::test::media(name).string();
  VideoDecoder gpu = VideoDecoder::open(file, options);
  DecoderOptions cpu_options = options;
  cpu_options.device = Device::cpu();
  VideoDecoder cpu = VideoDecoder::open(file, cpu_options);
  EXPECT_EQ(gpu.device(), Device::cuda(0));
  ASSERT_EQ(gpu.num_frames(), cpu.num_frames());
  const int64_t n = cpu.num_frames();
  const std::vector<int64_t> indices = {0, std::min<int64_t>(10, n - 1), 1, n - 1, std::min<int64_t>(10, n - 1)};
  const Frames a = gpu.get_frames_at(indices);
  const Frames b = cpu.get_frames_at(indices);
  EXPECT_EQ(a.data.device(), Device::cuda(0));
  EXPECT_TRUE(std::ranges::equal(a.data.shape(), b.data.shape()));
  EXPECT_EQ(a.pts_seconds, b.pts_seconds);
  accel::current_stream(0).synchronize();
  EXPECT_LE(max_abs_diff(on_host(a.data), b.data), bound) << name;
}

TEST(DecoderGpuTest, NvdecMatchesCpuDecoder) {
  SKIP_WITHOUT_DEVICE();
  for (Layout layout : {Layout::kCHW, Layout::kHWC}) {
    expect_like_cpu("video/nasa_13013.mp4", cuda_options(layout), 2);                // H.264, BT.709
    expect_like_cpu("video/h265_video.mp4", cuda_options(layout), 2);                // HEVC
    expect_like_cpu("video/moviepy_no_duration.webm", cuda_options(layout), 2);      // VP9 720p
    expect_like_cpu("video/exo_roadtrip-vp92-10bit.webm", cuda_options(layout), 4);  // VP9 10-bit: P010
    expect_like_cpu("video/exo_sample_with_increasing_timestamps_320w_240h.mp4", cuda_options(layout), 2);  // full
  }
}

TEST(DecoderGpuTest, OutputSizeConvertsOnTheHost) {
  SKIP_WITHOUT_DEVICE();
  DecoderOptions o = cuda_options();
  o.output_size = Size{96, 128};
  expect_like_cpu("video/nasa_13013.mp4", o, 2);
}

TEST(DecoderGpuTest, OwnStream) {
  SKIP_WITHOUT_DEVICE();
  const accel::Stream stream = accel::Stream::create(0);
  const accel::StreamGuard guard(stream);
  expect_like_cpu("video/nasa_13013.mp4", cuda_options(), 2);
  expect_like_cpu("video/exo_roadtrip-vp92-10bit.webm", cuda_options(Layout::kHWC), 4);
}

// H.264 High 10 has no NVDEC support: refused at the first decoded frame, or decoded on the CPU and
// copied to the device with cpu_fallback. FFV1 has no CUDA decoder in FFmpeg at all.
TEST(DecoderGpuTest, FallbackWhereNvdecCannot) {
  SKIP_WITHOUT_DEVICE();
  const std::string high10 = loom::test::media("video/h264_10bits.mp4").string();
  VideoDecoder refused = VideoDecoder::open(high10, cuda_options());
  const Error e = error_of([&] { refused.get_frame_at(0); });
  EXPECT_EQ(e.code(), ErrorCode::kUnsupported);
  EXPECT_NE(std::string(e.what()).find(high10), std::string::npos) << e.what();
  const loom::test::TempDir dir;
  const std::string ffv1 = detail::ffv1_clip(dir);
  EXPECT_EQ(error_of([&] { VideoDecoder::open(ffv1, cuda_options()); }).code(), ErrorCode::kUnsupported);
  for (const std::string& file : {high10, ffv1}) {
    expect_like_cpu(file, cuda_options(Layout::kCHW, true), 0);  // swscale on both sides
  }
}

TEST(DecoderGpuTest, RotationIsRefused) {
  SKIP_WITHOUT_DEVICE();
  DecoderOptions o = cuda_options();
  o.apply_rotation = true;
  EXPECT_EQ(error_of([&] { VideoDecoder::open(loom::test::media("video/decord_video_90.mov"), o); }).code(),
            ErrorCode::kUnsupported);
}

}  // namespace
}  // namespace loom::video
