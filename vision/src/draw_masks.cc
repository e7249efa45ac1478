// draw_segmentation_masks: torchvision.utils.draw_segmentation_masks, with its float32 arithmetic.
// Built with -ffp-contract=off: the blend must round like torch's separate multiply and add.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "loom/codec/error.h"
#include "loom/vision/draw.h"
#include "raster.h"

namespace loom::vision {
namespace {
constexpr const char* kWho = "draw_segmentation_masks";
}  // namespace

Tensor draw_segmentation_masks(const Tensor& image, const Tensor& masks, const MaskDrawOptions& opt) {
  detail::check_image(image, kWho);
  if (!masks.defined() || (masks.ndim() != 2 && masks.ndim() != 3)) {
    throw Error(
        ErrorCode::kInvalidInput, kWho,
        fmt::format("masks must be [N, H, W] or [H, W], got {} dimensions", masks.defined() ? masks.ndim() : 0));
  }
  if (masks.dtype() != DType::kUInt8) {
    throw Error(ErrorCode::kInvalidInput, kWho,
                fmt::format("masks must be bool (uint8), got {}", to_string(masks.dtype())));
  }
  if (!masks.device().is_cpu()) throw Error(ErrorCode::kUnsupported, kWho, "needs CPU masks");
  const Tensor m = masks.ndim() == 2 ? masks.contiguous().view({1, masks.size(0), masks.size(1)}) : masks;
  if (m.size(1) != image.size(1) || m.size(2) != image.size(2)) {
    throw Error(ErrorCode::kInvalidInput, kWho,
                fmt::format("masks are {}x{} (H x W) but the image is {}x{}", m.size(1), m.size(2), image.size(1),
                            image.size(2)));
  }
  if (!(opt.alpha >= 0.0 && opt.alpha <= 1.0)) {
    throw Error(ErrorCode::kInvalidInput, kWho, fmt::format("alpha {} is outside 0..1", opt.alpha));
  }
  const int64_t n = m.size(0), h = m.size(1), w = m.size(2);
  const std::vector<Color> colors =
      detail::resolve_colors(opt.colors, generate_color_palette(static_cast<int>(n)), n, kWho, "colors");

  detail::Canvas canvas(image);
  if (n == 0) return canvas.to_tensor();
  // The color each pixel takes: the last mask covering it, else its own.
  const Tensor mc = m.contiguous();
  const uint8_t* mask = mc.data<uint8_t>();
  std::vector<int32_t> owner(static_cast<size_t>(h * w), -1);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t p = 0; p < h * w; ++p)
      if (mask[i * h * w + p]) owner[static_cast<size_t>(p)] = static_cast<int32_t>(i);

  // torch: image * (1 - alpha) + drawn * alpha, each product and the sum rounded to float32, then
  // truncated to uint8. Scalars are converted to float32 after Python computes 1 - alpha in double.
  const float keep = static_cast<float>(1.0 - opt.alpha), paint = static_cast<float>(opt.alpha);
  for (int64_t y = 0; y < h; ++y)
    for (int64_t x = 0; x < w; ++x) {
      uint8_t* px = canvas.pixel(x, y);
      const int32_t o = owner[static_cast<size_t>(y * w + x)];
      for (int c = 0; c < 3; ++c) {
        const uint8_t drawn = o < 0 ? px[c] : colors[static_cast<size_t>(o)][c];
        const float a = static_cast<float>(px[c]) * keep;
        const float b = static_cast<float>(drawn) * paint;
        const float sum = a + b;
        px[c] = static_cast<uint8_t>(std::clamp(sum, 0.0f, 255.0f));
      }
    }
  return canvas.to_tensor();
}

}  // namespace loom::vision
