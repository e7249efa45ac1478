#include "core/image_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "loom/accel/cuda.h"
#include "loom/codec/error.h"

namespace loom::transforms {
namespace {

// "a", "a or b", "a, b or c".
std::string one_of(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " or " : ", ";
    out += names[i];
  }
  return out;
}

}  // namespace

Channels::Channels(std::initializer_list<int> counts) {
  for (int c : counts) {
    if (c < 0 || c > 63) throw Error(ErrorCode::kInternal, "Channels", fmt::format("channel count {} is not 0..63", c));
    listed_ |= uint64_t{1} << c;
  }
}

bool Channels::accepts(int64_t count) const {
  if (listed_ == 0) return count >= min_;
  return count >= 0 && count < 64 && (listed_ >> count & 1) != 0;
}

std::string Channels::describe() const {
  if (listed_ == 0) return fmt::format("at least {}", min_);
  std::vector<std::string> counts;
  for (int c = 0; c < 64; ++c) {
    if (listed_ >> c & 1) counts.push_back(std::to_string(c));
  }
  return one_of(counts);
}

ImageShape image_shape(const Tensor& image, Layout layout, const char* op) {
  if (!image.defined()) {
    throw Error(ErrorCode::kInvalidInput, op, "expected a 3-D image (C x H x W or H x W x C), got an undefined tensor");
  }
  if (image.ndim() != 3) {
    throw Error(ErrorCode::kInvalidInput, op,
                fmt::format("expected a 3-D image (C x H x W or H x W x C), got a {}-D tensor", image.ndim()));
  }
  if (layout == Layout::kHWC) return {image.size(2), image.size(0), image.size(1)};
  return {image.size(0), image.size(1), image.size(2)};
}

void check_device(Device device, Devices devices, const char* op, const char* what) {
  if (device.is_cpu()) return;
  if (devices == Devices::kCpu) {
    throw Error(ErrorCode::kUnsupported, op,
                fmt::format("expected {} on the CPU, got one on CUDA device {}", what, device.index));
  }
  accel::check_cuda_device(device.index, op);
}

ImageShape check_image(const Tensor& image, Layout layout, const char* op, std::initializer_list<DType> dtypes,
                       Channels channels, Devices devices) {
  const ImageShape shape = image_shape(image, layout, op);
  check_device(image.device(), devices, op, "an image");
  if (dtypes.size() > 0 && std::find(dtypes.begin(), dtypes.end(), image.dtype()) == dtypes.end()) {
    std::vector<std::string> names;
    for (DType d : dtypes) names.emplace_back(to_string(d));
    throw Error(ErrorCode::kUnsupported, op,
                fmt::format("expected a {} image, got {}", one_of(names), to_string(image.dtype())));
  }
  if (!channels.accepts(shape.channels)) {
    throw Error(ErrorCode::kInvalidInput, op,
                fmt::format("expected {} channels, got {}", channels.describe(), shape.channels));
  }
  return shape;
}

}  // namespace loom::transforms
