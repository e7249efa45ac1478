#include "frame_source.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>

#include "loom/codec/error.h"
#include "loom/codec/internal/stream_info.h"

namespace loom::video::detail {

// ---------------------------------------------------------------------------------------------------
// Opening

void FrameSource::arm() {
  const double s = limits_.deadline_seconds;
  deadline_.until =
      s > 0 ? std::chrono::steady_clock::now() +
                  std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(s))
            : std::chrono::steady_clock::time_point::max();
}

void FrameSource::check_deadline() const {
  if (deadline_.expired()) throw Error(ErrorCode::kLimitExceeded, name_, "decoding: deadline exceeded");
}

void FrameSource::open_input(const std::filesystem::path& path) {
  file_ctx_ = ffmpeg::open_input(path.string(), limits_, deadline_);
  fmt_ = file_ctx_.get();
}

void FrameSource::open_input(const ByteSource& source) {
  memory_ = ffmpeg::open_input(source, limits_, deadline_);
  fmt_ = memory_.ctx.get();
}

void FrameSource::open_stream(int stream_index, DecodeBackend& backend, const DecoderOptions& options) {
  int chosen = stream_index;
  if (chosen >= 0) {
    if (chosen >= static_cast<int>(fmt_->nb_streams)) {
      throw Error(ErrorCode::kInvalidInput, name_,
                  fmt::format("stream {} does not exist (the file has {} streams)", chosen, fmt_->nb_streams));
    }
    if (fmt_->streams[chosen]->codecpar->codec_type != AVMEDIA_TYPE_VIDEO) {
      throw Error(ErrorCode::kInvalidInput, name_, fmt::format("stream {} is not a video stream", chosen));
    }
  } else {
    chosen = ffmpeg::best_stream(*fmt_, AVMEDIA_TYPE_VIDEO);
    if (chosen < 0) throw Error(ErrorCode::kInvalidInput, name_, "holds no video stream");
  }
  stream_ = fmt_->streams[chosen];
  time_base_ = {stream_->time_base.num, stream_->time_base.den};
  if (time_base_.num <= 0 || time_base_.den <= 0) {
    throw Error(ErrorCode::kInvalidInput, name_, "video stream has no time base");
  }
  for (unsigned i = 0; i < fmt_->nb_streams; ++i) {
    if (static_cast<int>(i) != chosen) fmt_->streams[i]->discard = AVDISCARD_ALL;  // demux only our stream
  }
  const AVCodecParameters* par = stream_->codecpar;
  check_image_size(limits_, name_, par->width, par->height, 3, 1);

  const AVCodec* decoder = avcodec_find_decoder(par->codec_id);
  if (decoder == nullptr) {
    throw Error(ErrorCode::kUnsupported, name_,
                fmt::format("no decoder for codec {}", avcodec_get_name(par->codec_id)));
  }
  codec_.reset(avcodec_alloc_context3(decoder));
  packet_.reset(av_packet_alloc());
  frame_.reset(av_frame_alloc());
  if (!codec_ || !packet_ || !frame_) throw std::bad_alloc();
  int ret = avcodec_parameters_to_context(codec_.get(), par);
  if (ret < 0) ffmpeg::throw_error(ret, name_, "cannot set up the decoder");
  codec_->pkt_timebase = stream_->time_base;
  backend.configure(*codec_, options);
  if (limits_.max_pixels > 0) {
    codec_->max_pixels = static_cast<int64_t>(std::min<uint64_t>(limits_.max_pixels, INT64_MAX));
  }
  ret = avcodec_open2(codec_.get(), decoder, nullptr);
  if (ret < 0) ffmpeg::throw_error(ret, name_, "cannot open the decoder");
  // H.264: nal_ref_idc == 0 is never referenced; MPEG-2: B-frames are never referenced (both covered by
  // tests with B-frames). Not HEVC: its sub-layer non-reference pictures may be referenced by higher
  // temporal sub-layers. Others (MPEG-4 part 2's packed B-frames, VP9, AV1) untested: nothing skipped.
  can_skip_nonref_ = par->codec_id == AV_CODEC_ID_H264 || par->codec_id == AV_CODEC_ID_MPEG2VIDEO;

  // The first frame's pts against the first index entry: 0 for an index of pts (Matroska's cues), the
  // B-frame delay for one of dts (MP4). Bounded by one second, so that an odd index costs little.
  const AVIndexEntry* first = avformat_index_get_entry(stream_, 0);
  if (first != nullptr && stream_->start_time != AV_NOPTS_VALUE) {
    const int64_t second = av_rescale_q(1, AVRational{1, 1}, stream_->time_base);
    index_pts_offset_ = std::clamp<int64_t>(stream_->start_time - first->timestamp, 0, second);
  }
}

int64_t FrameSource::nominal_duration() const {
  const AVRational fps = stream_->avg_frame_rate.num > 0 ? stream_->avg_frame_rate : stream_->r_frame_rate;
  if (fps.num <= 0 || fps.den <= 0) return 0;
  return av_rescale_q(1, av_inv_q(fps), stream_->time_base);
}

int64_t FrameSource::frame_duration() const {
  if (frame_->pkt_duration > 0) return frame_->pkt_duration;
  return std::max<int64_t>(nominal_duration(), 1);
}

std::vector<IndexedFrame> FrameSource::scan(int64_t max_frames) {
  return scan_frames(fmt_, stream_->index, stream_->codecpar->codec_id, name_, deadline_, max_frames);
}

// ---------------------------------------------------------------------------------------------------
// Seeking and decoding

void FrameSource::seek(int64_t ts) {
  int ret = av_seek_frame(fmt_, stream_->index, ts, AVSEEK_FLAG_BACKWARD);
  if (ret == AVERROR_EXIT) throw Error(ErrorCode::kLimitExceeded, name_, "seeking: deadline exceeded");
  if (ret < 0) {
    seek_to_start();
    return;
  }
  after_seek();
}

void FrameSource::seek_to_start() {
  // A time well before the first frame: timestamp-searching demuxers (MPEG-PS/TS) then land on the
  // first packet, which seeking to the first frame's own pts does not guarantee.
  const int64_t before = std::min<int64_t>(first_pts_, 0) - av_rescale_q(10, AVRational{1, 1}, stream_->time_base);
  int ret = av_seek_frame(fmt_, stream_->index, before, AVSEEK_FLAG_BACKWARD);
  if (ret < 0 && ret != AVERROR_EXIT && (fmt_->iformat->flags & AVFMT_NO_BYTE_SEEK) == 0) {
    ret = av_seek_frame(fmt_, -1, 0, AVSEEK_FLAG_BYTE);
  }
  if (ret == AVERROR_EXIT) throw Error(ErrorCode::kLimitExceeded, name_, "seeking: deadline exceeded");
  if (ret < 0) ffmpeg::throw_error(ret, name_, "cannot seek");
  after_seek();
}

void FrameSource::after_seek() {
  ++stats_.seeks;
  avcodec_flush_buffers(codec_.get());
  positioned_ = true;
  eof_sent_ = finished_ = have_frame_ = false;
  frames_since_seek_ = 0;
  read_error_.clear();
}

bool FrameSource::next_frame() {
  have_frame_ = false;
  for (;;) {
    check_deadline();
    av_frame_unref(frame_.get());
    int ret = avcodec_receive_frame(codec_.get(), frame_.get());
    if (ret == 0) {
      have_frame_ = true;
      ++frames_since_seek_;
      ++stats_.frames_decoded;
      return true;
    }
    if (ret == AVERROR_EOF) {
      finished_ = true;
      return false;
    }
    if (ret != AVERROR(EAGAIN)) {
      ++decode_errors_;  // a corrupt frame: skip it and go on
      continue;
    }
    if (eof_sent_) {
      finished_ = true;
      return false;
    }
    ret = av_read_frame(fmt_, packet_.get());
    if (ret == AVERROR_EXIT) throw Error(ErrorCode::kLimitExceeded, name_, "reading: deadline exceeded");
    if (ret < 0) {
      if (ret != AVERROR_EOF) read_error_ = ffmpeg::error_string(ret);
      avcodec_send_packet(codec_.get(), nullptr);
      eof_sent_ = true;
      continue;
    }
    if (packet_->stream_index != stream_->index) {
      av_packet_unref(packet_.get());
      continue;
    }
    // Frame threads copy skip_frame from this context with every packet sent, slice threads read it.
    codec_->skip_frame = holds_earlier_frame(*packet_) ? AVDISCARD_NONREF : AVDISCARD_DEFAULT;
    ret = avcodec_send_packet(codec_.get(), packet_.get());
    ++stats_.packets_sent;
    av_packet_unref(packet_.get());
    if (ret < 0 && ret != AVERROR(EAGAIN)) ++decode_errors_;  // a corrupt packet: skip it
  }
}

bool FrameSource::holds_earlier_frame(const AVPacket& packet) const {
  if (skip_.before == kNoPts || packet.pts == AV_NOPTS_VALUE) return false;
  if (!skip_.by_end) return packet.pts < skip_.before;
  return packet.duration > 0 && packet.pts + packet.duration <= skip_.before;
}

class FrameSource::ScopedSkip {
 public:
  ScopedSkip(FrameSource& source, SkipRule rule) : source_(source) {
    if (source.can_skip_nonref_) source.skip_ = rule;
  }
  ScopedSkip(const ScopedSkip&) = delete;
  ScopedSkip& operator=(const ScopedSkip&) = delete;
  ~ScopedSkip() { source_.skip_ = {}; }

 private:
  FrameSource& source_;
};

void FrameSource::throw_missing(const std::string& what) {
  std::string why;
  if (!read_error_.empty()) {
    why = fmt::format("reading stopped with \"{}\" before it (truncated or damaged file)", read_error_);
  } else if (finished_) {
    why = "the stream ends before it (truncated file, or a wrong index)";
  } else {
    why = "the decoder did not produce it (corrupt packets, or a wrong index)";
  }
  if (decode_errors_ > 0) why += fmt::format("; {} packets or frames failed to decode", decode_errors_);
  throw Error(ErrorCode::kInvalidInput, name_, fmt::format("cannot decode {}: {}", what, why));
}

FrameTimes FrameSource::decode(const FrameTarget& target) {
  if (target.indexed) {
    decode_indexed(target);
    return {target.seconds, target.indexed->duration_seconds};
  }
  decode_played_at(target.seconds);
  return {time_base_.seconds(frame_pts()), time_base_.seconds(frame_duration())};
}

void FrameSource::decode_indexed(const FrameTarget& target) {
  const int64_t want = target.indexed->pts;
  const int64_t key_pts = target.indexed->key_pts;
  if (have_frame_ && frame_pts() == want) return;
  // Decoding on through the keyframe is no dearer than seeking to it while we stand at most a frame
  // before it (a sequential pass never seeks).
  const bool forward =
      positioned_ && have_frame_ && !finished_ && frame_pts() < want && key_pts <= frame_pts() + frame_duration();
  if (!forward) seek(key_pts);
  const ScopedSkip skip(*this, {want, false});
  bool from_start = false;
  for (;;) {
    // The seek went well when the first frame decoded after it is not after the keyframe.
    bool landed_late = !forward && !from_start;
    while (next_frame()) {
      const int64_t pts = frame_pts();
      if (frames_since_seek_ == 1 && !forward && pts <= key_pts) landed_late = false;
      if (pts < want) continue;
      if (pts == want) return;
      landed_late = true;  // a frame after the one wanted: it was skipped
      break;
    }
    // The frame never came: either the seek landed after the keyframe (imprecise seeking in MPEG-TS/PS),
    // or the frame is missing from the file (truncated or corrupt). Retry once from the start.
    if (from_start || !landed_late) {
      throw_missing(fmt::format("frame {} (pts {:.6f} s)", target.index, target.seconds));
    }
    seek_to_start();
    from_start = true;
  }
}

void FrameSource::decode_played_at(double t) {
  auto start_s = [&] { return time_base_.seconds(frame_pts()); };
  auto end_s = [&] { return time_base_.seconds(frame_pts() + frame_duration()); };
  if (have_frame_ && start_s() <= t && t < end_s()) return;
  const int64_t ts = static_cast<int64_t>(std::floor(t / av_q2d(stream_->time_base)));
  bool forward = positioned_ && have_frame_ && !finished_ && end_s() <= t;
  if (forward) {
    // The keyframe whose pts is at or before t: in an index of dts (MP4), the last entry at or before
    // t - index_pts_offset_. Decoding on is no dearer than seeking while we stand at most a frame
    // before it. (Seeking itself takes pts in every demuxer.)
    const AVIndexEntry* e =
        avformat_index_get_entry_from_timestamp(stream_, ts - index_pts_offset_, AVSEEK_FLAG_BACKWARD);
    forward = e != nullptr ? e->timestamp + index_pts_offset_ <= frame_pts() + frame_duration() : t - start_s() < 2.0;
  }
  if (!forward) seek(ts);
  const ScopedSkip skip(*this, {ts, true});
  bool from_start = false;
  for (;;) {
    bool late = false;
    while (next_frame()) {
      if (end_s() <= t) continue;
      if (start_s() > t && frames_since_seek_ == 1 && !from_start) {
        late = true;  // the seek landed after t
        break;
      }
      return;
    }
    if (from_start || !(late || frames_since_seek_ == 0)) throw_missing(fmt::format("the frame at {:.6f} s", t));
    seek_to_start();
    from_start = true;
  }
}

}  // namespace loom::video::detail
