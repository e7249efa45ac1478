// loom's loader feeding a libtorch model: an ImageFolder tree (root/<class>/<image>) resized to
// 32 x 32, normalized to float32 NCHW in the batch, handed to torch with at::fromDLPack (no copy) and
// trained for a few epochs with Adam on the CPU. Exits 1 unless the loss went down (the mean over the
// last five epochs below that over the first five) and every batch reached torch without a copy
// (torch's tensors point at the loader's own batch memory).
//   sample_train_libtorch ROOT [EPOCHS]
#include <ATen/DLConvertor.h>
#include <torch/torch.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <numeric>
#include <vector>

#include "loom/codec/error.h"
#include "loom/loader/dataset.h"
#include "loom/loader/loader.h"
#include "loom/transforms/geometry_transforms.h"

namespace {

// A loom tensor as a torch tensor over the same memory: the DLPack capsule keeps loom's storage
// alive until torch's last view of it is gone.
at::Tensor as_torch(const loom::Tensor& tensor) {
  return at::fromDLPack(tensor.to_dlpack());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s ROOT [EPOCHS]\n", argv[0]);
    return 2;
  }
  namespace ld = loom::loader;
  namespace tf = loom::transforms;
  try {
    const auto dataset = ld::FolderDataset::open(argv[1]);
    const auto num_classes = static_cast<int64_t>(dataset->classes().size());

    ld::LoaderOptions options;
    options.batch_size = 4;
    options.threads = 2;
    options.order.shuffle = ld::Shuffle::kTorch;
    options.order.seed = 0;
    ld::ImageField& image = options.fields[0].image;  // default_fields(): "image" (RGB) and "label"
    image.transform = std::make_shared<tf::Resize>(loom::Size{32, 32});
    image.normalize = ld::ImageField::Normalization{{0.485f, 0.456f, 0.406f}, {0.229f, 0.224f, 0.225f}};
    ld::Loader loader(dataset, options);

    torch::manual_seed(0);
    torch::nn::Sequential model(torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 16, 3).stride(2)), torch::nn::ReLU(),
                                torch::nn::AdaptiveAvgPool2d(1), torch::nn::Flatten(),
                                torch::nn::Linear(16, num_classes));
    torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(0.02));

    const int epochs = argc > 2 ? std::atoi(argv[2]) : 30;
    if (epochs < 10) {
      std::fprintf(stderr, "EPOCHS must be at least 10 (two windows of five)\n");
      return 2;
    }
    std::vector<double> losses;  // mean loss of each epoch
    int64_t copied = 0;
    for (int epoch = 0; epoch < epochs; ++epoch) {
      double epoch_loss = 0;
      int64_t steps = 0;
      for (const ld::Batch& batch : loader) {
        const loom::Tensor& images = batch["image"].tensor;  // float32 [B, 3, 32, 32]
        const loom::Tensor& labels = batch["label"].tensor;  // int64 [B]
        at::Tensor x = as_torch(images);
        at::Tensor y = as_torch(labels);
        if (x.data_ptr() != images.data() || y.data_ptr() != labels.data()) ++copied;

        optimizer.zero_grad();
        at::Tensor loss = torch::nn::functional::cross_entropy(model->forward(x), y);
        loss.backward();
        optimizer.step();
        epoch_loss += loss.item<double>();
        ++steps;
      }
      epoch_loss /= static_cast<double>(steps);
      losses.push_back(epoch_loss);
      std::printf("epoch %d: mean loss %.4f over %lld batches\n", epoch, epoch_loss, static_cast<long long>(steps));
    }
    const double first = std::accumulate(losses.begin(), losses.begin() + 5, 0.0) / 5;
    const double last = std::accumulate(losses.end() - 5, losses.end(), 0.0) / 5;
    std::printf(
        "mean loss of the first five epochs %.4f, of the last five %.4f; batches copied on the way into "
        "torch: %lld\n",
        first, last, static_cast<long long>(copied));
    return last < first && copied == 0 ? 0 : 1;
  } catch (const loom::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  } catch (const c10::Error& e) {
    std::fprintf(stderr, "torch error: %s\n", e.what_without_backtrace());
    return 1;
  }
}
