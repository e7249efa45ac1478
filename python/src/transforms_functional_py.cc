// loom.transforms.v2.functional's native half: the geometric ops of geometry.h on a NativeSample, the
// color, dtype and noise ops of color.h and noise.h on an image or a batch, and the box and keypoint
// ops of annotations.h. Every op converts its arguments with the GIL, runs without it, and converts
// the result back with it.
#include <nanobind/stl/array.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <array>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "loom/transforms/annotations.h"
#include "loom/transforms/color.h"
#include "loom/transforms/geometry.h"
#include "loom/transforms/noise.h"
#include "loom/transforms/resize.h"
#include "tensor_py.h"
#include "transforms_py.h"

namespace loom::python {

namespace t = loom::transforms;

namespace {

using namespace nb::literals;
using Pair = std::pair<double, double>;
using Corners = std::array<Pair, 4>;

// A geometric op (no random draws) on every image of `in`, without the GIL.
NativeSample geometric(const NativeSample& in, const std::function<t::Sample(const t::Sample&)>& op) {
  t::Rng unused;
  nb::gil_scoped_release unlocked;
  return run_on_sample(in, unused, [&](t::Sample& s, t::Rng&) { s = op(s); });
}

// An image op on `image` (3-D, or each image of a 4-D batch), without the GIL.
nb::object on_images(nb::handle image, const char* name, const std::function<Tensor(const Tensor&)>& op) {
  const Tensor input = from_python(image, name);
  Tensor out;
  {
    nb::gil_scoped_release unlocked;
    out = run_on_images(input, op);
  }
  return to_python(std::move(out));
}

std::optional<t::Point> point(const std::optional<Pair>& p) {
  if (!p) return std::nullopt;
  return t::Point{p->first, p->second};
}

std::array<t::Point, 4> corners(const Corners& c) {
  return {t::Point{c[0].first, c[0].second}, t::Point{c[1].first, c[1].second}, t::Point{c[2].first, c[2].second},
          t::Point{c[3].first, c[3].second}};
}

t::BoundingBoxes boxes_of(nb::handle data, const std::string& format, std::tuple<int64_t, int64_t> canvas,
                          t::Clamping clamping = t::Clamping::kSoft) {
  return t::BoundingBoxes{from_python(data, "bounding boxes"), t::box_format_from_string(format),
                          Size{std::get<0>(canvas), std::get<1>(canvas)}, clamping};
}

void bind_geometry(nb::module_& m) {
  m.def("horizontal_flip", [](const NativeSample& s) { return geometric(s, t::horizontal_flip); });
  m.def("vertical_flip", [](const NativeSample& s) { return geometric(s, t::vertical_flip); });
  m.def("crop", [](const NativeSample& s, int64_t top, int64_t left, int64_t height, int64_t width) {
    return geometric(s, [=](const t::Sample& x) { return t::crop(x, top, left, height, width); });
  });
  m.def("center_crop", [](const NativeSample& s, int64_t height, int64_t width) {
    return geometric(s, [=](const t::Sample& x) { return t::center_crop(x, Size{height, width}); });
  });
  m.def("pad", [](const NativeSample& s, std::array<int64_t, 4> ltrb, const std::string& mode, t::Fill fill) {
    const t::Padding padding{ltrb[0], ltrb[1], ltrb[2], ltrb[3]};
    const t::PadMode pad_mode = pad_mode_from_name(mode);
    return geometric(s, [&](const t::Sample& x) { return t::pad(x, padding, pad_mode, fill); });
  });
  m.def(
      "resize",
      [](const NativeSample& s, int64_t height, int64_t width, const std::string& interpolation, bool antialias,
         bool pillow_exact) {
        const t::ResizeOptions options = resize_options(interpolation, antialias, pillow_exact, s.sample.layout);
        return geometric(s, [&](const t::Sample& x) {
          const Size size = width == 0 ? t::size_for_shorter_side(t::image_size(x), height) : Size{height, width};
          return t::resize(x, size, options);
        });
      },
      "sample"_a, "height"_a, "width"_a, "interpolation"_a, "antialias"_a, "pillow_exact"_a,
      "width == 0: the shorter side becomes height (torchvision's Resize(int)).");
  m.def("resized_crop", [](const NativeSample& s, int64_t top, int64_t left, int64_t height, int64_t width,
                           int64_t out_height, int64_t out_width, const std::string& interpolation, bool antialias) {
    const t::ResizeOptions options = resize_options(interpolation, antialias, /*pillow_exact=*/false, s.sample.layout);
    return geometric(s, [&](const t::Sample& x) {
      return t::resized_crop(x, top, left, height, width, Size{out_height, out_width}, options);
    });
  });
  m.def("rotate", [](const NativeSample& s, double angle, const std::string& interpolation, bool expand,
                     std::optional<Pair> center, t::Fill fill) {
    t::RotateOptions options;
    options.interpolation = interpolation_from_name(interpolation);
    options.expand = expand;
    options.center = point(center);
    options.fill = std::move(fill);
    return geometric(s, [&](const t::Sample& x) { return t::rotate(x, angle, options); });
  });
  m.def("affine", [](const NativeSample& s, double angle, Pair translate, double scale, Pair shear,
                     const std::string& interpolation, t::Fill fill, std::optional<Pair> center) {
    const t::AffineParams params{
        angle, {translate.first, translate.second}, scale, {shear.first, shear.second}, point(center)};
    const t::WarpOptions options{interpolation_from_name(interpolation), std::move(fill)};
    return geometric(s, [&](const t::Sample& x) { return t::affine(x, params, options); });
  });
  m.def("perspective", [](const NativeSample& s, Corners startpoints, Corners endpoints,
                          const std::string& interpolation, t::Fill fill) {
    const auto from = corners(startpoints), to = corners(endpoints);
    const t::WarpOptions options{interpolation_from_name(interpolation), std::move(fill)};
    return geometric(s, [&](const t::Sample& x) { return t::perspective(x, from, to, options); });
  });
  m.def("sanitize", [](const NativeSample& s, double min_size, double min_area) {
    return geometric(s, [=](const t::Sample& x) { return t::sanitize(x, min_size, min_area); });
  });
  m.def("size_for_shorter_side", [](int64_t height, int64_t width, int64_t shorter) {
    const Size size = t::size_for_shorter_side(Size{height, width}, shorter);
    return std::make_tuple(size.height, size.width);
  });
}

void bind_color(nb::module_& m) {
  m.def("to_dtype", [](nb::handle image, const std::string& dtype, bool scale, const std::string& layout) {
    const DType to = dtype_from_name(dtype);
    const Layout l = layout_named(layout);
    return on_images(image, "to_dtype", [&](const Tensor& x) { return t::to_dtype(x, to, scale, l); });
  });
  m.def("normalize", [](nb::handle image, std::vector<float> mean, std::vector<float> std, const std::string& layout,
                        const std::string& output_layout) {
    const t::NormalizeOptions options{layout_named(layout), layout_named(output_layout)};
    return on_images(image, "normalize", [&](const Tensor& x) { return t::normalize(x, mean, std, options); });
  });
  m.def("rgb_to_grayscale", [](nb::handle image, int channels, const std::string& layout) {
    const Layout l = layout_named(layout);
    return on_images(image, "rgb_to_grayscale", [&](const Tensor& x) { return t::rgb_to_grayscale(x, channels, l); });
  });
  using Adjust = Tensor (*)(const Tensor&, double, Layout);
  const std::pair<const char*, Adjust> adjusts[] = {{"adjust_brightness", t::adjust_brightness},
                                                    {"adjust_contrast", t::adjust_contrast},
                                                    {"adjust_saturation", t::adjust_saturation},
                                                    {"adjust_hue", t::adjust_hue}};
  for (const auto& [name, fn] : adjusts) {
    m.def(name, [name, fn](nb::handle image, double factor, const std::string& layout) {
      const Layout l = layout_named(layout);
      return on_images(image, name, [&](const Tensor& x) { return fn(x, factor, l); });
    });
  }
  m.def("adjust_gamma", [](nb::handle image, double gamma, double gain, const std::string& layout) {
    const Layout l = layout_named(layout);
    return on_images(image, "adjust_gamma", [&](const Tensor& x) { return t::adjust_gamma(x, gamma, gain, l); });
  });
  m.def("gaussian_blur",
        [](nb::handle image, std::array<int, 2> kernel_size, std::array<double, 2> sigma, const std::string& layout) {
          const Layout l = layout_named(layout);
          return on_images(image, "gaussian_blur",
                           [&](const Tensor& x) { return t::gaussian_blur(x, kernel_size, sigma, l); });
        });
  m.def(
      "gaussian_noise",
      [](nb::handle image, double mean, double sigma, bool clip, nb::handle generator, const std::string& layout) {
        layout_named(layout);  // element-wise: any layout, checked for the name only
        Generator* g = generator_from_python(generator);
        t::Rng rng = g ? g->rng : fork_default_generator();
        // Each image of a batch draws its own key from the advancing generator: independent noise.
        nb::object out = on_images(image, "gaussian_noise",
                                   [&](const Tensor& x) { return t::gaussian_noise(x, rng, mean, sigma, clip); });
        if (g) g->rng = rng;
        return out;
      },
      "image"_a, "mean"_a, "sigma"_a, "clip"_a, "generator"_a.none(), "layout"_a);
}

void bind_annotations(nb::module_& m) {
  m.def("convert_bounding_box_format", [](nb::handle data, const std::string& from, const std::string& to) {
    const Tensor boxes = from_python(data, "bounding boxes");
    const t::BoxFormat a = t::box_format_from_string(from), b = t::box_format_from_string(to);
    Tensor out;
    {
      nb::gil_scoped_release unlocked;
      out = t::convert_box_format(boxes, a, b);
    }
    return to_python(std::move(out));
  });
  m.def("clamp_bounding_boxes",
        [](nb::handle data, const std::string& format, std::tuple<int64_t, int64_t> canvas, nb::handle clamping) {
          const t::BoundingBoxes boxes = boxes_of(data, format, canvas, clamping_from_name(clamping));
          Tensor out;
          {
            nb::gil_scoped_release unlocked;
            out = t::clamp_boxes(boxes).data;
          }
          return to_python(std::move(out));
        });
  m.def("clamp_keypoints", [](nb::handle data, std::tuple<int64_t, int64_t> canvas) {
    const t::KeyPoints points{from_python(data, "keypoints"), Size{std::get<0>(canvas), std::get<1>(canvas)}};
    Tensor out;
    {
      nb::gil_scoped_release unlocked;
      out = t::clamp_keypoints(points).data;
    }
    return to_python(std::move(out));
  });
  m.def("valid_box_indices", [](nb::handle data, const std::string& format, std::tuple<int64_t, int64_t> canvas,
                                double min_size, double min_area) {
    const t::BoundingBoxes boxes = boxes_of(data, format, canvas);
    nb::gil_scoped_release unlocked;
    return t::valid_box_indices(boxes, min_size, min_area);
  });
  m.def("valid_keypoint_indices", [](nb::handle data, std::tuple<int64_t, int64_t> canvas) {
    const t::KeyPoints points{from_python(data, "keypoints"), Size{std::get<0>(canvas), std::get<1>(canvas)}};
    nb::gil_scoped_release unlocked;
    return t::valid_keypoint_indices(points);
  });
  m.def("select_rows", [](nb::handle data, const std::vector<int64_t>& indices) {
    const Tensor tensor = from_python(data, "tensor");
    Tensor out;
    {
      nb::gil_scoped_release unlocked;
      out = t::select_rows(tensor, indices);
    }
    return to_python(std::move(out));
  });
}

}  // namespace

void bind_transforms_functional(nb::module_& m) {
  bind_geometry(m);
  bind_color(m);
  bind_annotations(m);
}

}  // namespace loom::python
