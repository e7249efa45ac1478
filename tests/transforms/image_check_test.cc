// The one image check (core/image_check.cc): its order, codes and messages, and that every family's
// ops report a bad image the same way, named after the op.
#include "core/image_check.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <functional>
#include <string>
#include <vector>

#include "loom/accel/cuda.h"
#include "loom/codec/error.h"
#include "loom/transforms/color.h"
#include "loom/transforms/geometry.h"
#include "loom/transforms/geometry_transforms.h"
#include "loom/transforms/noise.h"
#include "loom/transforms/resize.h"
#include "loom/transforms/sample.h"
#include "test_media.h"

namespace loom::transforms {
namespace {

using test::error_of;

// A tensor on CUDA device `index`, never read: every op must refuse it before touching an element (the
// pointer is not even valid). The default index is the first past the devices this process can use,
// so that even the ops with a CUDA twin refuse it, on a machine with GPUs too.
Tensor on_gpu(std::initializer_list<int64_t> shape, DType dtype = DType::kUInt8,
              int index = accel::cuda_device_count()) {
  return Tensor::from_blob(reinterpret_cast<void*>(0x10), std::vector<int64_t>(shape), {}, dtype, Device::cuda(index));
}

TEST(ImageCheck, ReturnsTheShapeInEitherLayout) {
  const Tensor t = Tensor::zeros({2, 5, 7}, DType::kUInt8);
  const ImageShape chw = check_image(t, Layout::kCHW, "op");
  EXPECT_EQ(chw.channels, 2);
  EXPECT_EQ(chw.height, 5);
  EXPECT_EQ(chw.width, 7);
  const ImageShape hwc = check_image(t, Layout::kHWC, "op");
  EXPECT_EQ(hwc.channels, 7);
  EXPECT_EQ(hwc.height, 2);
  EXPECT_EQ(hwc.width, 5);
  EXPECT_EQ(image_size(t, Layout::kHWC), (Size{2, 5}));
  EXPECT_EQ(image_channels(t, Layout::kCHW), 2);
}

TEST(ImageCheck, CodesAndMessagesInCheckOrder) {
  const std::initializer_list<DType> u8_f32 = {DType::kUInt8, DType::kFloat32};
  // Rank first (even before the device), then the device, the dtype, the channel count.
  Error e = error_of([] { check_image(Tensor(), Layout::kCHW, "op"); });
  EXPECT_EQ(e.code(), ErrorCode::kInvalidInput);
  EXPECT_EQ(e.message(), "expected a 3-D image (C x H x W or H x W x C), got an undefined tensor");
  e = error_of([&] { check_image(on_gpu({4, 4}, DType::kInt16), Layout::kCHW, "op", u8_f32); });
  EXPECT_EQ(e.code(), ErrorCode::kInvalidInput);
  EXPECT_EQ(e.input(), "op");
  EXPECT_EQ(e.message(), "expected a 3-D image (C x H x W or H x W x C), got a 2-D tensor");
  e = error_of([&] { check_image(on_gpu({3, 4, 4}, DType::kInt16, 1), Layout::kCHW, "op", u8_f32); });
  EXPECT_EQ(e.code(), ErrorCode::kUnsupported);
  EXPECT_EQ(e.message(), "expected an image on the CPU, got one on CUDA device 1");
  e = error_of([&] { check_image(Tensor::zeros({5, 4, 4}, DType::kInt16), Layout::kCHW, "op", u8_f32, {1, 3}); });
  EXPECT_EQ(e.code(), ErrorCode::kUnsupported);
  EXPECT_EQ(e.message(), "expected a uint8 or float32 image, got int16");
  e = error_of([&] { check_image(Tensor::zeros({5, 4, 4}, DType::kUInt8), Layout::kCHW, "op", u8_f32, {1, 3}); });
  EXPECT_EQ(e.code(), ErrorCode::kInvalidInput);
  EXPECT_EQ(e.message(), "expected 1 or 3 channels, got 5");
  e = error_of([&] {
    check_image(Tensor::zeros({4, 4, 0}, DType::kFloat32), Layout::kHWC, "op", {}, Channels::at_least(1));
  });
  EXPECT_EQ(e.message(), "expected at least 1 channels, got 0");
  EXPECT_EQ(std::string(e.what()), "op: expected at least 1 channels, got 0");
}

TEST(ImageCheck, ChannelSets) {
  const Channels any;
  EXPECT_TRUE(any.accepts(0));
  EXPECT_TRUE(any.accepts(1000));
  const Channels some{1, 2, 3, 4};
  EXPECT_FALSE(some.accepts(0));
  EXPECT_TRUE(some.accepts(4));
  EXPECT_FALSE(some.accepts(5));
  EXPECT_FALSE(some.accepts(64));
  EXPECT_EQ(some.describe(), "1, 2, 3 or 4");
  EXPECT_EQ(Channels({3}).describe(), "3");
  EXPECT_FALSE(Channels::at_least(1).accepts(0));
  EXPECT_TRUE(Channels::at_least(1).accepts(7));
}

// Every family's ops: a 2-D tensor is invalid input, a CUDA image and an int16 one are unsupported,
// and each error names the op.
TEST(ImageCheck, EveryFamilyReportsABadImageAlike) {
  Rng rng;
  struct Op {
    std::string name;
    std::function<void(const Tensor&)> run;
    bool any_dtype = false;
  };
  auto sample = [](const Tensor& t) { return Sample{t, Layout::kCHW, {}, {}, {}}; };
  const std::vector<Op> ops = {
      {"resize",
       [](const Tensor& t) {
         resize(t, {2, 2});
       }},
      {"normalize", [](const Tensor& t) { normalize(t, {0.5f}, {0.5f}); }},
      {"to_dtype", [](const Tensor& t) { to_dtype(t, DType::kFloat32); }},
      {"rgb_to_grayscale", [](const Tensor& t) { rgb_to_grayscale(t); }},
      {"adjust_hue", [](const Tensor& t) { adjust_hue(t, 0.1); }},
      {"gaussian_blur",
       [](const Tensor& t) {
         gaussian_blur(t, {3, 3}, {1.0, 1.0});
       }},
      {"gaussian_noise", [&](const Tensor& t) { gaussian_noise(t, rng); }},
      {"horizontal_flip", [&](const Tensor& t) { horizontal_flip(sample(t)); }, true},
      {"crop", [&](const Tensor& t) { crop(sample(t), 0, 0, 2, 2); }, true},
      {"center_crop",
       [&](const Tensor& t) {
         center_crop(sample(t), {2, 2});
       },
       true},
      {"pad",
       [&](const Tensor& t) {
         pad(sample(t), {1, 1, 1, 1});
       },
       true},
      {"rotate", [&](const Tensor& t) { rotate(sample(t), 10.0); }},
      {"affine",
       [&](const Tensor& t) {
         affine(sample(t), {5, {}, 1.0, {}, {}});
       }},
  };
  for (const Op& op : ops) {
    Error e = error_of([&] { op.run(Tensor::zeros({4, 4}, DType::kUInt8)); });
    EXPECT_EQ(e.code(), ErrorCode::kInvalidInput) << op.name << ": " << e.what();
    EXPECT_EQ(e.input(), op.name) << e.what();
    e = error_of([&] { op.run(on_gpu({3, 4, 4})); });
    EXPECT_EQ(e.code(), ErrorCode::kUnsupported) << op.name << ": " << e.what();
    EXPECT_EQ(e.input(), op.name) << e.what();
    if (!op.any_dtype) {
      e = error_of([&] { op.run(Tensor::zeros({3, 4, 4}, DType::kInt16)); });
      EXPECT_EQ(e.code(), ErrorCode::kUnsupported) << op.name << ": " << e.what();
      EXPECT_EQ(e.input(), op.name) << e.what();
    }
  }
}

// Devices::kCpuOrCuda: a CUDA image needs a build with CUDA and a device this process can use; the
// CPU-only ops keep their message whatever the device.
TEST(ImageCheck, CudaImagesNeedCudaAndAUsableDevice) {
  const int unusable = accel::cuda_device_count();
  const Error e = error_of([&] {
    check_image(on_gpu({3, 4, 4}), Layout::kCHW, "op", {DType::kUInt8}, {}, Devices::kCpuOrCuda);
  });
  EXPECT_EQ(e.code(), ErrorCode::kUnsupported);
  EXPECT_EQ(e.input(), "op");
  // accel::check_cuda_device's words, naming the op.
  if (!accel::built_with_cuda()) {
    EXPECT_EQ(e.message(), fmt::format("device cuda:{} is not usable: loom was built without CUDA support", unusable));
  } else if (unusable == 0) {
    EXPECT_EQ(e.message(), "device cuda:0 is not usable: no CUDA device (no GPU, or no driver)");
  } else {
    EXPECT_EQ(e.message(), fmt::format("device cuda:{} does not exist ({} CUDA device{})", unusable, unusable,
                                       unusable == 1 ? "" : "s"));
  }
  // The rank comes first, then the device, then the dtype.
  EXPECT_EQ(error_of([&] {
              check_image(on_gpu({4, 4}), Layout::kCHW, "op", {DType::kUInt8}, {}, Devices::kCpuOrCuda);
            }).code(),
            ErrorCode::kInvalidInput);
  EXPECT_NE(
      error_of([&] {
        check_image(on_gpu({3, 4, 4}, DType::kInt16), Layout::kCHW, "op", {DType::kUInt8}, {}, Devices::kCpuOrCuda);
      })
          .message()
          .find("device cuda:"),
      std::string::npos);
  // A CPU image passes either policy.
  EXPECT_EQ(check_image(Tensor::zeros({3, 4, 5}, DType::kUInt8), Layout::kCHW, "op", {}, {}, Devices::kCpuOrCuda).width,
            5);
  EXPECT_EQ(error_of([&] { check_device(Device::cuda(unusable), Devices::kCpu, "op", "the output"); }).message(),
            fmt::format("expected the output on the CPU, got one on CUDA device {}", unusable));
}

// The ops with a CUDA twin (resize, normalize, gaussian_noise, the flips, crop, center_crop, pad) refuse
// an image on a CUDA device they cannot use (every device in a build without CUDA or on a machine
// without a GPU) with Error(kUnsupported) naming the op and the device, before reading an element or
// drawing from the Rng; an op without a twin refuses every CUDA image.
TEST(ImageCheck, CudaTwinsRefuseAnUnusableDevice) {
  const int unusable = accel::cuda_device_count();
  auto sample = [](const Tensor& t, Layout layout = Layout::kCHW) { return Sample{t, layout, {}, {}, {}}; };
  Rng rng(7);
  const Rng before = rng;
  const std::vector<std::pair<std::string, std::function<void(const Tensor&)>>> twins = {
      {"resize",
       [](const Tensor& t) {
         resize(t, {2, 2});
       }},
      {"resize",
       [&](const Tensor& t) {
         resize(sample(t), {2, 2});
       }},
      {"normalize", [](const Tensor& t) { normalize(t, {0.5f}, {0.5f}); }},
      {"normalize",
       [](const Tensor& t) {
         normalize_into(t, on_gpu({3, 4, 4}, DType::kFloat32), {0.5f}, {0.5f});
       }},
      {"gaussian_noise", [&](const Tensor& t) { gaussian_noise(t, rng); }},
      {"horizontal_flip", [&](const Tensor& t) { horizontal_flip(sample(t)); }},
      {"vertical_flip", [&](const Tensor& t) { vertical_flip(sample(t, Layout::kHWC)); }},
      {"crop", [&](const Tensor& t) { crop(sample(t), 0, 0, 2, 2); }},
      {"center_crop",
       [&](const Tensor& t) {
         center_crop(sample(t), {6, 6});
       }},
      {"pad",
       [&](const Tensor& t) {
         pad(sample(t), {1, 1, 1, 1}, PadMode::kReflect);
       }},
  };
  for (const auto& [name, run] : twins) {
    const Error e = error_of([&] { run(on_gpu({3, 4, 4})); });
    EXPECT_EQ(e.code(), ErrorCode::kUnsupported) << name << ": " << e.what();
    EXPECT_EQ(e.input(), name) << e.what();
    EXPECT_NE(e.message().find(fmt::format("cuda:{}", unusable)), std::string::npos) << e.what();
  }
  EXPECT_EQ(rng.next(), Rng(before).next());  // no draw was made
  for (const auto& [name, run] : std::vector<std::pair<std::string, std::function<void(const Tensor&)>>>{
           {"to_dtype", [](const Tensor& t) { to_dtype(t, DType::kFloat32); }},
           {"rotate", [&](const Tensor& t) { rotate(sample(t), 180.0); }},
           {"adjust_brightness", [](const Tensor& t) { adjust_brightness(t, 0.5); }}}) {
    const Error e = error_of([&] { run(on_gpu({3, 4, 4}, DType::kUInt8, 0)); });
    EXPECT_EQ(e.code(), ErrorCode::kUnsupported) << name << ": " << e.what();
    EXPECT_EQ(e.message(), "expected an image on the CPU, got one on CUDA device 0") << name;
  }
}

// The geometric transform objects that size the image themselves name themselves too.
TEST(ImageCheck, TransformObjectsNameThemselves) {
  RandomAffine::Params affine;
  affine.degrees = {-10, 10};
  const std::vector<std::pair<std::string, TransformPtr>> transforms = {
      {"Resize", std::make_shared<Resize>(Size{2, 0})},
      {"RandomResizedCrop", std::make_shared<RandomResizedCrop>(Size{2, 2})},
      {"RandomCrop", std::make_shared<RandomCrop>(Size{2, 2})},
      {"RandomAffine", std::make_shared<RandomAffine>(affine)},
      {"RandomPerspective", std::make_shared<RandomPerspective>(0.5, 1.0)},
  };
  for (const auto& [name, t] : transforms) {
    Rng rng;
    Sample s{Tensor::zeros({4, 4}, DType::kUInt8), Layout::kCHW, {}, {}, {}};
    const Error e = error_of([&] { t->apply(s, rng); });
    EXPECT_EQ(e.code(), ErrorCode::kInvalidInput) << name << ": " << e.what();
    EXPECT_EQ(e.input(), name) << e.what();
  }
}

TEST(ImageCheck, ChannelListsHoldCountsUpTo63) {
  EXPECT_TRUE(Channels({63}).accepts(63));
  EXPECT_EQ(error_of([] { Channels({64}); }).code(), ErrorCode::kInternal);
  EXPECT_EQ(error_of([] { Channels({-1}); }).code(), ErrorCode::kInternal);
}

}  // namespace
}  // namespace loom::transforms
