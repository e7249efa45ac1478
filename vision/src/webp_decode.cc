// WebP decode through libwebp: lossy, lossless and alpha stills through WebPDecode, animations through
// WebPAnimDecoder (which composites each frame onto the canvas, as Pillow's reader does).
#include <fmt/format.h>
#include <webp/decode.h>
#include <webp/demux.h>

#include <cstring>
#include <memory>

#include "exif.h"
#include "image_codecs.h"
#include "loom/codec/error.h"
#include "whole_image.h"

namespace loom::vision {
namespace {

struct DemuxDeleter {
  void operator()(WebPDemuxer* d) const { WebPDemuxDelete(d); }
};
struct AnimDecoderDeleter {
  void operator()(WebPAnimDecoder* d) const { WebPAnimDecoderDelete(d); }
};

std::string status_text(VP8StatusCode status) {
  switch (status) {
    case VP8_STATUS_NOT_ENOUGH_DATA: return "truncated WebP: the data ends before the image";
    case VP8_STATUS_UNSUPPORTED_FEATURE: return "WebP: unsupported feature";
    case VP8_STATUS_OUT_OF_MEMORY: return "WebP: out of memory";
    default: return "WebP: corrupt bitstream";
  }
}

[[noreturn]] void fail(const ByteSource& src, VP8StatusCode status) {
  const ErrorCode code = status == VP8_STATUS_UNSUPPORTED_FEATURE ? ErrorCode::kUnsupported
                         : status == VP8_STATUS_OUT_OF_MEMORY     ? ErrorCode::kLimitExceeded
                                                                  : ErrorCode::kInvalidInput;
  throw Error(code, src.name(), status_text(status));
}

// What the RIFF container says: size, alpha, frame count and the EXIF orientation.
struct Header {
  WebPBitstreamFeatures features{};
  int frames = 1;
  int orientation = 1;
};

Header read_header(const ByteSource& src, const Limits& limits) {
  check_input_size(src, limits);
  Header h;
  const VP8StatusCode status = WebPGetFeatures(src.data(), src.size(), &h.features);
  if (status != VP8_STATUS_OK) fail(src, status);
  const WebPData data{src.data(), src.size()};
  // Demuxing a partial file still gives the header chunks (a truncated one is caught by the decode).
  WebPDemuxState state = WEBP_DEMUX_PARSE_ERROR;
  std::unique_ptr<WebPDemuxer, DemuxDeleter> demux(WebPDemuxPartial(&data, &state));
  if (demux && state >= WEBP_DEMUX_PARSED_HEADER) {
    h.frames = std::max<int>(1, static_cast<int>(WebPDemuxGetI(demux.get(), WEBP_FF_FRAME_COUNT)));
    WebPChunkIterator chunk;
    if (WebPDemuxGetChunk(demux.get(), "EXIF", 1, &chunk)) {
      h.orientation = exif_orientation({chunk.chunk.bytes, chunk.chunk.size});
      WebPDemuxReleaseChunkIterator(&chunk);
    }
  }
  return h;
}

int channels_of(const Header& h) {
  return h.features.has_alpha ? 4 : 3;
}

// A still image, decoded by libwebp straight into RGB or RGBA.
WholeImage decode_still(const ByteSource& src, const Header& h, const Limits& limits) {
  const int channels = channels_of(h);
  check_image_size(limits, src.name(), h.features.width, h.features.height, channels, 1);
  WholeImage image;
  image.allocate(h.features.width, h.features.height, channels, false);
  WebPDecoderConfig config;
  if (!WebPInitDecoderConfig(&config)) throw Error(ErrorCode::kInternal, src.name(), "WebP: library version mismatch");
  config.output.colorspace = channels == 4 ? MODE_RGBA : MODE_RGB;
  config.output.is_external_memory = 1;
  config.output.u.RGBA.rgba = image.samples.data();
  config.output.u.RGBA.stride = static_cast<int>(image.row_bytes());
  config.output.u.RGBA.size = image.samples.size();
  const VP8StatusCode status = WebPDecode(src.data(), src.size(), &config);
  WebPFreeDecBuffer(&config.output);  // external memory: frees nothing of ours
  if (status != VP8_STATUS_OK) fail(src, status);
  return image;
}

// The canvases of an animation, the first only unless `all_frames`.
std::vector<WholeImage> decode_animation(const ByteSource& src, const Header& h, const Limits& limits,
                                         bool all_frames) {
  WebPAnimDecoderOptions options;
  if (!WebPAnimDecoderOptionsInit(&options)) {
    throw Error(ErrorCode::kInternal, src.name(), "WebP: library version mismatch");
  }
  options.color_mode = MODE_RGBA;
  options.use_threads = 0;
  const WebPData data{src.data(), src.size()};
  std::unique_ptr<WebPAnimDecoder, AnimDecoderDeleter> decoder(WebPAnimDecoderNew(&data, &options));
  if (!decoder) throw Error(ErrorCode::kInvalidInput, src.name(), "WebP: corrupt or truncated animation");
  WebPAnimInfo info;
  if (!WebPAnimDecoderGetInfo(decoder.get(), &info)) {
    throw Error(ErrorCode::kInvalidInput, src.name(), "WebP: corrupt animation header");
  }
  const int width = static_cast<int>(info.canvas_width), height = static_cast<int>(info.canvas_height);
  const int count = all_frames ? static_cast<int>(info.frame_count) : 1;
  const int channels = channels_of(h);
  // Every canvas is held at once (as RGBA while decoding): bound them together.
  check_image_size(limits, src.name(), width, int64_t{height} * count, 4, 1);
  std::vector<WholeImage> frames;
  for (int i = 0; i < count; ++i) {
    uint8_t* canvas = nullptr;
    int timestamp = 0;
    if (!WebPAnimDecoderHasMoreFrames(decoder.get()) || !WebPAnimDecoderGetNext(decoder.get(), &canvas, &timestamp)) {
      throw Error(ErrorCode::kInvalidInput, src.name(),
                  fmt::format("WebP: frame {} of {} is corrupt or truncated", i + 1, info.frame_count));
    }
    // The RGBA canvas as it is; finish_image drops the alpha of an animation without one.
    WholeImage& frame = frames.emplace_back();
    frame.allocate(width, height, 4, false);
    frame.unchanged = channels;
    std::memcpy(frame.samples.data(), canvas, frame.samples.size());
  }
  return frames;
}

}  // namespace

ImageInfo webp_info(const ByteSource& src, const Limits& limits) {
  const Header h = read_header(src, limits);
  ImageInfo info;
  info.format = Format::kWebp;
  info.width = h.features.width;
  info.height = h.features.height;
  info.channels = channels_of(h);
  info.bit_depth = 8;
  info.orientation = h.orientation;
  info.frames = h.frames;
  return info;
}

Tensor decode_webp(const ByteSource& src, const DecodeOptions& options, bool all_frames) {
  const Header h = read_header(src, options.limits);
  if (!h.features.has_animation) {
    const Tensor image = finish_image(decode_still(src, h, options.limits), options, h.orientation, src.name());
    return all_frames ? one_frame(image) : image;
  }
  const std::vector<WholeImage> frames = decode_animation(src, h, options.limits, all_frames);
  return all_frames ? finish_frames(frames, options, h.orientation, src.name())
                    : finish_image(frames.front(), options, h.orientation, src.name());
}

}  // namespace loom::vision
