// The training loop over an ImageFolder tree (root/<class>/<image>): shuffled as torch's
// DistributedSampler, each image RandomResizedCrop'ed to 224 (decoding only the crop), flipped at
// random and normalized to float32 CHW, in batches of 8 prefetched on 2 threads.
//   sample_train_loop ROOT [EPOCHS]
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "loom/codec/error.h"
#include "loom/loader/dataset.h"
#include "loom/loader/loader.h"
#include "loom/transforms/geometry_transforms.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s ROOT [EPOCHS]\n", argv[0]);
    return 2;
  }
  namespace ld = loom::loader;
  namespace tf = loom::transforms;
  try {
    const auto dataset = ld::FolderDataset::open(argv[1]);
    std::printf("%lld images in %zu classes\n", static_cast<long long>(dataset->size()), dataset->classes().size());

    ld::LoaderOptions options;
    options.batch_size = 8;
    options.threads = 2;
    options.order.shuffle = ld::Shuffle::kTorch;
    options.order.seed = 0;
    ld::ImageField& image = options.fields[0].image;  // default_fields(): "image" (RGB) and "label"
    image.decode.layout = loom::Layout::kHWC;         // crop and flip interleaved pixels
    image.crop = std::make_shared<tf::RandomResizedCrop>(loom::Size{224, 224});
    image.decode_crop = true;
    image.transform = std::make_shared<tf::RandomHorizontalFlip>(0.5);
    // float32 CHW, normalized straight into the batch
    image.normalize = ld::ImageField::Normalization{{0.485f, 0.456f, 0.406f}, {0.229f, 0.224f, 0.225f}};
    ld::Loader loader(dataset, options);

    const int epochs = argc > 2 ? std::atoi(argv[2]) : 1;
    for (int epoch = 0; epoch < epochs; ++epoch) {
      for (const ld::Batch& batch : loader) {
        const loom::Tensor& x = batch["image"].tensor;  // float32 [8, 3, 224, 224]
        const loom::Tensor& y = batch["label"].tensor;  // int64 [8]
        std::printf("epoch %lld step %lld: images [%lld, %lld, %lld, %lld], first label %lld\n",
                    static_cast<long long>(batch.epoch), static_cast<long long>(batch.step),
                    static_cast<long long>(x.size(0)), static_cast<long long>(x.size(1)),
                    static_cast<long long>(x.size(2)), static_cast<long long>(x.size(3)),
                    static_cast<long long>(y.data<int64_t>()[0]));
      }
    }
    const ld::LoaderStats stats = loader.stats();
    std::printf("%.0f samples/s; resume state %s\n", stats.samples_per_second, loader.state().to_json().c_str());
  } catch (const loom::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
