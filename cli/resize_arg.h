// The --resize argument shared by `loom convert` and `loom frames`: "WxH" (exact size) or "N" (the
// shorter side, aspect ratio kept, as torchvision's Resize(N)). Thread safety: pure functions.
#pragma once

#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "loom/transforms/resize.h"

namespace loom::cli {

// A resize request: exact size, or the shorter side with the aspect ratio kept.
struct ResizeSpec {
  int64_t width = 0, height = 0;  // exact when both are set
  int64_t shorter = 0;            // else this
};

// Largest side --resize takes (the decoders' pixel limits still apply to the result).
inline constexpr int64_t kMaxResizeSide = 1'000'000;

// nullopt for an empty text; throws CLI::ValidationError("--resize") for anything but WxH or N with
// integers in [1, kMaxResizeSide].
inline std::optional<ResizeSpec> parse_resize(const std::string& text) {
  if (text.empty()) return std::nullopt;
  ResizeSpec spec;
  const auto x = text.find('x');
  try {
    size_t used = 0;
    if (x == std::string::npos) {
      spec.shorter = std::stoll(text, &used);
      if (used != text.size() || spec.shorter <= 0) throw std::invalid_argument(text);
    } else {
      spec.width = std::stoll(text.substr(0, x), &used);
      if (used != x) throw std::invalid_argument(text);
      spec.height = std::stoll(text.substr(x + 1), &used);
      if (used != text.size() - x - 1 || spec.width <= 0 || spec.height <= 0) throw std::invalid_argument(text);
    }
    if (std::max({spec.shorter, spec.width, spec.height}) > kMaxResizeSide) throw std::out_of_range(text);
  } catch (const std::logic_error&) {
    throw CLI::ValidationError("--resize",
                               fmt::format("'{}' is not WxH or N (integers from 1 to {})", text, kMaxResizeSide));
  }
  return spec;
}

// The output size of `resize` for an input of size `input`.
inline Size resize_target(const ResizeSpec& resize, Size input) {
  return resize.shorter > 0 ? transforms::size_for_shorter_side(input, resize.shorter)
                            : Size{resize.height, resize.width};
}

}  // namespace loom::cli
