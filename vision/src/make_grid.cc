// make_grid: torchvision.utils.make_grid's layout (without its normalize option).
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "loom/codec/error.h"
#include "loom/vision/draw.h"

namespace loom::vision {
namespace {

constexpr const char* kWho = "make_grid";

template <typename T>
void fill(const Tensor& t, double value) {
  // torch.full converts a Python float to an integer dtype by truncation toward zero.
  if constexpr (std::is_integral_v<T>) {
    value = std::trunc(value);
    if (!(value >= static_cast<double>(std::numeric_limits<T>::min()) &&
          value <= static_cast<double>(std::numeric_limits<T>::max()))) {
      throw Error(ErrorCode::kInvalidInput, kWho,
                  fmt::format("pad value {} does not fit {}", value, to_string(t.dtype())));
    }
  }
  const T v = static_cast<T>(value);
  T* p = t.data<T>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = v;
}

void fill_value(const Tensor& t, double value) {
  switch (t.dtype()) {
    case DType::kUInt8: fill<uint8_t>(t, value); break;
    case DType::kInt16: fill<int16_t>(t, value); break;
    case DType::kUInt16: fill<uint16_t>(t, value); break;
    case DType::kInt32: fill<int32_t>(t, value); break;
    case DType::kInt64: fill<int64_t>(t, value); break;
    case DType::kFloat32: fill<float>(t, value); break;
    case DType::kFloat64: fill<double>(t, value); break;
    default: throw Error(ErrorCode::kInvalidInput, kWho, fmt::format("unsupported dtype {}", to_string(t.dtype())));
  }
}

// `image` (C x H x W) with a one-channel image repeated to three channels, as a new tensor or a view.
Tensor three_if_gray(const Tensor& image) {
  if (image.size(0) != 1) return image;
  Tensor out = Tensor::empty({3, image.size(1), image.size(2)}, image.dtype());
  for (int c = 0; c < 3; ++c) out.select(0, c).copy_from(image.select(0, 0));
  return out;
}

}  // namespace

Tensor make_grid(const std::vector<Tensor>& images, const GridOptions& opt) {
  if (opt.nrow < 1) throw Error(ErrorCode::kInvalidInput, kWho, fmt::format("nrow {} must be >= 1", opt.nrow));
  if (opt.padding < 0) throw Error(ErrorCode::kInvalidInput, kWho, fmt::format("padding {} must be >= 0", opt.padding));
  if (images.empty()) throw Error(ErrorCode::kInvalidInput, kWho, "no images");
  const Tensor& first = images[0];
  for (size_t i = 0; i < images.size(); ++i) {
    const Tensor& t = images[i];
    if (!t.defined() || t.ndim() != 3) {
      throw Error(ErrorCode::kInvalidInput, kWho,
                  fmt::format("image {} must be C x H x W (3 dimensions), got {}", i, t.defined() ? t.ndim() : 0));
    }
    if (!t.device().is_cpu()) throw Error(ErrorCode::kUnsupported, kWho, "needs CPU images");
    if (t.dtype() != first.dtype() || t.size(0) != first.size(0) || t.size(1) != first.size(1) ||
        t.size(2) != first.size(2)) {
      throw Error(ErrorCode::kInvalidInput, kWho,
                  fmt::format("image {} is {} {}x{}x{} but image 0 is {} {}x{}x{}: all must match", i,
                              to_string(t.dtype()), t.size(0), t.size(1), t.size(2), to_string(first.dtype()),
                              first.size(0), first.size(1), first.size(2)));
    }
  }
  if (images.size() == 1) return three_if_gray(first).contiguous().clone();

  const int64_t count = static_cast<int64_t>(images.size());
  const int64_t channels = first.size(0) == 1 ? 3 : first.size(0);
  const int64_t columns = std::min<int64_t>(opt.nrow, count);
  const int64_t rows = (count + columns - 1) / columns;
  const int64_t cell_h = first.size(1) + opt.padding, cell_w = first.size(2) + opt.padding;
  Tensor grid = Tensor::empty({channels, cell_h * rows + opt.padding, cell_w * columns + opt.padding}, first.dtype());
  fill_value(grid, opt.pad_value);
  for (int64_t k = 0; k < count; ++k) {
    const int64_t y = (k / columns) * cell_h + opt.padding, x = (k % columns) * cell_w + opt.padding;
    grid.slice(1, y, y + first.size(1)).slice(2, x, x + first.size(2)).copy_from(three_if_gray(images[k]));
  }
  return grid;
}

Tensor make_grid(const Tensor& images, const GridOptions& opt) {
  if (!images.defined() || images.ndim() < 2 || images.ndim() > 4) {
    throw Error(ErrorCode::kInvalidInput, kWho,
                fmt::format("images must be N x C x H x W, C x H x W or H x W, got {} dimensions",
                            images.defined() ? images.ndim() : 0));
  }
  if (images.ndim() == 2)
    return make_grid(std::vector<Tensor>{images.contiguous().view({1, images.size(0), images.size(1)})}, opt);
  if (images.ndim() == 3) return make_grid(std::vector<Tensor>{images}, opt);
  std::vector<Tensor> list;
  for (int64_t i = 0; i < images.size(0); ++i) list.push_back(images.select(0, i));
  return make_grid(list, opt);
}

}  // namespace loom::vision
