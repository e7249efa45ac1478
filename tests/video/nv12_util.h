// Helpers of the device-decode tests (nv12_convert_test.cc, decoder_device_test.cc, decoder_gpu_test.cc):
// frames decoded in software, repacked into the semi-planar layout NVDEC hands over, and their
// comparison; a clip NVDEC cannot decode.
#pragma once

#include <gtest/gtest.h>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
}

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "loom/codec/internal/ffmpeg_handles.h"
#include "loom/codec/tensor.h"
#include "loom/video/encoder.h"
#include "test_media.h"

namespace loom::video::detail {

// The first `count` frames of the best video stream of `path`, decoded in software.
inline std::vector<ffmpeg::UniqueFrame> decode_frames(const std::string& path, int count) {
  AVFormatContext* raw = nullptr;
  EXPECT_EQ(avformat_open_input(&raw, path.c_str(), nullptr, nullptr), 0) << path;
  ffmpeg::UniqueFormatContext format(raw);
  EXPECT_GE(avformat_find_stream_info(format.get(), nullptr), 0);
  const AVCodec* decoder = nullptr;
  const int stream = av_find_best_stream(format.get(), AVMEDIA_TYPE_VIDEO, -1, -1, &decoder, 0);
  EXPECT_GE(stream, 0);
  ffmpeg::UniqueCodecContext codec(avcodec_alloc_context3(decoder));
  avcodec_parameters_to_context(codec.get(), format->streams[stream]->codecpar);
  codec->thread_count = 1;
  EXPECT_EQ(avcodec_open2(codec.get(), decoder, nullptr), 0);
  std::vector<ffmpeg::UniqueFrame> frames;
  ffmpeg::UniquePacket packet(av_packet_alloc());
  bool draining = false;
  while (static_cast<int>(frames.size()) < count) {
    ffmpeg::UniqueFrame frame(av_frame_alloc());
    const int ret = avcodec_receive_frame(codec.get(), frame.get());
    if (ret == 0) {
      frames.push_back(std::move(frame));
      continue;
    }
    if (ret == AVERROR_EOF || draining) break;
    if (av_read_frame(format.get(), packet.get()) < 0) {
      avcodec_send_packet(codec.get(), nullptr);
      draining = true;
      continue;
    }
    if (packet->stream_index == stream) avcodec_send_packet(codec.get(), packet.get());
    av_packet_unref(packet.get());
  }
  return frames;
}

// A planar 4:2:0 frame (8-bit yuv420p/yuvj420p or yuv420p10le) repacked into NV12 or P010 with rows
// `pad` bytes longer than needed, as NVDEC's pitched surfaces are.
struct SemiPlanar {
  std::vector<uint8_t> luma, chroma;
  ffmpeg::UniqueFrame frame{av_frame_alloc()};  // describes them (borrowed data, the source's colour)
  AVPixelFormat format = AV_PIX_FMT_NONE;
};

inline SemiPlanar repack(const AVFrame& src, int pad = 24) {
  const bool ten = src.format == AV_PIX_FMT_YUV420P10LE;
  SemiPlanar out;
  out.format = ten ? AV_PIX_FMT_P010LE : AV_PIX_FMT_NV12;
  const int bytes = ten ? 2 : 1;
  const int w = src.width, h = src.height, cw = (w + 1) / 2, ch = (h + 1) / 2;
  const int luma_pitch = w * bytes + pad, chroma_pitch = cw * 2 * bytes + pad;
  out.luma.assign(static_cast<size_t>(luma_pitch) * h, 0xAB);
  out.chroma.assign(static_cast<size_t>(chroma_pitch) * ch, 0xCD);
  auto put = [&](uint8_t* at, int value) {
    if (!ten) {
      *at = static_cast<uint8_t>(value);
      return;
    }
    const int word = value << 6;  // P010: the 10 bits in the high bits
    at[0] = static_cast<uint8_t>(word & 0xFF);
    at[1] = static_cast<uint8_t>(word >> 8);
  };
  auto get = [&](int plane, int x, int y) {
    const uint8_t* row = src.data[plane] + static_cast<ptrdiff_t>(y) * src.linesize[plane];
    return ten ? row[2 * x] | (row[2 * x + 1] << 8) : row[x];
  };
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) put(&out.luma[static_cast<size_t>(y) * luma_pitch + x * bytes], get(0, x, y));
  }
  for (int y = 0; y < ch; ++y) {
    for (int x = 0; x < cw; ++x) {
      uint8_t* at = &out.chroma[static_cast<size_t>(y) * chroma_pitch + 2 * x * bytes];
      put(at, get(1, x, y));
      put(at + bytes, get(2, x, y));
    }
  }
  av_frame_copy_props(out.frame.get(), &src);
  out.frame->width = w;
  out.frame->height = h;
  out.frame->format = out.format;
  out.frame->data[0] = out.luma.data();
  out.frame->data[1] = out.chroma.data();
  out.frame->linesize[0] = luma_pitch;
  out.frame->linesize[1] = chroma_pitch;
  return out;
}

struct Diff {
  int max = 0;
  double mean = 0;  // of |a - b|
};

inline Diff diff(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  EXPECT_EQ(a.size(), b.size());
  Diff d;
  int64_t sum = 0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    const int e = std::abs(int(a[i]) - int(b[i]));
    d.max = std::max(d.max, e);
    sum += e;
  }
  d.mean = a.empty() ? 0 : static_cast<double>(sum) / static_cast<double>(a.size());
  return d;
}

// A short FFV1 clip (a codec FFmpeg has no CUDA decoder for) in `dir`: 6 frames of 64x48 gradients.
inline std::string ffv1_clip(const loom::test::TempDir& dir) {
  Tensor frames = Tensor::empty({6, 3, 48, 64}, DType::kUInt8);
  auto* p = static_cast<uint8_t*>(frames.data());
  for (int64_t i = 0; i < frames.numel(); ++i) p[i] = static_cast<uint8_t>((i * 7) % 251);
  EncoderOptions o;
  o.codec = "ffv1";
  const std::string path = (dir / "ffv1.mkv").string();
  encode_video(path, frames, 25, o);
  return path;
}

}  // namespace loom::video::detail
