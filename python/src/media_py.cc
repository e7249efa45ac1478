#include "media_py.h"

#include <cstring>
#include <utility>

#include "loom/audio/effects.h"
#include "loom/audio/functional.h"
#include "loom/codec/error.h"
#include "source_py.h"
#include "tensor_py.h"

namespace loom::python {

MediaSource MediaSource::from_python(nb::handle source, const char* what) {
  MediaSource out;
  if (auto path = path_from_python(source)) {
    out.path = std::move(*path);
    out.path_object = nb::borrow(source);
    return out;
  }
  EncodedInput encoded = encoded_from_python(source, what);
  std::vector<uint8_t> copy(encoded.source.data(), encoded.source.data() + encoded.source.size());
  out.bytes = ByteSource::from_vector(std::move(copy), what);
  return out;
}

nb::object MediaSource::to_python() const {
  if (path) return path_object;
  return nb::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

VideoDecoderPy::~VideoDecoderPy() {
  destroy_without_gil(decoder);
}

nb::object media_type(const char* name) {
  return nb::module_::import_("loom._media_types").attr(name);
}

Tensor doubles_tensor(const std::vector<double>& values, std::vector<int64_t> shape) {
  Tensor out = Tensor::empty(shape, DType::kFloat64);
  if (!values.empty()) std::memcpy(out.data(), values.data(), values.size() * sizeof(double));
  return out;
}

nb::object frame_to_python(video::Frame frame) {
  return media_type("Frame")(to_python(std::move(frame.data)), frame.pts_seconds, frame.duration_seconds);
}

nb::object frames_to_python(video::Frames frames) {
  const auto n = static_cast<int64_t>(frames.pts_seconds.size());
  return media_type("FrameBatch")(to_python(std::move(frames.data)), to_python(doubles_tensor(frames.pts_seconds, {n})),
                                  to_python(doubles_tensor(frames.duration_seconds, {n})));
}

int64_t index_from_python(nb::handle value) {
  nb::object index = nb::steal(PyNumber_Index(value.ptr()));
  if (!index.is_valid()) nb::raise_python_error();
  return nb::cast<int64_t>(index);
}

namespace {

// Lists (and tuples) as they are; numpy arrays and tensors through their tolist().
nb::object as_list(nb::handle values) {
  if (nb::hasattr(values, "tolist")) return values.attr("tolist")();
  return nb::borrow(values);
}

}  // namespace

std::vector<int64_t> indices_from_python(nb::handle values) {
  std::vector<int64_t> out;
  for (nb::handle item : as_list(values)) out.push_back(index_from_python(item));
  return out;
}

std::vector<double> seconds_from_python(nb::handle values) {
  std::vector<double> out;
  for (nb::handle item : as_list(values)) out.push_back(nb::cast<double>(item));
  return out;
}

Tensor convert_audio(Tensor samples, int sample_rate, std::optional<int> num_channels, std::optional<int> target_rate) {
  const int64_t channels = samples.size(0);
  if (num_channels && *num_channels != channels) {
    if (*num_channels <= 0) {
      throw Error(ErrorCode::kInvalidInput, "num_channels", "must be > 0, not " + std::to_string(*num_channels));
    }
    if (*num_channels == 1) {
      samples = audio::mix_down(samples);
    } else if (channels == 1) {
      samples = audio::mix_up(samples, *num_channels);
    } else {
      throw Error(ErrorCode::kUnsupported, "num_channels",
                  "converts to mono or from mono only, not " + std::to_string(channels) + " to " +
                      std::to_string(*num_channels) + " channels");
    }
  }
  if (target_rate && *target_rate != sample_rate) samples = audio::resample(samples, sample_rate, *target_rate);
  return samples;
}

}  // namespace loom::python
