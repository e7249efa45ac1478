// Shared parts of the media bindings (loom.decoders, loom.samplers, loom.encoders, loom.audio): the
// native VideoDecoder object that the samplers take, the records they return (loom._media_types), and
// the conversions between Python numbers and C++ ones.
//
// Thread safety: everything here that takes or returns a Python object needs the GIL; convert_audio
// does not touch Python and runs without it.
#pragma once

#include <nanobind/nanobind.h>

#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "loom/codec/byte_source.h"
#include "loom/codec/tensor.h"
#include "loom/video/decoder.h"

namespace loom::python {

namespace nb = nanobind;

// Where a decoder reads from: a local file, or encoded bytes the decoder owns (copied from the Python
// object, so the decoder outlives it and pickles them).
struct MediaSource {
  std::optional<std::filesystem::path> path;
  nb::object path_object;  // the str / os.PathLike given, pickled as is
  ByteSource bytes;        // when path is unset

  // A path, bytes, bytearray, memoryview or 1-D uint8 tensor (TypeError otherwise). `what` names
  // memory in messages.
  static MediaSource from_python(nb::handle source, const char* what);
  // What pickling stores: the path object, or the bytes as a Python bytes object.
  nb::object to_python() const;
};

// loom.decoders.VideoDecoder: one loom::video::VideoDecoder and what opened it (for pickling).
//
// Every call into `decoder` runs with the GIL released and `busy` locked (taken after the GIL is
// released, so the two cannot deadlock): Python threads sharing a decoder take turns instead of
// racing inside it.
//
// The destructor closes the decoder without the GIL: closing joins FFmpeg's decoding threads, and a
// thread that is logging may be waiting for the GIL inside an av_log callback that another extension
// installed (PyAV's does), which would deadlock a close made with the GIL held.
struct VideoDecoderPy {
  MediaSource source;
  std::optional<int> stream_index;
  std::string dimension_order;  // "NCHW" or "NHWC"
  std::string seek_mode;        // "exact" or "approximate"
  int num_ffmpeg_threads = 1;
  bool apply_rotation = false;  // loom only: DecoderOptions::apply_rotation
  std::string device;           // "cpu", "cuda" or "cuda:N", as given
  bool cpu_fallback = false;    // loom only: DecoderOptions::cpu_fallback
  std::optional<video::VideoDecoder> decoder;
  nb::object metadata;  // loom._media_types.VideoStreamMetadata, built at open
  std::mutex busy;

  ~VideoDecoderPy();
};

// Destroys `object` (e.g. a decoder, whose destructor joins FFmpeg threads) with the GIL released when
// the calling thread holds it and the interpreter is not shutting down.
template <typename T>
void destroy_without_gil(T& object) {
#if PY_VERSION_HEX >= 0x030D0000
  const bool finalizing = Py_IsFinalizing();
#else
  const bool finalizing = _Py_IsFinalizing();
#endif
  if (PyGILState_Check() && !finalizing) {
    nb::gil_scoped_release unlocked;
    object.reset();
  } else {
    object.reset();
  }
}

// A class of loom._media_types (Frame, FrameBatch, AudioSamples, ...).
nb::object media_type(const char* name);

// A float64 tensor of `shape` holding `values` (row-major; their count must match the shape).
Tensor doubles_tensor(const std::vector<double>& values, std::vector<int64_t> shape);

// loom._media_types.Frame / FrameBatch from the decoder's results.
nb::object frame_to_python(video::Frame frame);
nb::object frames_to_python(video::Frames frames);

// `value` as an index (anything with __index__: int, numpy and 0-d torch integers); TypeError else.
int64_t index_from_python(nb::handle value);
// The items of a sequence (a list, tuple, numpy array or 1-D tensor) as indices / seconds.
std::vector<int64_t> indices_from_python(nb::handle values);
std::vector<double> seconds_from_python(nb::handle values);

// `samples` (float [channels, frames], channels first) at `sample_rate` Hz converted to `num_channels`
// and `target_rate` where they are set and differ: channels by mixing (to mono: the mean of the
// channels; from mono: copies of it; other changes are Error(kUnsupported)), then the rate by
// loom::audio::resample (SoX's "rate" effect at its default, high quality).
Tensor convert_audio(Tensor samples, int sample_rate, std::optional<int> num_channels, std::optional<int> target_rate);

}  // namespace loom::python
