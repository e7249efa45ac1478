// draw_keypoints: torchvision.utils.draw_keypoints (discs as Pillow's filled ellipses, connections as
// Pillow's wide lines), with its per-instance visibility.
#include <fmt/format.h>

#include "loom/codec/error.h"
#include "loom/vision/draw.h"
#include "raster.h"

namespace loom::vision {
namespace {

constexpr const char* kWho = "draw_keypoints";

// Visibility as one flag per keypoint (n * k), all visible when undefined.
std::vector<uint8_t> read_visibility(const Tensor& visibility, int64_t n, int64_t k) {
  if (!visibility.defined()) return std::vector<uint8_t>(static_cast<size_t>(n * k), 1);
  const bool shape_ok = (visibility.ndim() == 2 || (visibility.ndim() == 3 && visibility.size(2) == 1)) &&
                        visibility.size(0) == n && visibility.size(1) == k;
  if (!shape_ok) {
    throw Error(ErrorCode::kInvalidInput, kWho,
                fmt::format("visibility must be [N, K] = [{}, {}] like the keypoints, got {} dimensions", n, k,
                            visibility.ndim()));
  }
  const DType d = visibility.dtype();
  if (d == DType::kFloat16 || d == DType::kBFloat16 || d == DType::kFloat32 || d == DType::kFloat64) {
    throw Error(ErrorCode::kInvalidInput, kWho,
                fmt::format("visibility must be bool (uint8) or an integer dtype, got {}", to_string(d)));
  }
  const std::vector<int64_t> values = detail::read_coordinates(visibility, kWho, "visibility");
  std::vector<uint8_t> out(values.size());
  for (size_t i = 0; i < values.size(); ++i) out[i] = values[i] != 0;
  return out;
}

}  // namespace

Tensor draw_keypoints(const Tensor& image, const Tensor& keypoints, const KeypointDrawOptions& opt) {
  detail::check_image(image, kWho);
  if (!keypoints.defined() || keypoints.ndim() != 3 || keypoints.size(2) != 2) {
    throw Error(ErrorCode::kInvalidInput, kWho,
                fmt::format("keypoints must be [N, K, 2] (x, y per keypoint), got {} dimensions",
                            keypoints.defined() ? keypoints.ndim() : 0));
  }
  if (opt.radius < 0 || opt.radius > 10000) {
    throw Error(ErrorCode::kInvalidInput, kWho, fmt::format("radius {} is outside 0..10000", opt.radius));
  }
  if (opt.width < 0 || opt.width > 10000) {
    throw Error(ErrorCode::kInvalidInput, kWho, fmt::format("width {} is outside 0..10000", opt.width));
  }
  const int64_t n = keypoints.size(0), k = keypoints.size(1);
  for (const auto& [from, to] : opt.connectivity) {
    if (from < 0 || from >= k || to < 0 || to >= k) {
      throw Error(ErrorCode::kInvalidInput, kWho,
                  fmt::format("connection ({}, {}) names a keypoint outside 0..{}", from, to, k - 1));
    }
  }
  const std::vector<int64_t> xy = detail::read_coordinates(keypoints, kWho, "keypoints");
  const std::vector<uint8_t> visible = read_visibility(opt.visibility, n, k);

  detail::Canvas canvas(image);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t* p = xy.data() + i * k * 2;
    const uint8_t* vis = visible.data() + i * k;
    for (int64_t j = 0; j < k; ++j) {
      if (!vis[j]) continue;
      const int64_t x = p[j * 2], y = p[j * 2 + 1];
      canvas.fill_ellipse(x - opt.radius, y - opt.radius, x + opt.radius, y + opt.radius, opt.color);
    }
    for (const auto& [from, to] : opt.connectivity) {
      if (!vis[from] || !vis[to]) continue;
      canvas.draw_line({p[from * 2], p[from * 2 + 1]}, {p[to * 2], p[to * 2 + 1]}, opt.width, opt.line_color);
    }
  }
  return canvas.to_tensor();
}

}  // namespace loom::vision
