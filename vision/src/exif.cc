#include "exif.h"

#include <cstring>

namespace loom::vision {

int exif_orientation(std::span<const uint8_t> b) {
  if (b.size() >= 6 && std::memcmp(b.data(), "Exif\0\0", 6) == 0) b = b.subspan(6);
  if (b.size() < 8) return 1;
  bool little;
  if (std::memcmp(b.data(), "II*\0", 4) == 0) {
    little = true;
  } else if (std::memcmp(b.data(), "MM\0*", 4) == 0) {
    little = false;
  } else {
    return 1;
  }
  auto u16 = [&](size_t at) -> uint32_t { return little ? b[at] | (b[at + 1] << 8) : (b[at] << 8) | b[at + 1]; };
  auto u32 = [&](size_t at) -> uint32_t {
    return little ? u16(at) | (u16(at + 2) << 16) : (u16(at) << 16) | u16(at + 2);
  };
  const uint64_t ifd = u32(4);
  if (ifd + 2 > b.size()) return 1;
  const uint32_t entries = u16(ifd);
  for (uint32_t i = 0; i < entries; ++i) {
    const uint64_t entry = ifd + 2 + uint64_t{12} * i;
    if (entry + 12 > b.size()) return 1;
    if (u16(entry) != 0x0112) continue;
    const uint32_t type = u16(entry + 2), count = u32(entry + 4);
    if (type != 3 || count != 1) return 1;  // must be one SHORT, stored inline
    const uint32_t value = u16(entry + 8);
    return value >= 1 && value <= 8 ? static_cast<int>(value) : 1;
  }
  return 1;
}

Tensor apply_orientation(const Tensor& image, Layout layout, int orientation) {
  if (orientation <= 1 || orientation > 8) return image;
  const int h = layout == Layout::kHWC ? 0 : image.ndim() - 2;
  const int w = h + 1;
  auto hflip = [&](const Tensor& t) { return t.slice(w, -1, INT64_MIN, -1); };
  auto vflip = [&](const Tensor& t) { return t.slice(h, -1, INT64_MIN, -1); };
  auto transpose = [&](const Tensor& t) {
    int dims[3] = {0, 1, 2};
    std::swap(dims[h], dims[w]);
    return t.permute(std::span<const int>(dims, t.ndim()));
  };
  Tensor v;
  switch (orientation) {
    case 2: v = hflip(image); break;
    case 3: v = hflip(vflip(image)); break;
    case 4: v = vflip(image); break;
    case 5: v = transpose(image); break;
    case 6: v = hflip(transpose(image)); break;  // rotate 90 degrees clockwise
    case 7: v = hflip(vflip(transpose(image))); break;
    case 8: v = vflip(transpose(image)); break;  // rotate 90 degrees counter-clockwise
  }
  return v.clone();
}

}  // namespace loom::vision
