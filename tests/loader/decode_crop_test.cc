// Decode for the crop: RandomResizedCrop fused with a cropped, DCT-scaled JPEG decode stays close to
// decoding the whole image and cropping it, with the same random draws.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "loom/loader/loader.h"
#include "loom/transforms/geometry_transforms.h"
#include "test_media.h"

namespace loom::loader {
namespace {

// Real photographs, each several times: every record is a different random crop.
class PhotoDataset final : public Dataset {
 public:
  PhotoDataset() {
    for (const char* name : {"flower.jpg", "iptc.jpg", "exif-72dpi-int.jpg", "xmp_test.jpg", "sugarshack.mpo"})
      files_.push_back(test::read_bytes(test::media(std::string("images/jpeg/") + name)));
  }
  int64_t size() const override { return 10 * static_cast<int64_t>(files_.size()); }
  Record read(int64_t i) const override {
    Record r;
    r.key = std::to_string(i);
    r.source = "photos";
    r.members.push_back({"jpg", ByteSource::from_memory(files_[static_cast<size_t>(i) % files_.size()], name(i))});
    r.label = 0;
    return r;
  }
  std::string name(int64_t i) const override { return "photos:" + std::to_string(i); }
  uint64_t fingerprint() const override { return 5; }

 private:
  std::vector<std::vector<uint8_t>> files_;
};

double psnr(const Tensor& a, const Tensor& b) {
  const uint8_t* x = a.data<uint8_t>();
  const uint8_t* y = b.data<uint8_t>();
  double se = 0;
  for (int64_t i = 0; i < a.numel(); ++i) se += (x[i] - y[i]) * (x[i] - y[i]);
  const double mse = se / static_cast<double>(a.numel());
  return mse == 0 ? 99.0 : 10 * std::log10(255.0 * 255.0 / mse);
}

Tensor crops(bool decode_crop) {
  LoaderOptions o;
  o.batch_size = 50;
  o.threads = 2;
  o.order.seed = 3;
  o.fields = default_fields();
  o.fields[0].image.crop = std::make_shared<transforms::RandomResizedCrop>(Size{96, 96});
  o.fields[0].image.decode_crop = decode_crop;
  o.fields[0].image.transform = std::make_shared<transforms::RandomHorizontalFlip>(0.5);
  Loader loader(std::make_shared<const PhotoDataset>(), o);
  return loader.next()->fields[0].second.tensor;
}

TEST(DecodeCrop, StaysCloseToTheFullDecodeWithTheSameDraws) {
  const Tensor full = crops(false), fused = crops(true);
  ASSERT_EQ(full.size(0), 50);
  double sum = 0, worst = 99;
  for (int64_t i = 0; i < 50; ++i) {
    const double p = psnr(full.select(0, i), fused.select(0, i));
    sum += p;
    worst = std::min(worst, p);
  }
  std::printf("decode_crop vs full decode, 50 crops of 96x96: mean PSNR %.1f dB, worst %.1f dB\n", sum / 50, worst);
  // A different crop or flip would be far below these (unrelated image content gives ~12 dB).
  EXPECT_GT(sum / 50, 30.0);
  EXPECT_GT(worst, 22.0);
}

}  // namespace
}  // namespace loom::loader
