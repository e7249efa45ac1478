#include "frame_index.h"

#include <fmt/format.h>

#include <algorithm>

#include "loom/codec/error.h"

namespace loom::video::detail {

namespace {

// VP9 uncompressed header (VP9 bitstream spec 6.2): frame_marker(2) profile_low(1) profile_high(1)
// [reserved_zero(1) when profile == 3] show_existing_frame(1) [frame_to_show(3)] frame_type(1)
// show_frame(1).
bool vp9_frame_shown(const uint8_t* data, int size) {
  if (size < 1) return false;
  const unsigned b = data[0];
  if ((b >> 6) != 2) return true;  // not a frame header we understand: let the decoder decide
  const int profile = ((b >> 5) & 1) | (((b >> 4) & 1) << 1);
  // Read bits MSB-first as a bit stream.
  uint32_t word = 0;
  for (int i = 0; i < 4; ++i) word = (word << 8) | (i < size ? data[i] : 0);
  int pos = 4;              // bits consumed: frame_marker(2) + profile(2)
  if (profile == 3) ++pos;  // reserved_zero
  auto read = [&](int n) {
    const uint32_t v = (word >> (32 - pos - n)) & ((1u << n) - 1);
    pos += n;
    return v;
  };
  if (read(1) != 0) return true;  // show_existing_frame: outputs a frame
  read(1);                        // frame_type
  return read(1) != 0;            // show_frame
}

// A VP9 packet may be a superframe (several frames and an index at its end, VP9 spec Annex B); it
// shows a frame when any of its frames does.
bool vp9_packet_shown(const uint8_t* data, int size) {
  if (size <= 0) return false;
  const uint8_t marker = data[size - 1];
  if ((marker & 0xe0) == 0xc0) {
    const int frames = (marker & 0x7) + 1;
    const int mag = ((marker >> 3) & 0x3) + 1;
    const int index_size = 2 + mag * frames;
    if (size >= index_size && data[size - index_size] == marker) {
      const uint8_t* p = data + size - index_size + 1;
      int offset = 0;
      for (int f = 0; f < frames; ++f) {
        int64_t frame_size = 0;
        for (int b = 0; b < mag; ++b) frame_size |= static_cast<int64_t>(p[b]) << (8 * b);
        p += mag;
        if (frame_size <= 0 || offset + frame_size > size - index_size) return true;  // malformed
        if (vp9_frame_shown(data + offset, static_cast<int>(frame_size))) return true;
        offset += static_cast<int>(frame_size);
      }
      return false;
    }
  }
  return vp9_frame_shown(data, size);
}

// Presentation order; frames with equal pts keep their order.
void sort_by_pts(std::vector<IndexedFrame>& frames) {
  std::stable_sort(frames.begin(), frames.end(),
                   [](const IndexedFrame& a, const IndexedFrame& b) { return a.pts < b.pts; });
}

}  // namespace

bool packet_shows_frame(AVCodecID id, const uint8_t* data, int size) {
  if (id == AV_CODEC_ID_VP9) return vp9_packet_shown(data, size);
  if (id == AV_CODEC_ID_VP8) {
    // VP8 frame tag (RFC 6386 9.1): bit 4 of the first byte is show_frame.
    return size < 3 || (data[0] & 0x10) != 0;
  }
  return true;
}

std::vector<IndexedFrame> scan_frames(AVFormatContext* fmt, int stream, AVCodecID codec, const std::string& name,
                                      ffmpeg::Deadline& deadline, int64_t max_frames) {
  ffmpeg::UniquePacket pkt(av_packet_alloc());
  if (!pkt) throw std::bad_alloc();
  std::vector<IndexedFrame> frames;
  bool last_corrupt = false;  // the last packet kept was short (a file cut inside it)
  for (;;) {
    const int ret = av_read_frame(fmt, pkt.get());
    if (ret == AVERROR_EXIT || deadline.expired()) {
      throw Error(ErrorCode::kLimitExceeded, name, "scanning packets: deadline exceeded");
    }
    if (ret < 0) break;  // end of file, or a read error: what was read stays indexed
    if (pkt->stream_index == stream && (pkt->flags & AV_PKT_FLAG_DISCARD) == 0 && pkt->size > 0) {
      const int64_t ts = pkt->pts != AV_NOPTS_VALUE ? pkt->pts : pkt->dts;
      if (ts != AV_NOPTS_VALUE && packet_shows_frame(codec, pkt->data, pkt->size)) {
        if (max_frames > 0 && static_cast<int64_t>(frames.size()) >= max_frames) {
          throw Error(ErrorCode::kLimitExceeded, name,
                      fmt::format("the video stream holds more than {} frames (Limits::max_video_frames)", max_frames));
        }
        frames.push_back({ts, pkt->duration, (pkt->flags & AV_PKT_FLAG_KEY) != 0});
        last_corrupt = (pkt->flags & AV_PKT_FLAG_CORRUPT) != 0;
      }
    }
    av_packet_unref(pkt.get());
  }
  // A packet cut short by the end of the file is not a frame the decoder can give.
  if (last_corrupt) frames.pop_back();
  sort_by_pts(frames);
  return frames;
}

void fill_durations(std::vector<IndexedFrame>& frames, int64_t fallback) {
  for (size_t i = 0; i < frames.size(); ++i) {
    if (frames[i].duration > 0) continue;
    if (i + 1 < frames.size() && frames[i + 1].pts > frames[i].pts) {
      frames[i].duration = frames[i + 1].pts - frames[i].pts;
    } else if (i > 0 && frames[i - 1].duration > 0) {
      frames[i].duration = frames[i - 1].duration;
    } else {
      frames[i].duration = std::max<int64_t>(fallback, 1);
    }
  }
}

std::vector<IndexedFrame> from_custom_index(const FrameIndex& index, const std::string& name) {
  if (index.empty()) throw Error(ErrorCode::kInvalidInput, name, "the custom frame index is empty");
  std::vector<IndexedFrame> frames;
  frames.reserve(index.size());
  for (const FrameIndexEntry& e : index) frames.push_back({e.pts, e.duration, e.key_frame});
  sort_by_pts(frames);
  for (size_t i = 1; i < frames.size(); ++i) {
    if (frames[i].pts == frames[i - 1].pts) {
      throw Error(ErrorCode::kInvalidInput, name, fmt::format("the custom frame index repeats pts {}", frames[i].pts));
    }
  }
  if (!frames.front().key_frame) {
    throw Error(ErrorCode::kInvalidInput, name, "the custom frame index does not start with a keyframe");
  }
  return frames;
}

}  // namespace loom::video::detail
