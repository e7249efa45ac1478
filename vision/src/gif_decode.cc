// GIF decode through giflib's low-level reader, with frames composited as Pillow's GifImagePlugin
// does (its default loading strategy), so that decoded pixels equal Image.open(...).convert(...):
//  - frame 0 is a palette image the size of the logical screen (grown to fit the frame), filled with
//    the frame's transparent index (or 0) where the frame does not cover it;
//  - later frames are pasted onto the canvas: transparent pixels keep what is below, the rest is
//    opaque; before each frame the previous one is disposed of as its graphic control said (2: its
//    rectangle becomes its transparent color, else the background color; 3: what was there before).
// The disposal method is sticky: a frame whose control block says 0 keeps the last non-zero one.
#include <fmt/format.h>
#include <gif_lib.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <optional>
#include <utility>

#include "image_codecs.h"
#include "loom/codec/error.h"
#include "whole_image.h"

namespace loom::vision {
namespace {

struct Cursor {
  const uint8_t* data;
  size_t size, pos = 0;
};

int read_bytes(GifFileType* gif, GifByteType* out, int wanted) {
  auto* c = static_cast<Cursor*>(gif->UserData);
  const size_t n = std::min(static_cast<size_t>(wanted), c->size - c->pos);
  std::memcpy(out, c->data + c->pos, n);
  c->pos += n;
  return static_cast<int>(n);
}

struct GifCloser {
  void operator()(GifFileType* gif) const {
    int error = 0;
    DGifCloseFile(gif, &error);
  }
};
using GifHandle = std::unique_ptr<GifFileType, GifCloser>;

[[noreturn]] void fail(const ByteSource& src, int error) {
  if (error == D_GIF_ERR_READ_FAILED || error == D_GIF_ERR_EOF_TOO_SOON) {
    throw Error(ErrorCode::kInvalidInput, src.name(), "truncated GIF: the data ends before the image");
  }
  const char* text = GifErrorString(error);
  throw Error(ErrorCode::kInvalidInput, src.name(), fmt::format("GIF: {}", text ? text : "corrupt data"));
}

// 256 RGB entries; indices past a short color table are black.
using Palette = std::array<std::array<uint8_t, 3>, 256>;

Palette palette_of(const ColorMapObject* map) {
  Palette p{};
  if (map == nullptr) {
    for (int i = 0; i < 256; ++i) p[i] = {uint8_t(i), uint8_t(i), uint8_t(i)};  // no table: gray levels
    return p;
  }
  const int n = std::min(map->ColorCount, 256);
  for (int i = 0; i < n; ++i) p[i] = {map->Colors[i].Red, map->Colors[i].Green, map->Colors[i].Blue};
  return p;
}

// Pillow reads a frame whose table is absent or maps i to (i, i, i) as a gray ("L") image.
bool is_gray(const ColorMapObject* map) {
  if (map == nullptr) return true;
  for (int i = 0; i < map->ColorCount; ++i) {
    const GifColorType& c = map->Colors[i];
    if (c.Red != i || c.Green != i || c.Blue != i) return false;
  }
  return true;
}

struct Control {
  std::optional<uint8_t> transparent;
  int disposal = 0;  // the sticky method (see above)
};

// One frame as read: its rectangle, palette and indices.
struct Frame {
  int x = 0, y = 0, width = 0, height = 0;
  bool interlaced = false;
  const ColorMapObject* map = nullptr;  // local table, else the global one (owned by giflib)
  std::vector<uint8_t> indices;         // width * height, rows top to bottom
  Control control;
};

class Reader {
 public:
  Reader(const ByteSource& src, const Limits& limits) : src_(src), cursor_{src.data(), src.size()} {
    check_input_size(src, limits);
    int error = 0;
    gif_.reset(DGifOpen(&cursor_, read_bytes, &error));
    if (!gif_) fail(src, error);
  }

  GifFileType* gif() const { return gif_.get(); }

  // The next frame's descriptor and control block, its pixels read when `pixels` (else skipped);
  // nothing at the end of the file. `check` sees the frame's rectangle before any pixel is allocated.
  template <typename Check>
  std::optional<Frame> next(bool pixels, const Check& check) {
    for (;;) {
      GifRecordType type = UNDEFINED_RECORD_TYPE;
      if (DGifGetRecordType(gif(), &type) == GIF_ERROR) fail(src_, gif()->Error);
      if (type == TERMINATE_RECORD_TYPE) return std::nullopt;
      if (type == EXTENSION_RECORD_TYPE) {
        read_extension();
        continue;
      }
      if (type != IMAGE_DESC_RECORD_TYPE) continue;
      if (DGifGetImageDesc(gif()) == GIF_ERROR) fail(src_, gif()->Error);
      const GifImageDesc& d = gif()->Image;
      Frame f;
      f.x = d.Left;
      f.y = d.Top;
      f.width = d.Width;
      f.height = d.Height;
      f.map = d.ColorMap ? d.ColorMap : gif()->SColorMap;
      f.interlaced = d.Interlace;
      f.control = control_;
      control_.transparent.reset();  // a control block applies to the next image only
      if (f.width <= 0 || f.height <= 0) {
        throw Error(ErrorCode::kInvalidInput, src_.name(), "GIF: a frame has no pixels");
      }
      check(f);
      if (pixels) {
        read_pixels(f, d.Interlace);
      } else {
        skip_pixels();
      }
      return f;
    }
  }

 private:
  void read_extension() {
    int code = 0;
    GifByteType* block = nullptr;
    if (DGifGetExtension(gif(), &code, &block) == GIF_ERROR) fail(src_, gif()->Error);
    if (code == GRAPHICS_EXT_FUNC_CODE && block != nullptr && block[0] >= 4) {
      const uint8_t flags = block[1];
      if (flags & 1) control_.transparent = block[4];
      const int disposal = (flags >> 2) & 7;
      if (disposal != 0) control_.disposal = disposal;
    }
    while (block != nullptr) {
      if (DGifGetExtensionNext(gif(), &block) == GIF_ERROR) fail(src_, gif()->Error);
    }
  }

  void read_pixels(Frame& f, bool interlaced) {
    f.indices.resize(static_cast<size_t>(f.width) * f.height);
    auto line = [&](int y) {
      if (DGifGetLine(gif(), f.indices.data() + static_cast<size_t>(y) * f.width, f.width) == GIF_ERROR) {
        fail(src_, gif()->Error);
      }
    };
    if (!interlaced) {
      for (int y = 0; y < f.height; ++y) line(y);
      return;
    }
    constexpr int kStart[] = {0, 4, 2, 1}, kStep[] = {8, 8, 4, 2};
    for (int pass = 0; pass < 4; ++pass)
      for (int y = kStart[pass]; y < f.height; y += kStep[pass]) line(y);
  }

  void skip_pixels() {
    int code_size = 0;
    GifByteType* block = nullptr;
    if (DGifGetCode(gif(), &code_size, &block) == GIF_ERROR) fail(src_, gif()->Error);
    while (block != nullptr) {
      if (DGifGetCodeNext(gif(), &block) == GIF_ERROR) fail(src_, gif()->Error);
    }
  }

  const ByteSource& src_;
  Cursor cursor_;
  GifHandle gif_;
  Control control_;
};

// The composited canvas, RGBA, and the disposal waiting for the next frame.
class Compositor {
 public:
  Compositor(int width, int height, const Frame& first, int background)
      : width_(width), height_(height), background_(background), rgba_(size_t(width) * height * 4) {
    // Frame 0: the index canvas is filled with its transparent index (or 0), then converted as a whole.
    const Palette palette = palette_of(first.map);
    const int fill = first.control.transparent.value_or(0);
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) put(x, y, palette, index_at(first, x, y, fill), first.control.transparent);
    prepare_disposal(first, palette, first.control.transparent, /*first=*/true);
  }

  // Disposes of the previous frame, then pastes `f` over the canvas.
  void paste(const Frame& f) {
    if (!dispose_.empty()) {
      restore(dispose_x_, dispose_y_, dispose_w_, dispose_h_, dispose_);
      dispose_.clear();
    }
    const Palette palette = palette_of(f.map);
    prepare_disposal(f, palette, f.control.transparent, /*first=*/false);
    const auto [x0, y0, x1, y1] = clipped(f);
    for (int y = y0; y < y1; ++y) {
      for (int x = x0; x < x1; ++x) {
        const uint8_t i = f.indices[size_t(y - f.y) * f.width + (x - f.x)];
        if (f.control.transparent && i == *f.control.transparent) continue;
        put(x, y, palette, i, std::nullopt);
      }
    }
  }

  // The canvas, RGBA, whose kUnchanged read gives `unchanged` channels: a copy, or (take) the canvas
  // itself, after which the compositor holds nothing.
  WholeImage image(int unchanged) const {
    WholeImage out{width_, height_, 4, unchanged, false, rgba_};
    return out;
  }
  WholeImage take(int unchanged) && {
    WholeImage out{width_, height_, 4, unchanged, false, std::move(rgba_)};
    return out;
  }

 private:
  struct Box {
    int x0, y0, x1, y1;
  };
  Box clipped(const Frame& f) const {
    return {std::clamp(f.x, 0, width_), std::clamp(f.y, 0, height_), std::clamp(f.x + f.width, 0, width_),
            std::clamp(f.y + f.height, 0, height_)};
  }

  static uint8_t index_at(const Frame& f, int x, int y, int fill) {
    if (x < f.x || y < f.y || x >= f.x + f.width || y >= f.y + f.height) return static_cast<uint8_t>(fill);
    return f.indices[size_t(y - f.y) * f.width + (x - f.x)];
  }

  void put(int x, int y, const Palette& palette, uint8_t i, std::optional<uint8_t> transparent) {
    uint8_t* p = &rgba_[(size_t(y) * width_ + x) * 4];
    std::memcpy(p, palette[i].data(), 3);
    p[3] = transparent && i == *transparent ? 0 : 255;
  }

  // Pillow computes a frame's disposal when it seeks to it, before drawing it.
  void prepare_disposal(const Frame& f, const Palette& palette, std::optional<uint8_t> transparent, bool first) {
    const auto [x0, y0, x1, y1] = clipped(f);
    dispose_x_ = x0;
    dispose_y_ = y0;
    dispose_w_ = x1 - x0;
    dispose_h_ = y1 - y0;
    const int method = f.control.disposal;
    if (method < 2 || dispose_w_ <= 0 || dispose_h_ <= 0) return;
    if (method == 3 && !first) {
      dispose_.resize(size_t(dispose_w_) * dispose_h_ * 4);
      for (int y = 0; y < dispose_h_; ++y)
        std::memcpy(&dispose_[size_t(y) * dispose_w_ * 4], &rgba_[(size_t(y0 + y) * width_ + x0) * 4],
                    size_t(dispose_w_) * 4);
      return;
    }
    if (method == 3 && !transparent) return;  // frame 0 has nothing before it to restore
    // A fill: the transparent color with alpha 0, else the background color, opaque.
    std::array<uint8_t, 4> color{};
    if (transparent) {
      std::memcpy(color.data(), palette[*transparent].data(), 3);
      color[3] = 0;
    } else {
      std::memcpy(color.data(), palette[background_ & 0xFF].data(), 3);
      color[3] = 255;
    }
    dispose_.resize(size_t(dispose_w_) * dispose_h_ * 4);
    for (size_t p = 0; p < dispose_.size(); p += 4) std::memcpy(&dispose_[p], color.data(), 4);
  }

  void restore(int x0, int y0, int w, int h, const std::vector<uint8_t>& pixels) {
    for (int y = 0; y < h; ++y)
      std::memcpy(&rgba_[(size_t(y0 + y) * width_ + x0) * 4], &pixels[size_t(y) * w * 4], size_t(w) * 4);
  }

  int width_, height_, background_;
  std::vector<uint8_t> rgba_;
  std::vector<uint8_t> dispose_;  // what the previous frame's rectangle becomes; empty: nothing
  int dispose_x_ = 0, dispose_y_ = 0, dispose_w_ = 0, dispose_h_ = 0;
};

// The channels of frame 0 as Pillow opens it: L or P, with alpha when it has a transparent index.
int unchanged_channels(const Frame& first) {
  return (is_gray(first.map) ? 1 : 3) + (first.control.transparent ? 1 : 0);
}

}  // namespace

ImageInfo gif_info(const ByteSource& src, const Limits& limits) {
  Reader reader(src, limits);
  ImageInfo info;
  info.format = Format::kGif;
  info.bit_depth = 8;
  info.frames = 0;
  auto no_check = [](const Frame&) {};
  while (std::optional<Frame> f = reader.next(false, no_check)) {
    if (info.frames++ == 0) {
      info.width = std::max(reader.gif()->SWidth, f->x + f->width);
      info.height = std::max(reader.gif()->SHeight, f->y + f->height);
      info.channels = unchanged_channels(*f);
      info.progressive = f->interlaced;
    }
  }
  if (info.frames == 0) throw Error(ErrorCode::kInvalidInput, src.name(), "GIF: no image in the file");
  return info;
}

Tensor decode_gif(const ByteSource& src, const DecodeOptions& options, bool all_frames) {
  Reader reader(src, options.limits);
  int width = reader.gif()->SWidth, height = reader.gif()->SHeight;
  int64_t frames = 0;
  // Every frame's pixels, and every canvas kept for the output, are bounded by loom's limits.
  auto check = [&](const Frame& f) {
    if (frames == 0) {
      width = std::max(width, f.x + f.width);
      height = std::max(height, f.y + f.height);
    }
    check_image_size(options.limits, src.name(), f.width, f.height, 1, 1);
    check_image_size(options.limits, src.name(), width, height * (frames + 1), 4, 1);
  };
  std::optional<Frame> first = reader.next(true, check);
  if (!first) throw Error(ErrorCode::kInvalidInput, src.name(), "GIF: no image in the file");
  ++frames;
  Compositor canvas(width, height, *first, reader.gif()->SBackGroundColor);
  const int channels = unchanged_channels(*first);
  if (!all_frames) return finish_image(std::move(canvas).take(channels), options, 1, src.name());
  std::vector<WholeImage> images;
  images.push_back(canvas.image(channels));
  while (std::optional<Frame> f = reader.next(true, check)) {
    ++frames;
    canvas.paste(*f);
    images.push_back(canvas.image(channels));
  }
  return finish_frames(images, options, 1, src.name());
}

}  // namespace loom::vision
