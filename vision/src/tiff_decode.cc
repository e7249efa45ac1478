// TIFF decode through libtiff, first page only. Gray and RGB images of 8 or 16 bits, with or
// without an alpha channel, in strips or tiles, contiguous or planar, are read as stored (16 bits
// kept); every other kind libtiff can convert (palette, bilevel, min-is-white, CMYK, YCbCr, LogLuv)
// goes through its RGBA interface at 8 bits. Errors and warnings from libtiff are kept per file,
// never printed.
#include <fmt/format.h>
#include <tiffio.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

#include "image_codecs.h"
#include "loom/codec/error.h"
#include "whole_image.h"

namespace loom::vision {
namespace {

// The input as libtiff's client I/O reads it, and the first error libtiff reported.
struct Client {
  const uint8_t* data;
  toff_t size, pos = 0;
  std::string name;   // the input's
  std::string error;  // the first error libtiff reported
};

tmsize_t read_proc(thandle_t h, void* out, tmsize_t n) {
  auto* c = static_cast<Client*>(h);
  const toff_t count = std::min<toff_t>(static_cast<toff_t>(n), c->size - std::min(c->pos, c->size));
  std::memcpy(out, c->data + c->pos, count);
  c->pos += count;
  return static_cast<tmsize_t>(count);
}
tmsize_t write_proc(thandle_t, void*, tmsize_t) {
  return -1;
}
toff_t seek_proc(thandle_t h, toff_t off, int whence) {
  auto* c = static_cast<Client*>(h);
  const toff_t base = whence == SEEK_CUR ? c->pos : whence == SEEK_END ? c->size : 0;
  c->pos = base + off;
  return c->pos;
}
int close_proc(thandle_t) {
  return 0;
}
toff_t size_proc(thandle_t h) {
  return static_cast<Client*>(h)->size;
}

int on_error(TIFF*, void* user, const char* module, const char* fmt, va_list args) {
  auto* c = static_cast<Client*>(user);
  if (c->error.empty()) {
    char text[512];
    std::vsnprintf(text, sizeof text, fmt, args);
    // libtiff names the file in some messages; loom's error names it already.
    std::string message = text;
    if (const size_t at = message.find(c->name + ": "); !c->name.empty() && at != std::string::npos) {
      message.erase(at, c->name.size() + 2);
    }
    c->error = module && *module && c->name != module ? fmt::format("{}: {}", module, message) : message;
  }
  return 1;  // handled: libtiff prints nothing
}
int on_warning(TIFF*, void*, const char*, const char*, va_list) {
  return 1;
}

struct TiffCloser {
  void operator()(TIFF* t) const { TIFFClose(t); }
};

class File {
 public:
  File(const ByteSource& src, const Limits& limits) : src_(src), client_{src.data(), src.size(), 0, src.name(), {}} {
    check_input_size(src, limits);
    TIFFOpenOptions* options = TIFFOpenOptionsAlloc();
    TIFFOpenOptionsSetErrorHandlerExtR(options, on_error, &client_);
    TIFFOpenOptionsSetWarningHandlerExtR(options, on_warning, &client_);
    if (limits.max_bytes != 0) {
      TIFFOpenOptionsSetMaxSingleMemAlloc(options,
                                          static_cast<tmsize_t>(std::min<uint64_t>(limits.max_bytes, INT64_MAX)));
    }
    tif_.reset(TIFFClientOpenExt(src.name().c_str(), "rm", &client_, read_proc, write_proc, seek_proc, close_proc,
                                 size_proc, nullptr, nullptr, options));
    TIFFOpenOptionsFree(options);
    if (!tif_) fail("cannot read the header");
  }

  TIFF* get() const { return tif_.get(); }

  [[noreturn]] void fail(std::string_view what) const {
    const std::string detail = client_.error.empty() ? std::string(what) : client_.error;
    const bool truncated = detail.find("end of file") != std::string::npos ||
                           detail.find("Read error") != std::string::npos ||
                           detail.find("Cannot read") != std::string::npos;
    // libtiff refuses allocations over TIFFOpenOptionsSetMaxSingleMemAlloc (Limits::max_bytes).
    const bool too_big = detail.find("beyond the") != std::string::npos && detail.find("limit") != std::string::npos;
    throw Error(too_big ? ErrorCode::kLimitExceeded : ErrorCode::kInvalidInput, src_.name(),
                truncated ? fmt::format("truncated TIFF: {}", detail) : fmt::format("TIFF: {}", detail));
  }

  template <typename T>
  T tag(ttag_t t, T fallback) const {
    T value = fallback;
    return TIFFGetFieldDefaulted(tif_.get(), t, &value) == 1 ? value : fallback;
  }

 private:
  const ByteSource& src_;
  Client client_;
  std::unique_ptr<TIFF, TiffCloser> tif_;
};

struct Header {
  uint32_t width = 0, height = 0;
  uint16_t bits = 1, samples = 1, photometric = PHOTOMETRIC_MINISBLACK, planar = PLANARCONFIG_CONTIG;
  uint16_t format = SAMPLEFORMAT_UINT, extras = 0, orientation = ORIENTATION_TOPLEFT;
  bool direct = false;  // read as stored (see the top of the file)
  int channels = 0;     // unchanged channels
};

Header read_header(const File& f, const ByteSource& src) {
  Header h;
  TIFF* t = f.get();
  if (TIFFGetField(t, TIFFTAG_IMAGEWIDTH, &h.width) != 1 || TIFFGetField(t, TIFFTAG_IMAGELENGTH, &h.height) != 1) {
    throw Error(ErrorCode::kInvalidInput, src.name(), "TIFF: no image size in the first directory");
  }
  h.bits = f.tag<uint16_t>(TIFFTAG_BITSPERSAMPLE, 1);
  h.samples = f.tag<uint16_t>(TIFFTAG_SAMPLESPERPIXEL, 1);
  h.photometric = f.tag<uint16_t>(TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
  h.planar = f.tag<uint16_t>(TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
  h.format = f.tag<uint16_t>(TIFFTAG_SAMPLEFORMAT, SAMPLEFORMAT_UINT);
  h.orientation = f.tag<uint16_t>(TIFFTAG_ORIENTATION, ORIENTATION_TOPLEFT);
  uint16_t extra_count = 0;
  uint16_t* extra_types = nullptr;
  if (TIFFGetField(t, TIFFTAG_EXTRASAMPLES, &extra_count, &extra_types) == 1) h.extras = extra_count;
  if (h.format != SAMPLEFORMAT_UINT && h.format != SAMPLEFORMAT_VOID) {
    throw Error(ErrorCode::kUnsupported, src.name(),
                fmt::format("TIFF: {} samples are not supported (unsigned integers are)",
                            h.format == SAMPLEFORMAT_IEEEFP ? "floating-point" : "signed"));
  }
  const int base = h.photometric == PHOTOMETRIC_RGB ? 3 : 1;
  h.direct = (h.bits == 8 || h.bits == 16) && h.samples <= 4 &&
             (h.photometric == PHOTOMETRIC_MINISBLACK || h.photometric == PHOTOMETRIC_RGB) &&
             (h.samples == base || (h.samples == base + 1 && h.extras == 1));
  if (h.direct) {
    h.channels = h.samples;
  } else {
    const bool gray = h.photometric == PHOTOMETRIC_MINISBLACK || h.photometric == PHOTOMETRIC_MINISWHITE;
    h.channels = (gray ? 1 : 3) + (h.extras > 0 ? 1 : 0);
  }
  return h;
}

// Copies a decoded strip or tile (chunk) of `cw` x `ch` pixels with `per_pixel` samples, placed at
// (x0, y0), into `image`, sample `first` onward (planar files fill one sample per plane).
void place(WholeImage& image, const uint8_t* chunk, int cw, int ch, int x0, int y0, int per_pixel, int first) {
  const int bytes = image.wide ? 2 : 1, spp = image.channels;
  const int w = std::min(cw, image.width - x0), h = std::min(ch, image.height - y0);
  for (int y = 0; y < h; ++y) {
    const uint8_t* src = chunk + static_cast<size_t>(y) * cw * per_pixel * bytes;
    uint8_t* dst = image.row(y0 + y) + (static_cast<size_t>(x0) * spp + first) * bytes;
    if (per_pixel == spp) {
      std::memcpy(dst, src, static_cast<size_t>(w) * spp * bytes);
      continue;
    }
    for (int x = 0; x < w; ++x) std::memcpy(dst + size_t(x) * spp * bytes, src + size_t(x) * bytes, bytes);
  }
}

WholeImage read_direct(const File& f, const Header& h) {
  TIFF* t = f.get();
  WholeImage image;
  image.allocate(static_cast<int>(h.width), static_cast<int>(h.height), h.channels, h.bits == 16);
  const bool planar = h.planar == PLANARCONFIG_SEPARATE && h.samples > 1;
  const int planes = planar ? h.samples : 1, per_pixel = planar ? 1 : h.samples;
  if (TIFFIsTiled(t)) {
    const uint32_t tw = f.tag<uint32_t>(TIFFTAG_TILEWIDTH, 0), th = f.tag<uint32_t>(TIFFTAG_TILELENGTH, 0);
    if (tw == 0 || th == 0) f.fail("tile size is zero");
    std::vector<uint8_t> chunk(static_cast<size_t>(TIFFTileSize(t)));
    if (chunk.empty()) f.fail("cannot size a tile");
    if (chunk.size() < size_t(tw) * th * per_pixel * (image.wide ? 2 : 1)) f.fail("tiles are smaller than they say");
    for (int p = 0; p < planes; ++p)
      for (uint32_t y = 0; y < h.height; y += th)
        for (uint32_t x = 0; x < h.width; x += tw) {
          const ttile_t tile = TIFFComputeTile(t, x, y, 0, static_cast<tsample_t>(p));
          if (TIFFReadEncodedTile(t, tile, chunk.data(), static_cast<tmsize_t>(chunk.size())) < 0) {
            f.fail("cannot read a tile");
          }
          place(image, chunk.data(), int(tw), int(th), int(x), int(y), per_pixel, p);
        }
    return image;
  }
  uint32_t rows = f.tag<uint32_t>(TIFFTAG_ROWSPERSTRIP, h.height);
  rows = std::clamp<uint32_t>(rows, 1, h.height);
  std::vector<uint8_t> chunk(static_cast<size_t>(h.width) * rows * per_pixel * (image.wide ? 2 : 1));
  for (int p = 0; p < planes; ++p)
    for (uint32_t y = 0; y < h.height; y += rows) {
      const tstrip_t strip = TIFFComputeStrip(t, y, static_cast<tsample_t>(p));
      const uint32_t n = std::min(rows, h.height - y);
      const tmsize_t want = static_cast<tmsize_t>(size_t(h.width) * n * per_pixel * (image.wide ? 2 : 1));
      if (TIFFReadEncodedStrip(t, strip, chunk.data(), want) < want) f.fail("cannot read a strip");
      place(image, chunk.data(), int(h.width), int(n), 0, int(y), per_pixel, p);
    }
  return image;
}

// Any other kind, converted by libtiff to 8-bit RGBA in stored order (gray as equal R, G and B).
WholeImage read_rgba(const File& f, const Header& h, const ByteSource& src) {
  TIFF* t = f.get();
  char message[1024] = "";
  if (!TIFFRGBAImageOK(t, message)) {
    throw Error(ErrorCode::kUnsupported, src.name(), fmt::format("TIFF: {}", message));
  }
  TIFFRGBAImage img;
  if (!TIFFRGBAImageBegin(&img, t, /*stop_on_error=*/1, message)) {
    throw Error(ErrorCode::kUnsupported, src.name(), fmt::format("TIFF: {}", message));
  }
  img.req_orientation = img.orientation;  // stored order; loom applies the orientation on request
  std::vector<uint32_t> raster(static_cast<size_t>(h.width) * h.height);
  const int ok = TIFFRGBAImageGet(&img, raster.data(), h.width, h.height);
  TIFFRGBAImageEnd(&img);
  if (!ok) f.fail("cannot decode the image");
  WholeImage image;
  image.allocate(static_cast<int>(h.width), static_cast<int>(h.height), 4, false);
  image.unchanged = h.channels;
  for (size_t p = 0; p < raster.size(); ++p) {
    const uint32_t v = raster[p];
    uint8_t* out = &image.samples[p * 4];
    out[0] = static_cast<uint8_t>(TIFFGetR(v));
    out[1] = static_cast<uint8_t>(TIFFGetG(v));
    out[2] = static_cast<uint8_t>(TIFFGetB(v));
    out[3] = static_cast<uint8_t>(TIFFGetA(v));
  }
  return image;
}

}  // namespace

ImageInfo tiff_info(const ByteSource& src, const Limits& limits) {
  const File f(src, limits);
  const Header h = read_header(f, src);
  ImageInfo info;
  info.format = Format::kTiff;
  info.width = static_cast<int>(std::min<uint32_t>(h.width, INT32_MAX));
  info.height = static_cast<int>(std::min<uint32_t>(h.height, INT32_MAX));
  info.channels = h.channels;
  info.bit_depth = h.bits;
  info.orientation = h.orientation >= 1 && h.orientation <= 8 ? h.orientation : 1;
  info.frames = std::max<int>(1, TIFFNumberOfDirectories(f.get()));
  return info;
}

Tensor decode_tiff(const ByteSource& src, const DecodeOptions& options) {
  const File f(src, options.limits);
  const Header h = read_header(f, src);
  const int bytes = h.direct && h.bits == 16 ? 2 : 1;
  check_image_size(options.limits, src.name(), h.width, h.height, std::max(h.channels, h.direct ? 1 : 4), bytes);
  const WholeImage image = h.direct ? read_direct(f, h) : read_rgba(f, h, src);
  const int orientation = h.orientation >= 1 && h.orientation <= 8 ? h.orientation : 1;
  return finish_image(image, options, orientation, src.name());
}

}  // namespace loom::vision
