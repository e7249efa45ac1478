// Private: a small FreeType text renderer for box labels.
//
// A Font owns one FT_Library and one FT_Face (RAII), so each drawing call opens its own and calls never
// share FreeType state: reentrant, but one Font must not be used by two threads at once.
// Text is UTF-8 (malformed bytes draw U+FFFD), laid out on one line left to right with the face's
// kerning, anti-aliased, and blended with Pillow's rounding (as Pillow's ImageDraw.text).
#pragma once

#include <filesystem>
#include <memory>
#include <string_view>

#include "raster.h"

namespace loom::vision::detail {

// A rectangle in pixels, both ends inclusive; empty when right < left or bottom < top.
struct PixelBox {
  int64_t left = 0, top = 0, right = -1, bottom = -1;
  bool empty() const { return right < left || bottom < top; }
};

class Font {
 public:
  // Opens `path` at `pixel_size` pixels per em. Throws Error(kIo) when the file is missing or
  // unreadable and Error(kInvalidInput) when FreeType cannot read it as a font, both naming the file.
  Font(const std::filesystem::path& path, int pixel_size);
  ~Font();
  Font(const Font&) = delete;
  Font& operator=(const Font&) = delete;

  // The ink box of `text` drawn with its top-left (the ascender line, Pillow's "la" anchor) at (x, y).
  PixelBox ink_box(std::string_view text, int64_t x, int64_t y) const;
  // Draws `text` with its top-left at (x, y) in `color`; glyphs are clipped to the canvas.
  void draw(Canvas& canvas, std::string_view text, int64_t x, int64_t y, Color color) const;

 private:
  struct Handles;
  // Calls visit(bitmap rows, width, height, pitch, left, top) for each glyph with ink, in pixels
  // relative to (x, y).
  template <typename Visit>
  void layout(std::string_view text, int64_t x, int64_t y, Visit&& visit) const;

  std::unique_ptr<Handles> handles_;
  std::filesystem::path path_;
};

}  // namespace loom::vision::detail
