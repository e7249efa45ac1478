// loom.transforms.v2's native half: Generator (loom::transforms::Rng), the default generator, the
// transform objects of transform.h, geometry_transforms.h and color_transforms.h, and apply(), which
// runs one of them on a Sample without the GIL. python/loom/transforms/v2/ turns torchvision's
// arguments into the plain ones taken here.
#include <nanobind/stl/array.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bindings.h"
#include "loom/loader/order.h"
#include "loom/transforms/color_transforms.h"
#include "loom/transforms/geometry_transforms.h"
#include "loom/transforms/transform.h"
#include "transforms_py.h"

namespace loom::python {

namespace t = loom::transforms;

namespace {

using namespace nb::literals;
using Pair = std::pair<double, double>;
using OptionalPair = std::optional<Pair>;

t::Rng& default_rng() {
  static t::Rng rng(0, 0);
  return rng;
}

t::Range range(Pair p) {
  return t::Range{p.first, p.second};
}

std::optional<t::Point> point(const OptionalPair& p) {
  if (!p) return std::nullopt;
  return t::Point{p->first, p->second};
}

std::vector<t::TransformPtr> natives(const std::vector<NativeTransform>& list) {
  std::vector<t::TransformPtr> out;
  out.reserve(list.size());
  for (const NativeTransform& n : list) out.push_back(n.transform);
  return out;
}

template <typename T, typename... Args>
NativeTransform make(Args&&... args) {
  return NativeTransform{std::make_shared<const T>(std::forward<Args>(args)...)};
}

t::WarpOptions warp_options(const std::string& interpolation, const t::Fill& fill) {
  return t::WarpOptions{interpolation_from_name(interpolation), fill};
}

std::array<double, 2> array2(Pair p) {
  return {p.first, p.second};
}

// Runs `transform` on `sample`, drawing from `generator` (its state is copied in and written back, so
// the call does not hold the Generator while the GIL is released) or from a fork of the default one.
NativeSample apply(const NativeTransform& transform, const NativeSample& sample, nb::handle generator) {
  Generator* explicit_generator = generator_from_python(generator);
  t::Rng rng = explicit_generator ? explicit_generator->rng : fork_default_generator();
  NativeSample out;
  {
    nb::gil_scoped_release unlocked;
    out = run_on_sample(sample, rng, [&](t::Sample& s, t::Rng& r) { transform.transform->apply(s, r); });
  }
  if (explicit_generator) explicit_generator->rng = rng;
  return out;
}

void bind_generator(nb::module_& m) {
  nb::class_<Generator>(
      m, "Generator",
      "loom's random generator (xoshiro256** seeded through splitmix64; transforms/random.h). Generator(seed, "
      "stream) for different streams are independent sequences.")
      .def(nb::init<>())
      .def(
          "__init__",
          [](Generator* self, uint64_t seed, uint64_t stream) { new (self) Generator{t::Rng(seed, stream)}; }, "seed"_a,
          "stream"_a = 0)
      .def(
          "manual_seed",
          [](Generator& self, uint64_t seed, uint64_t stream) -> Generator& {
            self.rng = t::Rng(seed, stream);
            return self;
          },
          "seed"_a, "stream"_a = 0, nb::rv_policy::reference,
          "Restarts the generator at Rng(seed, stream); returns it.")
      .def_static(
          "for_sample",
          [](uint64_t seed, int64_t epoch, int64_t sample, std::optional<uint64_t> field) {
            t::Rng rng(loader::sample_seed(seed, epoch), static_cast<uint64_t>(sample));
            if (!field) return Generator{rng};
            // The loader forks one generator per field, in field order, from the sample's generator.
            for (uint64_t earlier = 0; earlier < *field; ++earlier) rng.fork(earlier);
            return Generator{rng.fork(*field)};
          },
          "seed"_a, "epoch"_a, "sample"_a, "field"_a = nb::none(),
          "The generator loom.loader gives the sample at global position `sample` of `epoch`,\n"
          "Rng(sample_seed(seed, epoch), sample); with `field` (the field's index), the one that field's\n"
          "decode and transforms draw from (the loader forks fields 0, 1, ... from it in order).")
      .def(
          "next", [](Generator& g) { return g.rng.next(); }, "64 random bits.")
      .def(
          "uniform", [](Generator& g, double lo, double hi) { return g.rng.uniform(lo, hi); }, "lo"_a = 0.0,
          "hi"_a = 1.0, "Uniform in [lo, hi).")
      .def(
          "integer", [](Generator& g, int64_t lo, int64_t hi) { return g.rng.integer(lo, hi); }, "lo"_a, "hi"_a,
          "Uniform integer in [lo, hi) (torch.randint); lo when hi <= lo.")
      .def(
          "bernoulli", [](Generator& g, double p) { return g.rng.bernoulli(p); }, "p"_a, "True with probability p.")
      .def(
          "normal", [](Generator& g) { return g.rng.normal(); }, "A standard normal value.")
      .def(
          "permutation", [](Generator& g, int n) { return t::random_permutation(n, g.rng); }, "n"_a,
          "A permutation of 0..n-1 (Fisher-Yates, the draws RandomOrder and ColorJitter make).")
      .def(
          "fork", [](Generator& g, uint64_t stream) { return Generator{g.rng.fork(stream)}; }, "stream"_a,
          "An independent generator derived from this one's next output and `stream` (advances this one by one step).")
      .def(
          "clone", [](const Generator& g) { return g; }, "A copy in the same state.")
      .def("__copy__", [](const Generator& g) { return g; })
      .def(
          "__deepcopy__", [](const Generator& g, nb::handle) { return g; }, "memo"_a);

  m.def(
      "manual_seed", [](uint64_t seed) { default_rng() = t::Rng(seed, 0); }, "seed"_a,
      "Seeds the default generator (Generator(seed, 0)); calls without generator= draw from forks of it.");
  m.def(
      "default_generator", []() { return Generator{default_rng()}; },
      "A copy of the default generator in its current state.");
}

void bind_objects(nb::module_& m) {
  nb::class_<NativeTransform>(m, "Transform", "A native loom transform object (immutable; shared between threads).")
      .def("describe", [](const NativeTransform& n) { return n.transform->describe(); })
      .def("__repr__", [](const NativeTransform& n) { return n.transform->describe(); });

  m.def("apply", &apply, "transform"_a, "sample"_a, "generator"_a.none() = nb::none(),
        "Runs the transform on the sample without the GIL; returns a new Sample.");

  m.def("Compose", [](const std::vector<NativeTransform>& list) { return make<t::Compose>(natives(list)); });
  m.def("RandomApply",
        [](const std::vector<NativeTransform>& list, double p) { return make<t::RandomApply>(natives(list), p); });
  m.def("RandomChoice", [](const std::vector<NativeTransform>& list, std::vector<double> p) {
    return make<t::RandomChoice>(natives(list), std::move(p));
  });
  m.def("RandomOrder", [](const std::vector<NativeTransform>& list) { return make<t::RandomOrder>(natives(list)); });

  m.def("Resize",
        [](int64_t height, int64_t width, const std::string& interpolation, bool antialias, bool pillow_exact) {
          return make<t::Resize>(Size{height, width}, resize_options(interpolation, antialias, pillow_exact));
        });
  m.def("CenterCrop", [](int64_t height, int64_t width) { return make<t::CenterCrop>(Size{height, width}); });
  m.def("Pad", [](std::array<int64_t, 4> ltrb, const std::string& mode, t::Fill fill) {
    return make<t::Pad>(t::Padding{ltrb[0], ltrb[1], ltrb[2], ltrb[3]}, pad_mode_from_name(mode), std::move(fill));
  });
  m.def("RandomHorizontalFlip", [](double p) { return make<t::RandomHorizontalFlip>(p); });
  m.def("RandomVerticalFlip", [](double p) { return make<t::RandomVerticalFlip>(p); });
  m.def("RandomResizedCrop",
        [](int64_t height, int64_t width, Pair scale, Pair ratio, const std::string& interpolation, bool antialias) {
          return make<t::RandomResizedCrop>(Size{height, width}, range(scale), range(ratio),
                                            resize_options(interpolation, antialias));
        });
  m.def(
      "random_resized_crop_params",
      [](Pair scale, Pair ratio, int64_t height, int64_t width, nb::handle generator) {
        const t::RandomResizedCrop crop(Size{1, 1}, range(scale), range(ratio));
        Generator* g = generator_from_python(generator);
        t::Rng rng = g ? g->rng : fork_default_generator();
        const auto box = crop.choose_crop(Size{height, width}, rng);
        if (g) g->rng = rng;
        return box;
      },
      "scale"_a, "ratio"_a, "height"_a, "width"_a, "generator"_a.none() = nb::none(),
      "RandomResizedCrop's (top, left, height, width) for an image of height x width.");
  m.def("RandomCrop", [](int64_t height, int64_t width, std::optional<std::array<int64_t, 4>> padding,
                         bool pad_if_needed, const std::string& mode, t::Fill fill) {
    std::optional<t::Padding> pad;
    if (padding) pad = t::Padding{(*padding)[0], (*padding)[1], (*padding)[2], (*padding)[3]};
    return make<t::RandomCrop>(Size{height, width}, pad, pad_if_needed, pad_mode_from_name(mode), std::move(fill));
  });
  m.def("RandomRotation",
        [](Pair degrees, const std::string& interpolation, bool expand, OptionalPair center, t::Fill fill) {
          t::RotateOptions options;
          options.interpolation = interpolation_from_name(interpolation);
          options.expand = expand;
          options.center = point(center);
          options.fill = std::move(fill);
          return make<t::RandomRotation>(range(degrees), options);
        });
  m.def("RandomAffine", [](Pair degrees, OptionalPair translate, OptionalPair scale, OptionalPair shear_x,
                           OptionalPair shear_y, OptionalPair center, const std::string& interpolation, t::Fill fill) {
    t::RandomAffine::Params params;
    params.degrees = range(degrees);
    params.translate = point(translate);
    if (scale) params.scale = range(*scale);
    if (shear_x) params.shear_x = range(*shear_x);
    if (shear_y) params.shear_y = range(*shear_y);
    params.center = point(center);
    return make<t::RandomAffine>(params, warp_options(interpolation, fill));
  });
  m.def("RandomPerspective", [](double distortion_scale, double p, const std::string& interpolation, t::Fill fill) {
    return make<t::RandomPerspective>(distortion_scale, p, warp_options(interpolation, fill));
  });
  m.def("SanitizeBoundingBoxes",
        [](double min_size, double min_area) { return make<t::SanitizeBoundingBoxes>(min_size, min_area); });
  m.def("ClampBoundingBoxes", []() { return make<t::ClampBoundingBoxes>(); });

  m.def("ToDtype",
        [](const std::string& dtype, bool scale) { return make<t::ToDtype>(dtype_from_name(dtype), scale); });
  m.def("Normalize", [](std::vector<float> mean, std::vector<float> std, std::optional<std::string> output_layout) {
    std::optional<Layout> layout;
    if (output_layout) layout = layout_named(*output_layout);
    return make<t::Normalize>(std::move(mean), std::move(std), layout);
  });
  m.def("Grayscale", [](int num_output_channels) { return make<t::Grayscale>(num_output_channels); });
  m.def("RandomGrayscale", [](double p) { return make<t::RandomGrayscale>(p); });
  m.def("ColorJitter", [](Pair brightness, Pair contrast, Pair saturation, Pair hue) {
    t::ColorJitterRanges ranges;
    ranges.brightness = array2(brightness);
    ranges.contrast = array2(contrast);
    ranges.saturation = array2(saturation);
    ranges.hue = array2(hue);
    return make<t::ColorJitter>(ranges);
  });
  m.def("GaussianBlur",
        [](std::array<int, 2> kernel_size, Pair sigma) { return make<t::GaussianBlur>(kernel_size, array2(sigma)); });
  m.def("GaussianNoise",
        [](double mean, double sigma, bool clip) { return make<t::GaussianNoise>(mean, sigma, clip); });
}

}  // namespace

Generator* generator_from_python(nb::handle generator) {
  if (generator.is_none()) return nullptr;
  if (!nb::isinstance<Generator>(generator))
    throw nb::type_error("generator must be a loom.transforms.v2.Generator (loom does not draw from torch's)");
  return nb::inst_ptr<Generator>(generator);
}

t::Rng fork_default_generator() {
  return default_rng().fork(0);
}

void bind_transforms(nb::module_& m) {
  bind_generator(m);
  bind_transforms_sample(m);
  bind_objects(m);
  bind_transforms_functional(m);
}

}  // namespace loom::python
