// loom._loom.data field specs: native builders for loader::FieldSpec, one per FieldKind. The Python
// classes in python/loom/data.py (ImageField, LabelField, ...) hold the user's arguments and call
// these to make the FieldSpec the loader runs; every argument is checked here, with the GIL held.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "data_py.h"
#include "loom/loader/loader.h"
#include "loom/transforms/geometry_transforms.h"
#include "loom/transforms/transform.h"
#include "names_py.h"

namespace loom::python {
namespace {

using namespace nb::literals;
namespace ld = loom::loader;
namespace tf = loom::transforms;

using SizePair = std::pair<int64_t, int64_t>;  // (height, width), as torchvision's size=(h, w)
using RangePair = std::pair<double, double>;

ld::Collate collate_named(const std::string& name) {
  if (name == "auto") return ld::Collate::kAuto;
  if (name == "list") return ld::Collate::kList;
  if (name == "pad") return ld::Collate::kPad;
  throw nb::value_error(("collate must be 'auto', 'list' or 'pad', not '" + name + "'").c_str());
}

tf::BoxFormat box_format_named(const std::string& name) {
  if (name == "XYXY") return tf::BoxFormat::kXYXY;
  if (name == "XYWH") return tf::BoxFormat::kXYWH;
  if (name == "CXCYWH") return tf::BoxFormat::kCXCYWH;
  if (name == "XYWHR") return tf::BoxFormat::kXYWHR;
  if (name == "CXCYWHR") return tf::BoxFormat::kCXCYWHR;
  if (name == "XYXYXYXY") return tf::BoxFormat::kXYXYXYXY;
  throw nb::value_error(("unknown box format '" + name + "'").c_str());
}

video::Policy policy_named(const std::string& name) {
  if (name == "repeat_last") return video::Policy::kRepeatLast;
  if (name == "wrap") return video::Policy::kWrap;
  if (name == "error") return video::Policy::kError;
  throw nb::value_error(("policy must be 'repeat_last', 'wrap' or 'error', not '" + name + "'").c_str());
}

Size size_of(const SizePair& s, const char* what) {
  if (s.first <= 0 || s.second <= 0)
    throw nb::value_error((std::string(what) + ": height and width must be > 0").c_str());
  return Size{s.first, s.second};
}

ld::FieldSpec base_field(std::string name, ld::FieldKind kind, std::vector<std::string> members,
                         const std::string& collate) {
  if (name.empty()) throw nb::value_error("a field needs a name");
  ld::FieldSpec spec;
  spec.name = std::move(name);
  spec.kind = kind;
  spec.members = std::move(members);
  spec.collate = collate_named(collate);
  return spec;
}

ld::FieldSpec image_field(std::string name, std::vector<std::string> members, const std::string& collate,
                          const std::string& mode, const std::string& layout, bool apply_exif_orientation,
                          bool to_uint8, std::optional<SizePair> random_resized_crop, RangePair scale, RangePair ratio,
                          bool decode_crop, std::optional<SizePair> resize, std::optional<SizePair> center_crop,
                          double horizontal_flip, double vertical_flip,
                          std::optional<std::pair<std::vector<float>, std::vector<float>>> normalize,
                          const std::string& normalize_layout, std::optional<std::string> boxes_format) {
  ld::FieldSpec spec = base_field(std::move(name), ld::FieldKind::kImage, std::move(members), collate);
  ld::ImageField& image = spec.image;
  image.decode.mode = read_mode_named(nb::str(mode.c_str()));
  image.decode.layout = layout_named(layout, "layout");
  image.decode.apply_exif_orientation = apply_exif_orientation;
  image.decode.to_uint8 = to_uint8;
  if (random_resized_crop) {
    image.crop = std::make_shared<tf::RandomResizedCrop>(size_of(*random_resized_crop, "random_resized_crop"),
                                                         tf::Range{scale.first, scale.second},
                                                         tf::Range{ratio.first, ratio.second});
  } else if (decode_crop) {
    throw nb::value_error("decode_crop needs random_resized_crop");
  }
  image.decode_crop = decode_crop;
  // The transforms after the crop, in torchvision's usual order: Resize, CenterCrop, flips.
  std::vector<tf::TransformPtr> chain;
  if (resize) {
    // resize=(0, n) is not allowed; a single int (the shorter side) comes from Python as (n, 0).
    if (resize->first <= 0 || resize->second < 0) throw nb::value_error("resize: sizes must be > 0");
    chain.push_back(std::make_shared<tf::Resize>(Size{resize->first, resize->second}));
  }
  if (center_crop) chain.push_back(std::make_shared<tf::CenterCrop>(size_of(*center_crop, "center_crop")));
  if (horizontal_flip < 0 || horizontal_flip > 1 || vertical_flip < 0 || vertical_flip > 1)
    throw nb::value_error("flip probabilities must be in [0, 1]");
  if (horizontal_flip > 0) chain.push_back(std::make_shared<tf::RandomHorizontalFlip>(horizontal_flip));
  if (vertical_flip > 0) chain.push_back(std::make_shared<tf::RandomVerticalFlip>(vertical_flip));
  if (chain.size() == 1) image.transform = chain.front();
  if (chain.size() > 1) image.transform = std::make_shared<tf::Compose>(std::move(chain));
  if (normalize) {
    if (normalize->first.empty() || normalize->second.empty())
      throw nb::value_error("normalize: mean and std need at least one value");
    image.normalize = ld::ImageField::Normalization{normalize->first, normalize->second,
                                                    layout_named(normalize_layout, "normalize_layout")};
  }
  if (boxes_format) image.boxes_format = box_format_named(*boxes_format);
  return spec;
}

ld::FieldSpec video_field(std::string name, std::vector<std::string> members, const std::string& collate,
                          int num_frames, int frame_step, const std::string& layout, std::optional<SizePair> size,
                          const std::string& policy) {
  ld::FieldSpec spec = base_field(std::move(name), ld::FieldKind::kVideo, std::move(members), collate);
  if (num_frames <= 0 || frame_step <= 0) throw nb::value_error("num_frames and frame_step must be > 0");
  spec.video.num_frames = num_frames;
  spec.video.frame_step = frame_step;
  spec.video.layout = layout_named(layout, "layout");
  if (size) spec.video.size = size_of(*size, "size");
  spec.video.policy = policy_named(policy);
  return spec;
}

ld::FieldSpec audio_field(std::string name, std::vector<std::string> members, const std::string& collate,
                          double duration, bool random_offset, int channels, int sample_rate) {
  ld::FieldSpec spec = base_field(std::move(name), ld::FieldKind::kAudio, std::move(members), collate);
  if (duration < 0 || channels < 0 || sample_rate < 0)
    throw nb::value_error("duration, channels and sample_rate must be >= 0");
  spec.audio.duration_seconds = duration;
  spec.audio.random_offset = random_offset;
  spec.audio.channels = channels;
  spec.audio.sample_rate = sample_rate;
  return spec;
}

const char* kind_name(ld::FieldKind kind) {
  switch (kind) {
    case ld::FieldKind::kImage: return "image";
    case ld::FieldKind::kVideo: return "video";
    case ld::FieldKind::kAudio: return "audio";
    case ld::FieldKind::kLabel: return "label";
    case ld::FieldKind::kAnnotations: return "annotations";
    case ld::FieldKind::kBytes: return "bytes";
  }
  return "?";
}

}  // namespace

void bind_data_fields(nb::module_& m) {
  nb::class_<ld::FieldSpec>(m, "FieldSpec", "A loader field as the C++ loader runs it (made by loom.data's fields).")
      .def_prop_ro("name", [](const ld::FieldSpec& f) { return f.name; })
      .def_prop_ro("kind", [](const ld::FieldSpec& f) { return kind_name(f.kind); })
      .def_prop_ro("members", [](const ld::FieldSpec& f) { return f.members; })
      .def("__repr__", [](const ld::FieldSpec& f) {
        std::string text = std::string("FieldSpec(") + kind_name(f.kind) + " '" + f.name + "'";
        if (f.kind == ld::FieldKind::kImage) {
          if (f.image.crop) text += ", " + f.image.crop->describe();
          if (f.image.transform) text += ", " + f.image.transform->describe();
          if (f.image.normalize) text += ", normalized";
        }
        return text + ")";
      });
  m.def("_image_field", &image_field, "name"_a, "members"_a, "collate"_a, "mode"_a, "layout"_a,
        "apply_exif_orientation"_a, "to_uint8"_a, "random_resized_crop"_a.none(), "scale"_a, "ratio"_a, "decode_crop"_a,
        "resize"_a.none(), "center_crop"_a.none(), "horizontal_flip"_a, "vertical_flip"_a, "normalize"_a.none(),
        "normalize_layout"_a, "boxes_format"_a.none());
  m.def("_video_field", &video_field, "name"_a, "members"_a, "collate"_a, "num_frames"_a, "frame_step"_a, "layout"_a,
        "size"_a.none(), "policy"_a);
  m.def("_audio_field", &audio_field, "name"_a, "members"_a, "collate"_a, "duration"_a, "random_offset"_a, "channels"_a,
        "sample_rate"_a);
  m.def(
      "_plain_field",
      [](std::string name, const std::string& kind, std::vector<std::string> members, const std::string& collate) {
        ld::FieldKind k;
        if (kind == "label")
          k = ld::FieldKind::kLabel;
        else if (kind == "bytes")
          k = ld::FieldKind::kBytes;
        else if (kind == "annotations")
          k = ld::FieldKind::kAnnotations;
        else
          throw nb::value_error(("unknown field kind '" + kind + "'").c_str());
        return base_field(std::move(name), k, std::move(members), collate);
      },
      "name"_a, "kind"_a, "members"_a, "collate"_a);
}

}  // namespace loom::python
