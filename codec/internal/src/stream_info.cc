#include "loom/codec/internal/stream_info.h"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/display.h>
#include <libavutil/pixdesc.h>
}

#include <cmath>
#include <string>

namespace loom::ffmpeg {
namespace {

// ts * num / den, correctly rounded (as Python's float(Fraction)) while ts * num fits in 53 bits; -1
// for AV_NOPTS_VALUE.
double seconds(int64_t ts, AVRational time_base) {
  if (ts == AV_NOPTS_VALUE || time_base.den == 0) return -1.0;
  return static_cast<double>(ts) * time_base.num / static_cast<double>(time_base.den);
}

std::string name_or_unknown(const char* name) {
  return name != nullptr ? name : "unknown";
}

}  // namespace

StreamInfo describe_stream(const AVStream& st) {
  const AVCodecParameters& par = *st.codecpar;
  StreamInfo s;
  s.index = st.index;
  const char* type = av_get_media_type_string(par.codec_type);
  s.type = type ? type : "unknown";
  s.codec = avcodec_get_name(par.codec_id);
  s.duration_seconds = seconds(st.duration, st.time_base);
  s.bit_rate = par.bit_rate;
  if (par.codec_type == AVMEDIA_TYPE_VIDEO) {
    s.width = par.width;
    s.height = par.height;
    if (const char* name = av_get_pix_fmt_name(static_cast<AVPixelFormat>(par.format))) s.pixel_format = name;
    s.color_space = name_or_unknown(av_color_space_name(par.color_space));
    s.color_range = name_or_unknown(av_color_range_name(par.color_range));
    s.color_primaries = name_or_unknown(av_color_primaries_name(par.color_primaries));
    if (const uint8_t* m = av_stream_get_side_data(&st, AV_PKT_DATA_DISPLAYMATRIX, nullptr)) {
      const double r = av_display_rotation_get(reinterpret_cast<const int32_t*>(m));
      if (std::isfinite(r)) s.rotation = r;
    }
    if (st.avg_frame_rate.num > 0 && st.avg_frame_rate.den > 0) s.average_fps = av_q2d(st.avg_frame_rate);
    s.num_frames = st.nb_frames > 0 ? st.nb_frames : 0;
    s.attached_picture = (st.disposition & AV_DISPOSITION_ATTACHED_PIC) != 0;
  } else if (par.codec_type == AVMEDIA_TYPE_AUDIO) {
    s.sample_rate = par.sample_rate;
    s.channels = par.ch_layout.nb_channels;
    if (const char* name = av_get_sample_fmt_name(static_cast<AVSampleFormat>(par.format))) s.sample_format = name;
    s.bits_per_sample = av_get_bits_per_sample(par.codec_id);  // 4 for IMA ADPCM, 0 for mp3/aac/...
    if (s.bits_per_sample == 0) s.bits_per_sample = par.bits_per_raw_sample;
    if (st.duration != AV_NOPTS_VALUE && par.sample_rate > 0) {
      s.num_samples = av_rescale_q(st.duration, st.time_base, AVRational{1, par.sample_rate});
    }
  }
  return s;
}

ContainerInfo describe_container(const AVFormatContext& fmt) {
  ContainerInfo info;
  info.demuxer = fmt.iformat != nullptr ? fmt.iformat->name : "";
  info.duration_seconds = fmt.duration == AV_NOPTS_VALUE ? -1.0 : static_cast<double>(fmt.duration) / AV_TIME_BASE;
  info.bit_rate = fmt.bit_rate;
  info.streams.reserve(fmt.nb_streams);
  for (unsigned i = 0; i < fmt.nb_streams; ++i) info.streams.push_back(describe_stream(*fmt.streams[i]));
  info.best_video = best_stream(fmt, AVMEDIA_TYPE_VIDEO);
  info.best_audio = best_stream(fmt, AVMEDIA_TYPE_AUDIO);
  return info;
}

int best_stream(const AVFormatContext& fmt, AVMediaType type) {
  // av_find_best_stream only reads the context (its parameter is not const for historical reasons).
  auto* ctx = const_cast<AVFormatContext*>(&fmt);
  const int best = av_find_best_stream(ctx, type, -1, -1, nullptr, 0);
  if (best >= 0 && (type != AVMEDIA_TYPE_VIDEO || !(fmt.streams[best]->disposition & AV_DISPOSITION_ATTACHED_PIC))) {
    return best;
  }
  // None FFmpeg would pick (an audio stream of 0 channels or 0 Hz, only cover art): the first of the
  // type, so that the caller's error names what is wrong with it.
  for (unsigned i = 0; i < fmt.nb_streams; ++i) {
    const AVStream* s = fmt.streams[i];
    if (s->codecpar->codec_type == type && !(s->disposition & AV_DISPOSITION_ATTACHED_PIC)) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace loom::ffmpeg
