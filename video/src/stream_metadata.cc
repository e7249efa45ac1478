#include "stream_metadata.h"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/display.h>
#include <libavutil/pixdesc.h>
}

#include <algorithm>
#include <cmath>
#include <string>

#include "seek_rules.h"

namespace loom::video::detail {
namespace {

std::string name_or_unknown(const char* s) {
  return s != nullptr ? s : "unknown";
}

}  // namespace

StreamMetadata describe_stream(const AVFormatContext& fmt, const AVStream& stream) {
  StreamMetadata meta;
  const AVCodecParameters* par = stream.codecpar;
  const TimeBase time_base{stream.time_base.num, stream.time_base.den};
  meta.stream_index = stream.index;
  meta.container = fmt.iformat != nullptr ? fmt.iformat->name : "";
  meta.codec = avcodec_get_name(par->codec_id);
  meta.width = par->width;
  meta.height = par->height;
  meta.pixel_format = name_or_unknown(av_get_pix_fmt_name(static_cast<AVPixelFormat>(par->format)));
  meta.color_space = name_or_unknown(av_color_space_name(par->color_space));
  meta.color_range = name_or_unknown(av_color_range_name(par->color_range));
  meta.color_primaries = name_or_unknown(av_color_primaries_name(par->color_primaries));
  if (const uint8_t* m = av_stream_get_side_data(&stream, AV_PKT_DATA_DISPLAYMATRIX, nullptr)) {
    const double r = av_display_rotation_get(reinterpret_cast<const int32_t*>(m));
    if (std::isfinite(r)) meta.rotation = r;
  }
  if (stream.avg_frame_rate.num > 0 && stream.avg_frame_rate.den > 0) meta.average_fps = av_q2d(stream.avg_frame_rate);
  meta.num_frames_from_header = std::max<int64_t>(stream.nb_frames, 0);
  if (stream.duration != AV_NOPTS_VALUE && stream.duration > 0) {
    meta.duration_seconds = time_base.seconds(stream.duration);
  } else if (fmt.duration != AV_NOPTS_VALUE && fmt.duration > 0) {
    meta.duration_seconds = static_cast<double>(fmt.duration) / AV_TIME_BASE;
  }
  for (unsigned i = 0; i < fmt.nb_streams; ++i) {
    const AVStream* s = fmt.streams[i];
    if (s->codecpar->codec_type != AVMEDIA_TYPE_AUDIO) continue;
    AudioStreamMetadata a;
    a.stream_index = s->index;
    a.codec = avcodec_get_name(s->codecpar->codec_id);
    a.sample_rate = s->codecpar->sample_rate;
    a.channels = s->codecpar->ch_layout.nb_channels;
    if (s->duration != AV_NOPTS_VALUE && s->time_base.den > 0) a.duration_seconds = s->duration * av_q2d(s->time_base);
    meta.audio_streams.push_back(a);
  }
  return meta;
}

}  // namespace loom::video::detail
