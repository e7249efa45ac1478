// Parsing of the CLI's size and geometry arguments ("WxH", "WxH+X+Y"). Digits only: no signs,
// spaces or exponents. Thread safety: pure functions.
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string_view>

#include "loom/codec/limits.h"

namespace loom::cli {

// A width and height in pixels, and an optional top-left offset.
struct Geometry {
  int64_t width = 0, height = 0;
  int64_t x = 0, y = 0;  // offset of the top-left corner; 0, 0 when not given
};

// One decimal number of [0, 2^31) that takes the whole of `text`; nullopt otherwise.
inline std::optional<int64_t> parse_count(std::string_view text) {
  if (text.empty() || text.front() < '0' || text.front() > '9') return std::nullopt;
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value >= (int64_t{1} << 31)) return std::nullopt;
  return value;
}

// "WxH" with positive W and H whose product is within the default image limit (Limits::max_pixels);
// with `offset`, also "WxH+X+Y" (X, Y >= 0). nullopt for anything else.
inline std::optional<Geometry> parse_geometry(std::string_view text, bool offset) {
  Geometry g;
  const size_t x = text.find('x');
  if (x == std::string_view::npos) return std::nullopt;
  std::string_view rest = text.substr(x + 1);
  const size_t plus = rest.find('+');
  if (plus != std::string_view::npos) {
    if (!offset) return std::nullopt;
    const std::string_view offsets = rest.substr(plus + 1);
    const size_t second = offsets.find('+');
    if (second == std::string_view::npos) return std::nullopt;
    const auto ox = parse_count(offsets.substr(0, second));
    const auto oy = parse_count(offsets.substr(second + 1));
    if (!ox || !oy) return std::nullopt;
    g.x = *ox;
    g.y = *oy;
    rest = rest.substr(0, plus);
  }
  const auto w = parse_count(text.substr(0, x));
  const auto h = parse_count(rest);
  if (!w || !h || *w <= 0 || *h <= 0) return std::nullopt;
  if (static_cast<uint64_t>(*w) * static_cast<uint64_t>(*h) > Limits{}.max_pixels) return std::nullopt;
  g.width = *w;
  g.height = *h;
  return g;
}

}  // namespace loom::cli
