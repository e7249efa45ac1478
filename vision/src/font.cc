// FreeType text rendering for labels (see font.h).
#include "font.h"

#include <fmt/format.h>
#include <ft2build.h>
#include FT_FREETYPE_H

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "loom/codec/error.h"

namespace loom::vision::detail {
namespace {

// Next code point of UTF-8 `s` from `i` (advanced); malformed or overlong sequences give U+FFFD.
char32_t next_code_point(std::string_view s, size_t& i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b0 = byte(i++);
  if (b0 < 0x80) return b0;
  int extra = 0;
  char32_t cp = 0, min = 0;
  if ((b0 & 0xE0) == 0xC0) {
    extra = 1, cp = b0 & 0x1F, min = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    extra = 2, cp = b0 & 0x0F, min = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    extra = 3, cp = b0 & 0x07, min = 0x10000;
  } else {
    return 0xFFFD;
  }
  for (int k = 0; k < extra; ++k) {
    if (i >= s.size() || (byte(i) & 0xC0) != 0x80) return 0xFFFD;
    cp = (cp << 6) | (byte(i++) & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0xFFFD;
  return cp;
}

}  // namespace

struct Font::Handles {
  FT_Library library = nullptr;
  FT_Face face = nullptr;
  ~Handles() {
    if (face) FT_Done_Face(face);
    if (library) FT_Done_FreeType(library);
  }
};

Font::Font(const std::filesystem::path& path, int pixel_size) : handles_(std::make_unique<Handles>()), path_(path) {
  const std::string name = path.string();
  {
    std::ifstream probe(path, std::ios::binary);
    if (!probe) {
      throw Error(ErrorCode::kIo, name, fmt::format("cannot open the font file: {}", std::strerror(errno)));
    }
  }
  if (FT_Init_FreeType(&handles_->library) != 0) {
    throw Error(ErrorCode::kInternal, name, "FreeType failed to initialise");
  }
  if (FT_New_Face(handles_->library, name.c_str(), 0, &handles_->face) != 0) {
    throw Error(ErrorCode::kInvalidInput, name, "not a font file FreeType can read");
  }
  if (FT_Set_Pixel_Sizes(handles_->face, 0, static_cast<FT_UInt>(pixel_size)) != 0) {
    throw Error(ErrorCode::kInvalidInput, name, fmt::format("the font has no size {} pixels", pixel_size));
  }
}

Font::~Font() = default;

template <typename Visit>
void Font::layout(std::string_view text, int64_t x, int64_t y, Visit&& visit) const {
  FT_Face face = handles_->face;
  // Pen positions in 26.6 fixed point; the baseline sits one ascender below the top.
  const int64_t baseline = y + ((face->size->metrics.ascender + 32) >> 6);
  int64_t pen = 0;
  FT_UInt previous = 0;
  for (size_t i = 0; i < text.size();) {
    const char32_t cp = next_code_point(text, i);
    const FT_UInt index = FT_Get_Char_Index(face, cp);
    if (previous != 0 && index != 0 && FT_HAS_KERNING(face)) {
      FT_Vector kern{};
      if (FT_Get_Kerning(face, previous, index, FT_KERNING_DEFAULT, &kern) == 0) pen += kern.x;
    }
    if (FT_Load_Glyph(face, index, FT_LOAD_RENDER | FT_LOAD_TARGET_NORMAL) != 0) {
      throw Error(ErrorCode::kInvalidInput, path_.string(),
                  fmt::format("cannot render code point U+{:04X}", static_cast<uint32_t>(cp)));
    }
    const FT_GlyphSlot g = face->glyph;
    const FT_Bitmap& bm = g->bitmap;
    if (bm.width > 0 && bm.rows > 0 && bm.pixel_mode == FT_PIXEL_MODE_GRAY) {
      visit(bm.buffer, static_cast<int64_t>(bm.width), static_cast<int64_t>(bm.rows), static_cast<int64_t>(bm.pitch),
            x + ((pen + 32) >> 6) + g->bitmap_left, baseline - g->bitmap_top);
    }
    pen += g->advance.x;
    previous = index;
  }
}

PixelBox Font::ink_box(std::string_view text, int64_t x, int64_t y) const {
  PixelBox box{INT64_MAX, INT64_MAX, INT64_MIN, INT64_MIN};
  layout(text, x, y, [&](const unsigned char* rows, int64_t w, int64_t h, int64_t pitch, int64_t left, int64_t top) {
    for (int64_t r = 0; r < h; ++r)
      for (int64_t c = 0; c < w; ++c) {
        if (rows[r * pitch + c] == 0) continue;
        box.left = std::min(box.left, left + c);
        box.right = std::max(box.right, left + c);
        box.top = std::min(box.top, top + r);
        box.bottom = std::max(box.bottom, top + r);
      }
  });
  return box.left == INT64_MAX ? PixelBox{} : box;
}

void Font::draw(Canvas& canvas, std::string_view text, int64_t x, int64_t y, Color color) const {
  layout(text, x, y, [&](const unsigned char* rows, int64_t w, int64_t h, int64_t pitch, int64_t left, int64_t top) {
    for (int64_t r = std::max<int64_t>(0, -top); r < h && top + r < canvas.height(); ++r)
      for (int64_t c = std::max<int64_t>(0, -left); c < w && left + c < canvas.width(); ++c) {
        const uint8_t coverage = rows[r * pitch + c];
        if (coverage == 0) continue;
        uint8_t* p = canvas.pixel(left + c, top + r);
        for (int k = 0; k < 3; ++k) p[k] = blend(coverage, p[k], color[k]);
      }
  });
}

}  // namespace loom::vision::detail
