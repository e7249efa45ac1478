// Shared pieces of loom.transforms.v2's native half (transforms_py.cc: generators, transform objects
// and their application; transforms_functional_py.cc: the functional ops).
//
// A NativeSample is loom::transforms::Sample whose image may also be a batch ([N, C, H, W] or
// [N, H, W, C]); run_on_sample applies a per-image operation to it (see there for the batch rule).
// Thread safety: the conversions need the GIL; run_on_sample and run_on_images are called without it.
#pragma once

#include <nanobind/nanobind.h>

#include <cstdint>
#include <functional>
#include <string>

#include "loom/codec/layout.h"
#include "loom/codec/tensor.h"
#include "loom/transforms/annotations.h"
#include "loom/transforms/geometry.h"
#include "loom/transforms/random.h"
#include "loom/transforms/resize.h"
#include "loom/transforms/sample.h"
#include "loom/transforms/transform.h"
#include "names_py.h"

namespace loom::python {

namespace nb = nanobind;

// An image (3-D, or a 4-D batch, in `layout`) with the annotations of its first image. `image` may be
// undefined when only annotations are given: run_on_sample then uses a zero 1 x H x W uint8 image of
// their canvas and hands back no image. `labels_in` remembers the labels given, so that Python can
// tell whether an operation changed them (only sanitize does).
struct NativeSample {
  transforms::Sample sample;
  Tensor labels_in;
};

// A transform object as Python holds it (immutable, shared between Python objects and threads).
struct NativeTransform {
  transforms::TransformPtr transform;
};

// A Python-owned random generator (loom.transforms.v2.Generator).
struct Generator {
  transforms::Rng rng;
};

// The Generator in `generator`, or nullptr for None; TypeError for anything else (a torch.Generator
// included: loom never draws from torch's generator). Needs the GIL.
Generator* generator_from_python(nb::handle generator);

// The process-wide generator that calls without an explicit one draw from (manual_seed sets it):
// returns a fork of it, advancing it by one step. Needs the GIL (the GIL serializes the forks).
transforms::Rng fork_default_generator();

// Names as loom.transforms.v2 spells them; each throws ValueError for an unknown name.
DType dtype_from_name(const std::string& name);                              // "uint8", "uint16", "float32", "float64"
transforms::Interpolation interpolation_from_name(const std::string& name);  // "nearest", "nearest-exact", ...
// interpolation: as interpolation_from_name.
transforms::ResizeOptions resize_options(const std::string& interpolation, bool antialias, bool pillow_exact = false,
                                         Layout layout = Layout::kCHW);
transforms::PadMode pad_mode_from_name(const std::string& name);  // "constant", "edge", "reflect", "symmetric"
transforms::Clamping clamping_from_name(nb::handle name);         // None, "none", "soft", "hard"
const char* clamping_name(transforms::Clamping clamping);         // nullptr for kNone

// Applies `op` to every image of `in` without the GIL (call it with the GIL released). A 3-D image is
// one call. A batch calls `op` once per image, each time with a copy of `rng` as it was on entry, so
// every image gets the same random draws (torchvision.transforms.v2 draws its parameters once per
// call); the annotations travel with image 0. `rng` ends as image 0's call left it. The results must
// share one shape (the same parameters give one shape) and are stacked into a new batch.
NativeSample run_on_sample(const NativeSample& in, transforms::Rng& rng,
                           const std::function<void(transforms::Sample&, transforms::Rng&)>& op);

// Applies `op` (one 3-D image in `layout` -> one image) to `image` or to each image of a 4-D batch,
// stacking the results. Without the GIL.
Tensor run_on_images(const Tensor& image, const std::function<Tensor(const Tensor&)>& op);

// The parts of bind_transforms (bindings.h), one per file.
void bind_transforms_sample(nb::module_& m);
void bind_transforms_functional(nb::module_& m);

}  // namespace loom::python
