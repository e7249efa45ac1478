#include "loom/codec/limits.h"

#include <fmt/format.h>

#include "loom/codec/error.h"

namespace loom {

void check_image_size(const Limits& limits, std::string_view input, int64_t width, int64_t height, int64_t channels,
                      int64_t bytes_per_sample) {
  if (width <= 0 || height <= 0) {
    throw Error(ErrorCode::kInvalidInput, std::string(input),
                fmt::format("image has an empty size {}x{}", width, height));
  }
  // Each factor is below 2^32 for every format loom reads, so the products fit in 64 bits.
  const uint64_t pixels = static_cast<uint64_t>(width) * static_cast<uint64_t>(height);
  if (limits.max_pixels != 0 && pixels > limits.max_pixels) {
    throw Error(ErrorCode::kLimitExceeded, std::string(input),
                fmt::format("image of {}x{} = {} pixels exceeds the limit of {} pixels", width, height, pixels,
                            limits.max_pixels));
  }
  const uint64_t bytes = pixels * static_cast<uint64_t>(channels) * static_cast<uint64_t>(bytes_per_sample);
  if (limits.max_bytes != 0 && bytes > limits.max_bytes) {
    throw Error(ErrorCode::kLimitExceeded, std::string(input),
                fmt::format("decoded image of {} bytes exceeds the limit of {} bytes", bytes, limits.max_bytes));
  }
}

}  // namespace loom
