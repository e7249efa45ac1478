// A dataset of synthetic JPEGs for the loader tests (CPU and GPU): no files, no test media.
#pragma once

#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "loom/codec/byte_source.h"
#include "loom/codec/error.h"
#include "loom/loader/dataset.h"
#include "loom/vision/image.h"
#include "test_media.h"

namespace loom::test {

// A smooth, textured RGB image (CHW uint8) so that JPEG artefacts stay small.
inline Tensor synthetic_image(int64_t h, int64_t w, int seed) {
  Tensor t = Tensor::empty({3, h, w}, DType::kUInt8);
  uint8_t* p = t.data<uint8_t>();
  for (int64_t c = 0; c < 3; ++c)
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x)
        p[(c * h + y) * w + x] = static_cast<uint8_t>(127 + 60 * std::sin(0.05 * x + 0.3 * c + seed) +
                                                      60 * std::cos(0.037 * y + 0.11 * seed * c));
  return t;
}

// Records "s<i>" holding a JPEG of varying size and label i % 10; the indices in `corrupt` hold bytes
// that are no image.
class SyntheticDataset final : public loader::Dataset {
 public:
  explicit SyntheticDataset(int64_t n, std::set<int64_t> corrupt = {}) {
    for (int64_t i = 0; i < n; ++i) {
      if (corrupt.count(i)) {
        jpegs_.push_back(pseudo_random_bytes(300, static_cast<uint32_t>(i)));
      } else {
        jpegs_.push_back(vision::encode_jpeg(synthetic_image(60 + 7 * (i % 5), 80 + 5 * (i % 3), static_cast<int>(i)),
                                             {.quality = 90}));
      }
    }
  }
  int64_t size() const override { return static_cast<int64_t>(jpegs_.size()); }
  loader::Record read(int64_t i) const override {
    if (i < 0 || i >= size()) throw Error(ErrorCode::kInvalidInput, "synthetic", "index out of range");
    loader::Record r;
    r.key = "s" + std::to_string(i);
    r.source = "synthetic";
    r.members.push_back({"jpg", ByteSource::from_memory(jpegs_[static_cast<size_t>(i)], name(i) + ".jpg")});
    r.label = i % 10;
    r.annotations = "{\"i\": " + std::to_string(i) + "}";
    return r;
  }
  std::string name(int64_t i) const override { return "synthetic:s" + std::to_string(i); }
  uint64_t fingerprint() const override { return 1000 + jpegs_.size(); }

 private:
  std::vector<std::vector<uint8_t>> jpegs_;
};

}  // namespace loom::test
