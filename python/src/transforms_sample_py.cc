// loom.transforms.v2's samples: the names of its enums, NativeSample (an image or batch with its
// boxes, keypoints and labels) crossing from and to Python, and the batch rule of run_on_sample.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>

#include <algorithm>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "loom/codec/error.h"
#include "tensor_py.h"
#include "transforms_py.h"

namespace loom::python {

using transforms::BoundingBoxes;
using transforms::Clamping;
using transforms::KeyPoints;
using transforms::Rng;
using transforms::Sample;

namespace {

[[noreturn]] void unknown(const char* what, const std::string& name, const char* choices) {
  throw nb::value_error((std::string(what) + " must be one of " + choices + ", not '" + name + "'").c_str());
}

// A new [N, ...] tensor holding `images` (one shape and dtype) one after the other.
Tensor stack(const std::vector<Tensor>& images) {
  const Tensor& first = images.front();
  std::vector<int64_t> shape{static_cast<int64_t>(images.size())};
  shape.insert(shape.end(), first.shape().begin(), first.shape().end());
  for (const Tensor& image : images) {
    if (image.dtype() != first.dtype() ||
        !std::equal(image.shape().begin(), image.shape().end(), first.shape().begin(), first.shape().end())) {
      throw Error(ErrorCode::kInvalidInput, "transforms.v2",
                  "the images of a batch came out in different shapes or dtypes");
    }
  }
  Tensor out = Tensor::empty(shape, first.dtype());
  for (size_t i = 0; i < images.size(); ++i) out.select(0, static_cast<int64_t>(i)).copy_from(images[i]);
  return out;
}

int64_t batch_size(const Tensor& batch) {
  if (batch.size(0) == 0) throw Error(ErrorCode::kInvalidInput, "transforms.v2", "the batch holds no image");
  return batch.size(0);
}

Size canvas_from_python(nb::handle canvas) {
  const auto [height, width] = nb::cast<std::tuple<int64_t, int64_t>>(canvas);
  return Size{height, width};
}

nb::object canvas_to_python(Size canvas) {
  return nb::make_tuple(canvas.height, canvas.width);
}

// (data, format name, (height, width), clamping name or None) -> BoundingBoxes.
BoundingBoxes boxes_from_python(nb::handle boxes) {
  const nb::tuple t = nb::cast<nb::tuple>(boxes);
  if (t.size() != 4) throw nb::value_error("boxes: expected (data, format, canvas_size, clamping_mode)");
  BoundingBoxes out;
  out.data = from_python(t[0], "bounding boxes");
  out.format = transforms::box_format_from_string(nb::cast<std::string>(t[1]));
  out.canvas = canvas_from_python(t[2]);
  out.clamping = clamping_from_name(t[3]);
  return out;
}

// (data, (height, width)) -> KeyPoints.
KeyPoints keypoints_from_python(nb::handle points) {
  const nb::tuple t = nb::cast<nb::tuple>(points);
  if (t.size() != 2) throw nb::value_error("keypoints: expected (data, canvas_size)");
  return KeyPoints{from_python(t[0], "keypoints"), canvas_from_python(t[1])};
}

void init_sample(NativeSample* self, nb::handle image, const std::string& layout, nb::handle boxes,
                 nb::handle keypoints, nb::handle labels) {
  NativeSample sample;
  if (!image.is_none()) sample.sample.image = from_python(image, "image");
  sample.sample.layout = layout_named(layout);
  if (!boxes.is_none()) sample.sample.boxes = boxes_from_python(boxes);
  if (!keypoints.is_none()) sample.sample.keypoints = keypoints_from_python(keypoints);
  if (!labels.is_none()) sample.sample.labels = from_python(labels, "labels");
  sample.labels_in = sample.sample.labels;
  new (self) NativeSample(std::move(sample));
}

}  // namespace

DType dtype_from_name(const std::string& name) {
  if (name == "uint8") return DType::kUInt8;
  if (name == "uint16") return DType::kUInt16;
  if (name == "float32") return DType::kFloat32;
  if (name == "float64") return DType::kFloat64;
  unknown("dtype", name, "uint8, uint16, float32, float64");
}

transforms::Interpolation interpolation_from_name(const std::string& name) {
  using transforms::Interpolation;
  if (name == "nearest") return Interpolation::kNearest;
  if (name == "nearest-exact") return Interpolation::kNearestExact;
  if (name == "bilinear") return Interpolation::kBilinear;
  if (name == "bicubic") return Interpolation::kBicubic;
  if (name == "box") return Interpolation::kBox;
  unknown("interpolation", name, "'nearest', 'nearest-exact', 'bilinear', 'bicubic', 'box'");
}

transforms::ResizeOptions resize_options(const std::string& interpolation, bool antialias, bool pillow_exact,
                                         Layout layout) {
  transforms::ResizeOptions options;
  options.interpolation = interpolation_from_name(interpolation);
  options.antialias = antialias;
  options.layout = layout;
  options.pillow_exact = pillow_exact;
  return options;
}

transforms::PadMode pad_mode_from_name(const std::string& name) {
  using transforms::PadMode;
  if (name == "constant") return PadMode::kConstant;
  if (name == "edge") return PadMode::kEdge;
  if (name == "reflect") return PadMode::kReflect;
  if (name == "symmetric") return PadMode::kSymmetric;
  unknown("padding_mode", name, "'constant', 'edge', 'reflect', 'symmetric'");
}

Clamping clamping_from_name(nb::handle name) {
  if (name.is_none()) return Clamping::kNone;
  const std::string s = nb::cast<std::string>(name);
  if (s == "none") return Clamping::kNone;
  if (s == "soft") return Clamping::kSoft;
  if (s == "hard") return Clamping::kHard;
  unknown("clamping_mode", s, "None, 'soft', 'hard'");
}

const char* clamping_name(Clamping clamping) {
  switch (clamping) {
    case Clamping::kNone: return nullptr;
    case Clamping::kSoft: return "soft";
    case Clamping::kHard: return "hard";
  }
  return nullptr;
}

NativeSample run_on_sample(const NativeSample& in, Rng& rng, const std::function<void(Sample&, Rng&)>& op) {
  Sample sample = in.sample;
  const bool stand_in = !sample.image.defined();
  if (stand_in) {
    if (!sample.boxes && !sample.keypoints)
      throw Error(ErrorCode::kInvalidInput, "transforms.v2", "nothing to transform: no image, boxes or keypoints");
    const Size canvas = sample.boxes ? sample.boxes->canvas : sample.keypoints->canvas;
    sample.image = Tensor::zeros({3, canvas.height, canvas.width}, DType::kUInt8);
    sample.layout = Layout::kCHW;
  }
  if (sample.image.ndim() != 4) {
    op(sample, rng);
  } else {
    const Tensor batch = sample.image;
    const int64_t n = batch_size(batch);
    const Rng start = rng;
    std::vector<Tensor> images;
    images.reserve(static_cast<size_t>(n));
    sample.image = batch.select(0, 0);
    op(sample, rng);
    images.push_back(sample.image);
    for (int64_t i = 1; i < n; ++i) {
      Sample other;
      other.image = batch.select(0, i);
      other.layout = in.sample.layout;
      Rng same = start;
      op(other, same);
      images.push_back(other.image);
    }
    sample.image = stack(images);
  }
  if (stand_in) sample.image = Tensor();
  return NativeSample{std::move(sample), in.labels_in};
}

Tensor run_on_images(const Tensor& image, const std::function<Tensor(const Tensor&)>& op) {
  if (image.ndim() != 4) return op(image);
  const int64_t n = batch_size(image);
  std::vector<Tensor> images;
  images.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) images.push_back(op(image.select(0, i)));
  return stack(images);
}

void bind_transforms_sample(nb::module_& m) {
  using namespace nb::literals;
  nb::class_<NativeSample>(m, "Sample",
                           "An image (C x H x W, H x W x C, or a batch of them) with optional boxes, keypoints "
                           "and labels: what loom.transforms.v2 hands to the native transforms.")
      .def("__init__", &init_sample, "image"_a.none() = nb::none(), "layout"_a = "CHW", "boxes"_a.none() = nb::none(),
           "keypoints"_a.none() = nb::none(), "labels"_a.none() = nb::none())
      .def_prop_ro("image",
                   [](const NativeSample& s) -> nb::object {
                     if (!s.sample.image.defined()) return nb::none();
                     return to_python(s.sample.image);
                   })
      .def_prop_ro("layout", [](const NativeSample& s) { return s.sample.layout == Layout::kCHW ? "CHW" : "HWC"; })
      .def_prop_ro("boxes",
                   [](const NativeSample& s) -> nb::object {
                     if (!s.sample.boxes) return nb::none();
                     const BoundingBoxes& b = *s.sample.boxes;
                     const char* clamping = clamping_name(b.clamping);
                     return nb::make_tuple(to_python(b.data), std::string(transforms::to_string(b.format)),
                                           canvas_to_python(b.canvas),
                                           clamping ? nb::object(nb::str(clamping)) : nb::none());
                   })
      .def_prop_ro("keypoints",
                   [](const NativeSample& s) -> nb::object {
                     if (!s.sample.keypoints) return nb::none();
                     return nb::make_tuple(to_python(s.sample.keypoints->data),
                                           canvas_to_python(s.sample.keypoints->canvas));
                   })
      .def_prop_ro(
          "labels",
          [](const NativeSample& s) -> nb::object {
            const Tensor& now = s.sample.labels;
            const Tensor& given = s.labels_in;
            const bool same = now.defined() == given.defined() &&
                              (!now.defined() || (now.data() == given.data() && now.numel() == given.numel()));
            if (same) return nb::none();
            return to_python(now);
          },
          "The labels when an operation changed them (sanitize), else None.");
}

}  // namespace loom::python
