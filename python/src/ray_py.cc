// loom._loom.ray: the native step of loom.ray's Ray-fed loader: a batch of encoded images (the bytes
// column of a Ray Dataset batch) decoded, resized to one size and stacked into one uint8 tensor, in
// parallel with the GIL released.
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <string>
#include <tuple>
#include <vector>

#include "bindings.h"
#include "loom/codec/error.h"
#include "loom/transforms/resize.h"
#include "loom/transforms/sample.h"
#include "loom/vision/image.h"
#include "names_py.h"
#include "source_py.h"
#include "tensor_py.h"

namespace loom::python {
namespace {

using namespace nb::literals;

// One channel count per batch: RGB, GRAY or RGBA.
vision::ImageReadMode batch_mode(const std::string& name) {
  const vision::ImageReadMode mode = read_mode_named(nb::str(name.c_str()));
  if (mode == vision::ImageReadMode::kUnchanged || mode == vision::ImageReadMode::kGrayAlpha) {
    throw nb::value_error(
        ("mode must be 'RGB', 'GRAY' or 'RGBA' (one channel count per batch), not '" + name + "'").c_str());
  }
  return mode;
}

int channels_of(vision::ImageReadMode mode) {
  return mode == vision::ImageReadMode::kGray ? 1 : mode == vision::ImageReadMode::kRGB ? 3 : 4;
}

// Decodes, resizes to `size` and stacks `images`: [N, C, H, W] (layout "CHW") or [N, H, W, C], uint8.
// JPEGs decode at the smallest DCT scale that still covers `size`, then every image is resized to
// exactly `size` (aspect not kept: torchvision Resize((H, W))) with antialiased bilinear filtering;
// an image already of that size is copied as decoded. Raises the first image's loom.Error, naming the
// image's position.
nb::object decode_batch(nb::sequence images, std::tuple<int64_t, int64_t> size, const std::string& mode,
                        const std::string& layout, int threads) {
  const auto [height, width] = size;
  if (height < 1 || width < 1) throw nb::value_error("size must be (height, width), both positive");
  vision::DecodeOptions options;
  options.mode = batch_mode(mode);
  options.layout = layout_named(layout);
  options.to_uint8 = true;
  options.min_width = static_cast<int>(width);
  options.min_height = static_cast<int>(height);
  const int64_t channels = channels_of(options.mode);
  std::vector<EncodedInput> inputs;
  for (nb::handle image : images) inputs.push_back(encoded_from_python(image, "image"));
  const int64_t n = static_cast<int64_t>(inputs.size());
  Tensor batch = options.layout == Layout::kCHW ? Tensor::empty({n, channels, height, width}, DType::kUInt8)
                                                : Tensor::empty({n, height, width, channels}, DType::kUInt8);
  std::vector<std::exception_ptr> errors(inputs.size());
  {
    nb::gil_scoped_release unlocked;
    const size_t per_image = static_cast<size_t>(channels * height * width);
    auto one = [&](size_t i) {
      try {
        Tensor image = vision::decode_image(inputs[i].source, options);
        transforms::ResizeOptions ro;
        ro.layout = options.layout;
        const Size got = transforms::image_size(image, options.layout);
        if (got.height != height || got.width != width) image = transforms::resize(image, {height, width}, ro);
        image = image.contiguous();
        std::memcpy(static_cast<uint8_t*>(batch.data()) + i * per_image, image.data(), per_image);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    };
    tbb::task_arena arena(std::max(threads, 1));
    arena.execute([&] {
      tbb::parallel_for(tbb::blocked_range<size_t>(0, inputs.size()), [&](const tbb::blocked_range<size_t>& r) {
        for (size_t i = r.begin(); i != r.end(); ++i) one(i);
      });
    });
  }
  for (size_t i = 0; i < errors.size(); ++i) {
    if (!errors[i]) continue;
    try {
      std::rethrow_exception(errors[i]);
    } catch (const Error& e) {
      throw Error(e.code(), "image " + std::to_string(i) + " of the batch", e.message());
    }
  }
  return to_python(std::move(batch));
}

}  // namespace

void bind_ray(nb::module_& m) {
  m.def("decode_batch", &decode_batch, "images"_a, "size"_a, "mode"_a = "RGB", "layout"_a = "CHW", "threads"_a = 1,
        "Decodes encoded images (bytes, 1-D uint8 arrays), resizes each to size=(height, width) and stacks "
        "them into one uint8 tensor, [N, C, H, W] or [N, H, W, C].");
}

}  // namespace loom::python
