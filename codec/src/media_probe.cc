#include "loom/codec/media_probe.h"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/pixdesc.h>
}

#include "loom/codec/internal/ffmpeg_handles.h"

namespace loom {
namespace {

double seconds(int64_t ts, AVRational time_base) {
  return ts == AV_NOPTS_VALUE ? -1.0 : static_cast<double>(ts) * av_q2d(time_base);
}

StreamInfo describe(const AVStream& st) {
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
    if (st.avg_frame_rate.num > 0 && st.avg_frame_rate.den > 0) s.average_fps = av_q2d(st.avg_frame_rate);
    s.num_frames = st.nb_frames;
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

}  // namespace

const StreamInfo* ContainerInfo::first(const std::string& type) const {
  for (const StreamInfo& s : streams) {
    if (s.type == type && !s.attached_picture) return &s;
  }
  return nullptr;
}

ContainerInfo probe_container(const std::filesystem::path& path, const Limits& limits) {
  ffmpeg::Deadline deadline{std::chrono::steady_clock::now() +
                            std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                std::chrono::duration<double>(limits.deadline_seconds))};
  ffmpeg::UniqueFormatContext ctx = ffmpeg::open_input(path.string(), limits, deadline);
  ContainerInfo info;
  info.demuxer = ctx->iformat->name;
  info.duration_seconds = ctx->duration == AV_NOPTS_VALUE ? -1.0 : static_cast<double>(ctx->duration) / AV_TIME_BASE;
  info.bit_rate = ctx->bit_rate;
  info.streams.reserve(ctx->nb_streams);
  for (unsigned i = 0; i < ctx->nb_streams; ++i) info.streams.push_back(describe(*ctx->streams[i]));
  return info;
}

}  // namespace loom
