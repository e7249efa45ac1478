#include "loom/video/decoder.h"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/display.h>
#include <libavutil/pixdesc.h>
}

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <optional>

#include "color_convert.h"
#include "loom/codec/internal/ffmpeg_handles.h"
#include "frame_index.h"
#include "loom/accel/interleave.h"
#include "loom/codec/error.h"

namespace loom::video {
namespace {

using detail::IndexedFrame;

std::string name_or_unknown(const char* s) { return s != nullptr ? s : "unknown"; }

constexpr int64_t kNoPts = std::numeric_limits<int64_t>::min();

}  // namespace

struct VideoDecoder::Impl {
  std::string name;
  DecoderOptions options;
  ffmpeg::Deadline deadline;
  // Exactly one of these two owns the format context; declared before the codec objects so that
  // they are closed last.
  ffmpeg::MemoryInput memory;
  ffmpeg::UniqueFormatContext file_ctx;
  AVFormatContext* fmt = nullptr;
  AVStream* stream = nullptr;
  AVRational time_base{0, 1};
  ffmpeg::UniqueCodecContext codec;
  ffmpeg::UniquePacket packet;
  ffmpeg::UniqueFrame frame;
  std::optional<detail::ColorConverter> converter;
  std::vector<uint8_t> scratch;  // one padded RGB24 frame
  int out_width = 0, out_height = 0;
  StreamMetadata meta;

  bool exact = true;
  std::vector<IndexedFrame> index;  // exact mode: presentation order
  std::vector<double> index_seconds;
  int64_t approx_frames = 0;

  // Decode position.
  bool positioned = false;   // a seek was made since open (the scan leaves the demuxer at the end)
  bool eof_sent = false;     // the decoder was sent the drain packet
  bool finished = false;     // the decoder is drained: nothing more until the next seek
  bool have_frame = false;   // `frame` holds the last decoded frame
  int64_t frames_since_seek = 0;
  int64_t decode_errors = 0;
  std::string read_error;

  // Skipping non-reference frames (exact mode): while decoding toward the frame with pts `skip_below`,
  // a packet whose pts is below it holds a frame nobody asked for, and when the frame is not a reference
  // for any other frame (AVDISCARD_NONREF), no later frame depends on it either: the decoder may drop it.
  // Packets are judged one at a time (pts < skip_below), so B-frame reordering cannot drop the asked
  // frame. Only for codecs whose "non-reference" is exact in libavcodec (see can_skip_nonref).
  bool can_skip_nonref = false;
  int64_t skip_below = kNoPts;

  void arm() {
    const double s = options.limits.deadline_seconds;
    deadline.until = s > 0 ? std::chrono::steady_clock::now() +
                                 std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                     std::chrono::duration<double>(s))
                           : std::chrono::steady_clock::time_point::max();
  }
  void check_deadline() const {
    if (deadline.expired()) throw Error(ErrorCode::kLimitExceeded, name, "decoding: deadline exceeded");
  }

  // Correctly rounded (as Python's float(Fraction)) while ts * num fits in 53 bits.
  double seconds(int64_t ts) const {
    return static_cast<double>(ts) * time_base.num / static_cast<double>(time_base.den);
  }
  int64_t frame_pts() const { return frame->pts != AV_NOPTS_VALUE ? frame->pts : frame->best_effort_timestamp; }
  int64_t nominal_duration() const {
    const AVRational fps = stream->avg_frame_rate.num > 0 ? stream->avg_frame_rate : stream->r_frame_rate;
    if (fps.num <= 0 || fps.den <= 0) return 0;
    return av_rescale_q(1, av_inv_q(fps), time_base);
  }
  int64_t frame_duration() const {
    if (frame->pkt_duration > 0) return frame->pkt_duration;
    return std::max<int64_t>(nominal_duration(), 1);
  }

  void setup(const DecoderOptions& opts);
  void set_output_size(std::optional<Size> size);  // validates and rebuilds the converter
  void fill_metadata();
  void seek(int64_t ts);
  void seek_to_start();
  void after_seek();  // the decoder and the decode position, reset after a successful seek
  bool next_frame();
  [[noreturn]] void throw_missing(const std::string& what);
  void decode_exact(int64_t k);
  void decode_played_at_approx(double t);

  int64_t normalize_index(int64_t i) const;
  int64_t num_frames() const { return exact ? static_cast<int64_t>(index.size()) : approx_frames; }
  double approx_time_of(int64_t i) const {
    return meta.begin_stream_seconds + (static_cast<double>(i) + 0.5) / meta.average_fps;
  }
  int64_t exact_index_played_at(double t) const;
  // Approximate mode: the frame index the header's rate puts at t, clamped to [0, approx_frames].
  int64_t approx_index_at(double t) const;
  void check_time(double t) const;

  Tensor allocate(int64_t n) const;
  void write_frame(const Tensor& out, int64_t slot);
  void copy_slot(const Tensor& out, int64_t from, int64_t to) const;
  Frames frames_at_sorted(std::span<const int64_t> indices);
};

// ---------------------------------------------------------------------------------------------------
// Opening

void VideoDecoder::Impl::setup(const DecoderOptions& opts) {
  options = opts;
  const Limits& limits = options.limits;
  if (options.num_threads < 0) {
    throw Error(ErrorCode::kInvalidInput, name, fmt::format("num_threads must be >= 0, got {}", options.num_threads));
  }
  int chosen = options.stream_index;
  if (chosen >= 0) {
    if (chosen >= static_cast<int>(fmt->nb_streams)) {
      throw Error(ErrorCode::kInvalidInput, name,
                  fmt::format("stream {} does not exist (the file has {} streams)", chosen, fmt->nb_streams));
    }
    if (fmt->streams[chosen]->codecpar->codec_type != AVMEDIA_TYPE_VIDEO) {
      throw Error(ErrorCode::kInvalidInput, name, fmt::format("stream {} is not a video stream", chosen));
    }
  } else {
    chosen = av_find_best_stream(fmt, AVMEDIA_TYPE_VIDEO, -1, -1, nullptr, 0);
    if (chosen < 0) throw Error(ErrorCode::kInvalidInput, name, "holds no video stream");
  }
  stream = fmt->streams[chosen];
  time_base = stream->time_base;
  if (time_base.num <= 0 || time_base.den <= 0) throw Error(ErrorCode::kInvalidInput, name, "video stream has no time base");
  for (unsigned i = 0; i < fmt->nb_streams; ++i) {
    if (static_cast<int>(i) != chosen) fmt->streams[i]->discard = AVDISCARD_ALL;  // demux only our stream
  }
  const AVCodecParameters* par = stream->codecpar;
  check_image_size(limits, name, par->width, par->height, 3, 1);

  const AVCodec* decoder = avcodec_find_decoder(par->codec_id);
  if (decoder == nullptr) {
    throw Error(ErrorCode::kUnsupported, name, fmt::format("no decoder for codec {}", avcodec_get_name(par->codec_id)));
  }
  codec.reset(avcodec_alloc_context3(decoder));
  packet.reset(av_packet_alloc());
  frame.reset(av_frame_alloc());
  if (!codec || !packet || !frame) throw std::bad_alloc();
  int ret = avcodec_parameters_to_context(codec.get(), par);
  if (ret < 0) ffmpeg::throw_error(ret, name, "cannot set up the decoder");
  codec->pkt_timebase = time_base;
  codec->thread_count = options.num_threads;
  if (limits.max_pixels > 0) {
    codec->max_pixels = static_cast<int64_t>(std::min<uint64_t>(limits.max_pixels, INT64_MAX));
  }
  ret = avcodec_open2(codec.get(), decoder, nullptr);
  if (ret < 0) ffmpeg::throw_error(ret, name, "cannot open the decoder");
  // H.264: nal_ref_idc == 0 is never referenced; MPEG-2: B-frames are never referenced (both covered by
  // tests with B-frames). Not HEVC: its sub-layer non-reference pictures may be referenced by higher
  // temporal sub-layers. Others (MPEG-4 part 2's packed B-frames, VP9, AV1) untested: nothing skipped.
  can_skip_nonref = par->codec_id == AV_CODEC_ID_H264 || par->codec_id == AV_CODEC_ID_MPEG2VIDEO;
  set_output_size(options.output_size);

  fill_metadata();

  exact = options.custom_index.has_value() || options.seek_mode == SeekMode::kExact;
  if (!exact) {
    if (meta.num_frames_from_header > 0) {
      approx_frames = meta.num_frames_from_header;
    } else if (meta.duration_seconds > 0 && meta.average_fps > 0) {
      approx_frames = std::llround(meta.duration_seconds * meta.average_fps);
    }
    if (approx_frames <= 0 || meta.average_fps <= 0) exact = true;  // nothing to trust: scan instead
  }
  const int64_t max_frames = options.limits.max_video_frames;
  if (max_frames > 0 && ((!exact && approx_frames > max_frames) ||
                         (options.custom_index && static_cast<int64_t>(options.custom_index->size()) > max_frames))) {
    throw Error(ErrorCode::kLimitExceeded, name,
                fmt::format("the video stream declares more than {} frames (Limits::max_video_frames)", max_frames));
  }
  if (exact) {
    if (options.custom_index) {
      index = detail::from_custom_index(*options.custom_index, name);
    } else {
      index = detail::scan_frames(fmt, stream->index, par->codec_id, name, deadline, max_frames);
    }
    detail::fill_durations(index, nominal_duration());
    if (index.empty()) throw Error(ErrorCode::kInvalidInput, name, "the video stream holds no frames");
    index_seconds.reserve(index.size());
    for (const IndexedFrame& f : index) {
      index_seconds.push_back(seconds(f.pts));
      if (f.key_frame) meta.key_frame_indices.push_back(static_cast<int64_t>(index_seconds.size()) - 1);
    }
    meta.num_frames_from_content = static_cast<int64_t>(index.size());
    meta.begin_stream_seconds = index_seconds.front();
    meta.end_stream_seconds = seconds(index.back().pts + index.back().duration);
  } else {
    const double start = stream->start_time != AV_NOPTS_VALUE ? seconds(stream->start_time) : 0.0;
    meta.begin_stream_seconds = start;
    meta.end_stream_seconds = meta.duration_seconds > 0
                                  ? start + meta.duration_seconds
                                  : start + static_cast<double>(approx_frames) / meta.average_fps;
  }
}

void VideoDecoder::Impl::set_output_size(std::optional<Size> size) {
  if (size && (size->height <= 0 || size->width <= 0)) {
    throw Error(ErrorCode::kInvalidInput, name,
                fmt::format("output_size must be positive, got {}x{} (height x width)", size->height, size->width));
  }
  if (size && (size->height > INT_MAX || size->width > INT_MAX)) {
    throw Error(ErrorCode::kLimitExceeded, name,
                fmt::format("output_size {}x{} (height x width) is too large", size->height, size->width));
  }
  const AVCodecParameters* par = stream->codecpar;
  const int width = size ? static_cast<int>(size->width) : par->width;
  const int height = size ? static_cast<int>(size->height) : par->height;
  check_image_size(options.limits, name, width, height, 3, 1);
  options.output_size = size;
  out_width = width;
  out_height = height;
  converter.emplace(out_width, out_height);
}

void VideoDecoder::Impl::fill_metadata() {
  const AVCodecParameters* par = stream->codecpar;
  meta.stream_index = stream->index;
  meta.container = fmt->iformat != nullptr ? fmt->iformat->name : "";
  meta.codec = avcodec_get_name(par->codec_id);
  meta.width = par->width;
  meta.height = par->height;
  meta.pixel_format = name_or_unknown(av_get_pix_fmt_name(static_cast<AVPixelFormat>(par->format)));
  meta.color_space = name_or_unknown(av_color_space_name(par->color_space));
  meta.color_range = name_or_unknown(av_color_range_name(par->color_range));
  meta.color_primaries = name_or_unknown(av_color_primaries_name(par->color_primaries));
  if (const uint8_t* m = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, nullptr)) {
    const double r = av_display_rotation_get(reinterpret_cast<const int32_t*>(m));
    if (std::isfinite(r)) meta.rotation = r;
  }
  if (stream->avg_frame_rate.num > 0 && stream->avg_frame_rate.den > 0) meta.average_fps = av_q2d(stream->avg_frame_rate);
  meta.num_frames_from_header = std::max<int64_t>(stream->nb_frames, 0);
  if (stream->duration != AV_NOPTS_VALUE && stream->duration > 0) {
    meta.duration_seconds = seconds(stream->duration);
  } else if (fmt->duration != AV_NOPTS_VALUE && fmt->duration > 0) {
    meta.duration_seconds = static_cast<double>(fmt->duration) / AV_TIME_BASE;
  }
  for (unsigned i = 0; i < fmt->nb_streams; ++i) {
    const AVStream* s = fmt->streams[i];
    if (s->codecpar->codec_type != AVMEDIA_TYPE_AUDIO) continue;
    AudioStreamMetadata a;
    a.stream_index = s->index;
    a.codec = avcodec_get_name(s->codecpar->codec_id);
    a.sample_rate = s->codecpar->sample_rate;
    a.channels = s->codecpar->ch_layout.nb_channels;
    if (s->duration != AV_NOPTS_VALUE && s->time_base.den > 0) a.duration_seconds = s->duration * av_q2d(s->time_base);
    meta.audio_streams.push_back(a);
  }
}

// ---------------------------------------------------------------------------------------------------
// Decoding

void VideoDecoder::Impl::seek(int64_t ts) {
  int ret = av_seek_frame(fmt, stream->index, ts, AVSEEK_FLAG_BACKWARD);
  if (ret == AVERROR_EXIT) throw Error(ErrorCode::kLimitExceeded, name, "seeking: deadline exceeded");
  if (ret < 0) {
    seek_to_start();
    return;
  }
  after_seek();
}

void VideoDecoder::Impl::seek_to_start() {
  // A time well before the first frame: timestamp-searching demuxers (MPEG-PS/TS) then land on the
  // first packet, which seeking to the first frame's own pts does not guarantee.
  const int64_t first = exact ? index.front().pts : (stream->start_time != AV_NOPTS_VALUE ? stream->start_time : 0);
  const int64_t before = std::min<int64_t>(first, 0) - av_rescale_q(10, AVRational{1, 1}, time_base);
  int ret = av_seek_frame(fmt, stream->index, before, AVSEEK_FLAG_BACKWARD);
  if (ret < 0 && ret != AVERROR_EXIT && (fmt->iformat->flags & AVFMT_NO_BYTE_SEEK) == 0) {
    ret = av_seek_frame(fmt, -1, 0, AVSEEK_FLAG_BYTE);
  }
  if (ret == AVERROR_EXIT) throw Error(ErrorCode::kLimitExceeded, name, "seeking: deadline exceeded");
  if (ret < 0) ffmpeg::throw_error(ret, name, "cannot seek");
  after_seek();
}

void VideoDecoder::Impl::after_seek() {
  avcodec_flush_buffers(codec.get());
  positioned = true;
  eof_sent = finished = have_frame = false;
  frames_since_seek = 0;
  read_error.clear();
}

bool VideoDecoder::Impl::next_frame() {
  have_frame = false;
  for (;;) {
    check_deadline();
    av_frame_unref(frame.get());
    int ret = avcodec_receive_frame(codec.get(), frame.get());
    if (ret == 0) {
      have_frame = true;
      ++frames_since_seek;
      return true;
    }
    if (ret == AVERROR_EOF) {
      finished = true;
      return false;
    }
    if (ret != AVERROR(EAGAIN)) {
      ++decode_errors;  // a corrupt frame: skip it and go on
      continue;
    }
    if (eof_sent) {
      finished = true;
      return false;
    }
    ret = av_read_frame(fmt, packet.get());
    if (ret == AVERROR_EXIT) throw Error(ErrorCode::kLimitExceeded, name, "reading: deadline exceeded");
    if (ret < 0) {
      if (ret != AVERROR_EOF) read_error = ffmpeg::error_string(ret);
      avcodec_send_packet(codec.get(), nullptr);
      eof_sent = true;
      continue;
    }
    if (packet->stream_index != stream->index) {
      av_packet_unref(packet.get());
      continue;
    }
    // Frame threads copy skip_frame from this context with every packet sent, slice threads read it.
    codec->skip_frame = skip_below != kNoPts && packet->pts != AV_NOPTS_VALUE && packet->pts < skip_below
                            ? AVDISCARD_NONREF
                            : AVDISCARD_DEFAULT;
    ret = avcodec_send_packet(codec.get(), packet.get());
    av_packet_unref(packet.get());
    if (ret < 0 && ret != AVERROR(EAGAIN)) ++decode_errors;  // a corrupt packet: skip it
  }
}

void VideoDecoder::Impl::throw_missing(const std::string& what) {
  std::string why;
  if (!read_error.empty()) {
    why = fmt::format("reading stopped with \"{}\" before it (truncated or damaged file)", read_error);
  } else if (finished) {
    why = "the stream ends before it (truncated file, or a wrong index)";
  } else {
    why = "the decoder did not produce it (corrupt packets, or a wrong index)";
  }
  if (decode_errors > 0) why += fmt::format("; {} packets or frames failed to decode", decode_errors);
  throw Error(ErrorCode::kInvalidInput, name, fmt::format("cannot decode {}: {}", what, why));
}

void VideoDecoder::Impl::decode_exact(int64_t k) {
  const int64_t want = index[k].pts;
  if (have_frame && frame_pts() == want) return;
  int64_t key = k;
  while (key > 0 && !index[key].key_frame) --key;
  const bool forward = positioned && have_frame && !finished && frame_pts() < want && index[key].pts <= frame_pts();
  if (!forward) seek(index[key].pts);
  struct ResetSkip {
    int64_t& v;
    ~ResetSkip() { v = kNoPts; }
  } reset_skip{skip_below};
  if (can_skip_nonref) skip_below = want;
  bool from_start = false;
  for (;;) {
    // The seek went well when the first frame decoded after it is not after the keyframe.
    bool landed_late = !forward && !from_start;
    while (next_frame()) {
      const int64_t pts = frame_pts();
      if (frames_since_seek == 1 && !forward && pts <= index[key].pts) landed_late = false;
      if (pts < want) continue;
      if (pts == want) return;
      landed_late = true;  // a frame after the one wanted: it was skipped
      break;
    }
    // The frame never came: either the seek landed after the keyframe (imprecise seeking in MPEG-TS/PS),
    // or the frame is missing from the file (truncated or corrupt). Retry once from the start.
    if (from_start || !landed_late) throw_missing(fmt::format("frame {} (pts {:.6f} s)", k, index_seconds[k]));
    seek_to_start();
    from_start = true;
  }
}

void VideoDecoder::Impl::decode_played_at_approx(double t) {
  auto start_s = [&] { return seconds(frame_pts()); };
  auto end_s = [&] { return seconds(frame_pts() + frame_duration()); };
  if (have_frame && start_s() <= t && t < end_s()) return;
  const int64_t ts = static_cast<int64_t>(std::floor(t / av_q2d(time_base)));
  bool forward = positioned && have_frame && !finished && end_s() <= t;
  if (forward) {
    const AVIndexEntry* e = avformat_index_get_entry_from_timestamp(stream, ts, AVSEEK_FLAG_BACKWARD);
    forward = e != nullptr ? e->timestamp <= frame_pts() : t - start_s() < 2.0;
  }
  if (!forward) seek(ts);
  bool from_start = false;
  for (;;) {
    bool late = false;
    while (next_frame()) {
      if (end_s() <= t) continue;
      if (start_s() > t && frames_since_seek == 1 && !from_start) {
        late = true;  // the seek landed after t
        break;
      }
      return;
    }
    if (from_start || !(late || frames_since_seek == 0)) throw_missing(fmt::format("the frame at {:.6f} s", t));
    seek_to_start();
    from_start = true;
  }
}

// ---------------------------------------------------------------------------------------------------
// Indices, times and output

int64_t VideoDecoder::Impl::normalize_index(int64_t i) const {
  const int64_t n = num_frames();
  if (i < -n || i >= n) {
    throw Error(ErrorCode::kInvalidInput, name,
                fmt::format("frame index {} is out of range: the video has {} frames (valid: {} to {})", i, n, -n,
                            n - 1));
  }
  return i < 0 ? i + n : i;
}

void VideoDecoder::Impl::check_time(double t) const {
  if (!(t >= meta.begin_stream_seconds && t < meta.end_stream_seconds)) {
    throw Error(ErrorCode::kInvalidInput, name,
                fmt::format("time {} s is outside the video's frames [{:.6f}, {:.6f}) s", t, meta.begin_stream_seconds,
                            meta.end_stream_seconds));
  }
}

int64_t VideoDecoder::Impl::exact_index_played_at(double t) const {
  check_time(t);
  const auto it = std::upper_bound(index_seconds.begin(), index_seconds.end(), t);
  return std::max<int64_t>(it - index_seconds.begin() - 1, 0);
}

int64_t VideoDecoder::Impl::approx_index_at(double t) const {
  const auto i = static_cast<int64_t>(std::floor((t - meta.begin_stream_seconds) * meta.average_fps + 1e-9));
  return std::clamp<int64_t>(i, 0, approx_frames);
}

Tensor VideoDecoder::Impl::allocate(int64_t n) const {
  const uint64_t bytes = static_cast<uint64_t>(n) * 3 * static_cast<uint64_t>(out_width) * out_height;
  if (options.limits.max_bytes > 0 && bytes > options.limits.max_bytes) {
    throw Error(ErrorCode::kLimitExceeded, name,
                fmt::format("{} frames of {}x{} need {} bytes, more than Limits::max_bytes ({})", n, out_width,
                            out_height, bytes, options.limits.max_bytes));
  }
  if (options.dimension_order == Layout::kHWC) return Tensor::empty({n, out_height, out_width, 3}, DType::kUInt8);
  return Tensor::empty({n, 3, out_height, out_width}, DType::kUInt8);
}

void VideoDecoder::Impl::write_frame(const Tensor& out, int64_t slot) {
  // swscale's SIMD paths may write past the end of a row (whole vectors), so it converts into a padded
  // scratch frame that is then copied (NHWC) or de-interleaved (NCHW) into the output.
  const size_t row = static_cast<size_t>(out_width) * 3;
  const size_t stride = (row + 63) / 64 * 64 + 64;
  scratch.resize(stride * static_cast<size_t>(out_height) + 256);
  converter->convert(*frame, scratch.data(), static_cast<int>(stride));
  const size_t plane = static_cast<size_t>(out_width) * out_height;
  uint8_t* base = static_cast<uint8_t*>(out.data()) + slot * plane * 3;
  if (options.dimension_order == Layout::kHWC) {
    for (int y = 0; y < out_height; ++y) std::memcpy(base + y * row, scratch.data() + y * stride, row);
    return;
  }
  for (int y = 0; y < out_height; ++y) {
    const size_t at = static_cast<size_t>(y) * out_width;
    uint8_t* planes[3] = {base + at, base + plane + at, base + 2 * plane + at};  // R, G, B
    accel::deinterleave(scratch.data() + y * stride, static_cast<size_t>(out_width), 3, planes);
  }
}

void VideoDecoder::Impl::copy_slot(const Tensor& out, int64_t from, int64_t to) const {
  const size_t bytes = static_cast<size_t>(out_width) * out_height * 3;
  uint8_t* base = static_cast<uint8_t*>(out.data());
  std::memcpy(base + to * bytes, base + from * bytes, bytes);
}

// `indices` are normalized (0 <= i < num_frames), in the caller's order.
Frames VideoDecoder::Impl::frames_at_sorted(std::span<const int64_t> indices) {
  const auto n = static_cast<int64_t>(indices.size());
  Frames out;
  out.data = allocate(n);
  out.pts_seconds.resize(n);
  out.duration_seconds.resize(n);
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return indices[a] < indices[b]; });
  int64_t prev_slot = -1;
  for (int64_t slot : order) {
    const int64_t i = indices[slot];
    if (prev_slot >= 0 && indices[prev_slot] == i) {
      copy_slot(out.data, prev_slot, slot);
      out.pts_seconds[slot] = out.pts_seconds[prev_slot];
      out.duration_seconds[slot] = out.duration_seconds[prev_slot];
      continue;
    }
    if (exact) {
      decode_exact(i);
      out.pts_seconds[slot] = index_seconds[i];
      out.duration_seconds[slot] = seconds(index[i].duration);
    } else {
      decode_played_at_approx(approx_time_of(i));
      out.pts_seconds[slot] = seconds(frame_pts());
      out.duration_seconds[slot] = seconds(frame_duration());
    }
    write_frame(out.data, slot);
    prev_slot = slot;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Public API

VideoDecoder::VideoDecoder(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
VideoDecoder::VideoDecoder(VideoDecoder&&) noexcept = default;
VideoDecoder& VideoDecoder::operator=(VideoDecoder&&) noexcept = default;
VideoDecoder::~VideoDecoder() = default;

VideoDecoder VideoDecoder::open(const std::filesystem::path& path, const DecoderOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->name = path.string();
  impl->options = options;
  impl->arm();
  impl->file_ctx = ffmpeg::open_input(path.string(), options.limits, impl->deadline);
  impl->fmt = impl->file_ctx.get();
  impl->setup(options);
  return VideoDecoder(std::move(impl));
}

VideoDecoder VideoDecoder::open(const ByteSource& source, const DecoderOptions& options) {
  if (options.limits.max_bytes > 0 && source.size() > options.limits.max_bytes) {
    throw Error(ErrorCode::kLimitExceeded, source.name(),
                fmt::format("{} bytes is more than Limits::max_bytes ({})", source.size(), options.limits.max_bytes));
  }
  auto impl = std::make_unique<Impl>();
  impl->name = source.name();
  impl->options = options;
  impl->arm();
  impl->memory = ffmpeg::open_input(source, options.limits, impl->deadline);
  impl->fmt = impl->memory.ctx.get();
  impl->setup(options);
  return VideoDecoder(std::move(impl));
}

const StreamMetadata& VideoDecoder::metadata() const { return impl_->meta; }

int64_t VideoDecoder::num_frames() const { return impl_->num_frames(); }

void VideoDecoder::set_output_size(std::optional<Size> size) { impl_->set_output_size(size); }

Frame VideoDecoder::get_frame_at(int64_t index) {
  const int64_t i = impl_->normalize_index(index);
  impl_->arm();
  Frames f = impl_->frames_at_sorted(std::span<const int64_t>(&i, 1));
  return {f.data.select(0, 0), f.pts_seconds[0], f.duration_seconds[0]};
}

Frames VideoDecoder::get_frames_at(std::span<const int64_t> indices) {
  std::vector<int64_t> normalized;
  normalized.reserve(indices.size());
  for (int64_t i : indices) normalized.push_back(impl_->normalize_index(i));
  impl_->arm();
  return impl_->frames_at_sorted(normalized);
}

Frames VideoDecoder::get_frames_in_range(int64_t start, int64_t stop, int64_t step) {
  if (step <= 0) throw Error(ErrorCode::kInvalidInput, impl_->name, fmt::format("step must be positive, got {}", step));
  const int64_t n = num_frames();
  auto clamp = [n](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + n : v, 0, n); };
  std::vector<int64_t> indices;
  for (int64_t i = clamp(start); i < clamp(stop); i += step) indices.push_back(i);
  impl_->arm();
  return impl_->frames_at_sorted(indices);
}

Frame VideoDecoder::get_frame_played_at(double seconds) {
  Frames f = get_frames_played_at(std::span<const double>(&seconds, 1));
  return {f.data.select(0, 0), f.pts_seconds[0], f.duration_seconds[0]};
}

Frames VideoDecoder::get_frames_played_at(std::span<const double> seconds) {
  Impl& d = *impl_;
  for (double t : seconds) d.check_time(t);
  d.arm();
  if (d.exact) {
    std::vector<int64_t> indices;
    indices.reserve(seconds.size());
    for (double t : seconds) indices.push_back(d.exact_index_played_at(t));
    return d.frames_at_sorted(indices);
  }
  const auto n = static_cast<int64_t>(seconds.size());
  Frames out;
  out.data = d.allocate(n);
  out.pts_seconds.resize(n);
  out.duration_seconds.resize(n);
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return seconds[a] < seconds[b]; });
  for (int64_t slot : order) {
    d.decode_played_at_approx(seconds[slot]);
    out.pts_seconds[slot] = d.seconds(d.frame_pts());
    out.duration_seconds[slot] = d.seconds(d.frame_duration());
    d.write_frame(out.data, slot);
  }
  return out;
}

int64_t VideoDecoder::index_played_at(double seconds) const {
  const Impl& d = *impl_;
  d.check_time(seconds);
  return d.exact ? d.exact_index_played_at(seconds) : std::min(d.approx_index_at(seconds), d.approx_frames - 1);
}

Frames VideoDecoder::get_frames_played_in_range(double begin, double end) {
  Impl& d = *impl_;
  if (!(end >= begin)) {
    throw Error(ErrorCode::kInvalidInput, d.name, fmt::format("range end {} s is before its begin {} s", end, begin));
  }
  d.check_time(begin);
  std::vector<int64_t> indices;
  if (end > begin) {
    int64_t first = 0, last = 0;  // [first, last)
    if (d.exact) {
      first = d.exact_index_played_at(begin);
      last = std::lower_bound(d.index_seconds.begin(), d.index_seconds.end(), end) - d.index_seconds.begin();
    } else {
      first = d.approx_index_at(begin);
      last = static_cast<int64_t>(std::ceil((end - d.meta.begin_stream_seconds) * d.meta.average_fps - 1e-9));
      last = std::clamp<int64_t>(last, first, d.approx_frames);
    }
    for (int64_t i = first; i < last; ++i) indices.push_back(i);
  }
  d.arm();
  return d.frames_at_sorted(indices);
}

}  // namespace loom::video
