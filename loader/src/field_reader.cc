#include "field_reader.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "loom/audio/effects.h"
#include "loom/audio/functional.h"
#include "loom/audio/load.h"
#include "loom/codec/error.h"
#include "loom/codec/sniff.h"
#include "loom/transforms/resize.h"
#include "loom/video/decoder.h"
#include "loom/video/samplers.h"
#include "loom/vision/image.h"

namespace loom::loader {
namespace {

const Member& member_for(const FieldSpec& spec, const Record& record) {
  const std::vector<std::string>& names = spec.members.empty() ? default_members(spec.kind) : spec.members;
  if (const Member* m = record.find(names)) return *m;
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  throw Error(ErrorCode::kInvalidInput, record.source + ":" + record.key,
              "field \"" + spec.name + "\" has no member (" + list + ")");
}

// Annotations {"boxes": [[...]...], "keypoints": [[x, y]...]} as float32 [N, k] tensors; an absent or
// empty list gives [0, k].
Tensor annotation_rows(const nlohmann::json& doc, const char* key, int64_t columns, const std::string& input) {
  const auto it = doc.find(key);
  const int64_t rows = it == doc.end() ? 0 : static_cast<int64_t>(it->size());
  Tensor t = Tensor::empty({rows, columns}, DType::kFloat32);
  float* out = t.data<float>();
  for (int64_t r = 0; r < rows; ++r) {
    const nlohmann::json& row = (*it)[static_cast<size_t>(r)];
    if (!row.is_array() || static_cast<int64_t>(row.size()) != columns)
      throw Error(ErrorCode::kInvalidInput, input,
                  std::string("annotation \"") + key + "\" rows must hold " + std::to_string(columns) + " numbers");
    for (int64_t c = 0; c < columns; ++c) {
      if (!row[static_cast<size_t>(c)].is_number())
        throw Error(ErrorCode::kInvalidInput, input, std::string("annotation \"") + key + "\" holds a non-number");
      out[r * columns + c] = row[static_cast<size_t>(c)].get<float>();
    }
  }
  return t;
}

void attach_annotations(transforms::Sample& sample, transforms::BoxFormat format, const Record& record) {
  const std::string input = record.source + ":" + record.key;
  nlohmann::json doc = nlohmann::json::object();
  if (!record.annotations.empty()) {
    doc = nlohmann::json::parse(record.annotations, nullptr, /*allow_exceptions=*/false);
    if (!doc.is_object()) throw Error(ErrorCode::kInvalidInput, input, "annotations are not a JSON object");
  }
  const Size canvas = transforms::image_size(sample);
  sample.boxes = transforms::BoundingBoxes{annotation_rows(doc, "boxes", transforms::values_per_box(format), input),
                                           format, canvas};
  sample.keypoints = transforms::KeyPoints{annotation_rows(doc, "keypoints", 2, input), canvas};
}

// The JPEG DCT scale M (output M/8 of the stored size) for a crop of crop_w x crop_h that must stay at
// least out_w x out_h: the smallest of 1/8, 2/8, 4/8 and 8/8 that is enough. libjpeg-turbo has SIMD
// inverse DCTs for those four only; its scalar 5/8..7/8 and 3/8 decode more slowly than full size
// (0.64-0.89 ms against 0.51 ms for a 500x375 photo).
int crop_scale(int64_t crop_w, int64_t crop_h, Size out) {
  const int64_t need = std::max((8 * out.width + crop_w - 1) / crop_w, (8 * out.height + crop_h - 1) / crop_h);
  int m = 1;
  while (m < 8 && m < need) m *= 2;
  return m;
}

int64_t scaled(int64_t v, int m) {
  return (v * m + 4) / 8;  // nearest
}

// RandomResizedCrop fused with the decode: the crop chosen on the stored size (same draws as
// crop.apply), decoded at the smallest sufficient DCT scale, then resized.
Tensor decode_crop(const ImageField& spec, const ByteSource& bytes, const vision::ImageInfo& info, transforms::Rng& rng,
                   StageClock& clock, Stopwatch& watch) {
  const transforms::RandomResizedCrop& crop = *spec.crop;
  const Size out = crop.size();
  const auto [top, left, h, w] = crop.choose_crop(Size{info.height, info.width}, rng);
  const int m = crop_scale(w, h, out);
  vision::DecodeOptions opt = spec.decode;
  opt.min_width = static_cast<int>((int64_t{info.width} * m + 7) / 8);
  opt.min_height = static_cast<int>((int64_t{info.height} * m + 7) / 8);
  const int64_t x0 = scaled(left, m), y0 = scaled(top, m);
  const int64_t x1 = std::max(scaled(left + w, m), x0 + 1), y1 = std::max(scaled(top + h, m), y0 + 1);
  opt.crop =
      vision::Rect{static_cast<int>(x0), static_cast<int>(y0), static_cast<int>(x1 - x0), static_cast<int>(y1 - y0)};
  const Tensor region = vision::decode_jpeg(bytes, opt);
  watch.lap(clock.decode_ns);
  transforms::ResizeOptions resize = crop.options();
  resize.layout = spec.decode.layout;
  return transforms::resize(region, out, resize);
}

bool fusable(const ImageField& spec, const ByteSource& bytes, vision::ImageInfo* info) {
  if (!spec.crop || !spec.decode_crop || spec.boxes_format) return false;
  if (sniff_format(bytes.bytes()) != Format::kJpeg) return false;
  *info = vision::read_image_info(bytes, spec.decode.limits);
  return !spec.decode.apply_exif_orientation || info->orientation == 1;
}

void read_image(const ImageField& spec, const Record& record, const Member& member, transforms::Rng& rng,
                StageClock& clock, FieldValue& value) {
  Stopwatch watch;
  transforms::Sample sample;
  sample.layout = spec.decode.layout;
  vision::ImageInfo info;
  if (fusable(spec, member.bytes, &info)) {
    sample.image = decode_crop(spec, member.bytes, info, rng, clock, watch);
  } else {
    sample.image = vision::decode_image(member.bytes, spec.decode);
    watch.lap(clock.decode_ns);
    if (spec.boxes_format) attach_annotations(sample, *spec.boxes_format, record);
    if (spec.crop) spec.crop->apply(sample, rng);
  }
  if (spec.transform) spec.transform->apply(sample, rng);
  watch.lap(clock.transform_ns);
  // normalize runs at collation, where one image's failure would fail the batch: checked here, where
  // it is this sample's error (and the error policy's to handle).
  if (spec.normalize && sample.image.dtype() != DType::kUInt8 && sample.image.dtype() != DType::kFloat32) {
    throw Error(ErrorCode::kUnsupported, member.bytes.name(),
                "normalize takes uint8 or float32 images, this one is " + std::string(to_string(sample.image.dtype())) +
                    " (decode 16-bit PNGs with to_uint8)");
  }
  value.tensor = sample.image;
  value.layout = sample.layout;
  if (sample.boxes) value.boxes = sample.boxes->data;
  if (sample.keypoints) value.keypoints = sample.keypoints->data;
}

Tensor read_video(const VideoField& spec, const Member& member, transforms::Rng& rng, StageClock& clock) {
  Stopwatch watch;
  video::DecoderOptions opt;
  opt.dimension_order = spec.layout;
  opt.output_size = spec.size;
  video::VideoDecoder decoder = video::VideoDecoder::open(member.bytes, opt);
  video::IndexClipOptions clip;
  clip.num_frames_per_clip = spec.num_frames;
  clip.num_indices_between_frames = spec.frame_step;
  clip.policy = spec.policy;
  const Tensor clips = video::clips_at_random_indices(decoder, rng.next(), clip).data;
  watch.lap(clock.decode_ns);
  return clips.select(0, 0);
}

Tensor read_audio(const AudioField& spec, const Member& member, transforms::Rng& rng, StageClock& clock) {
  Stopwatch watch;
  audio::Audio track = audio::decode(member.bytes);
  watch.lap(clock.decode_ns);
  Tensor samples = track.samples;
  if (spec.sample_rate > 0 && spec.sample_rate != track.sample_rate) {
    samples = audio::resample(samples, track.sample_rate, spec.sample_rate);
    track.sample_rate = spec.sample_rate;
  }
  if (spec.channels == 1 && samples.size(0) != 1) samples = audio::mix_down(samples);
  if (spec.channels > 1 && samples.size(0) != spec.channels) {
    if (samples.size(0) != 1)
      throw Error(ErrorCode::kInvalidInput, member.bytes.name(),
                  "has " + std::to_string(samples.size(0)) + " channels, not 1 or " + std::to_string(spec.channels));
    samples = audio::mix_up(samples, spec.channels);
  }
  if (spec.duration_seconds > 0) {
    const int64_t want = std::llround(spec.duration_seconds * track.sample_rate);
    const int64_t have = samples.size(1);
    const int64_t start = spec.random_offset && have > want ? rng.integer(0, have - want + 1) : 0;
    Tensor clip = Tensor::zeros({samples.size(0), want}, DType::kFloat32);  // zero-padded when short
    const int64_t n = std::min(want, have - start);
    if (n > 0) clip.slice(1, 0, n).copy_from(samples.slice(1, start, start + n));
    samples = clip;
  }
  watch.lap(clock.transform_ns);
  return samples.contiguous();
}

Tensor label_of(const Record& record) {
  if (!record.label) throw Error(ErrorCode::kInvalidInput, record.source + ":" + record.key, "has no label");
  Tensor t = Tensor::empty(std::initializer_list<int64_t>{}, DType::kInt64);
  *t.data<int64_t>() = *record.label;
  return t;
}

Tensor bytes_of(const Member& member) {
  Tensor t = Tensor::empty({static_cast<int64_t>(member.bytes.size())}, DType::kUInt8);
  if (member.bytes.size()) std::memcpy(t.data(), member.bytes.data(), member.bytes.size());
  return t;
}

}  // namespace

const std::vector<std::string>& default_members(FieldKind kind) {
  static const std::vector<std::string> kImage = {"jpg", "jpeg", "png", "ppm", "pgm", "bmp", "tif", "tiff", "webp"};
  static const std::vector<std::string> kVideo = {"mp4", "mkv", "webm", "avi", "mov"};
  static const std::vector<std::string> kAudio = {"wav", "flac", "mp3", "ogg", "opus", "m4a"};
  static const std::vector<std::string> kNone;
  switch (kind) {
    case FieldKind::kImage: return kImage;
    case FieldKind::kVideo: return kVideo;
    case FieldKind::kAudio: return kAudio;
    default: return kNone;
  }
}

std::vector<FieldValue> read_fields(const std::vector<FieldSpec>& specs, const Record& record, transforms::Rng& rng,
                                    StageClock& clock) {
  std::vector<FieldValue> values(specs.size());
  for (size_t f = 0; f < specs.size(); ++f) {
    const FieldSpec& spec = specs[f];
    transforms::Rng field_rng = rng.fork(f);
    FieldValue& value = values[f];
    switch (spec.kind) {
      case FieldKind::kImage: read_image(spec.image, record, member_for(spec, record), field_rng, clock, value); break;
      case FieldKind::kVideo: value.tensor = read_video(spec.video, member_for(spec, record), field_rng, clock); break;
      case FieldKind::kAudio: value.tensor = read_audio(spec.audio, member_for(spec, record), field_rng, clock); break;
      case FieldKind::kLabel: value.tensor = label_of(record); break;
      case FieldKind::kAnnotations: value.text = record.annotations.empty() ? "{}" : record.annotations; break;
      case FieldKind::kBytes: value.tensor = bytes_of(member_for(spec, record)); break;
    }
  }
  return values;
}

}  // namespace loom::loader
