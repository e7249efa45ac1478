// loom.decoders: VideoDecoder and AudioDecoder after torchcodec.decoders, over loom::video::VideoDecoder
// and loom::audio::load / decode. Each decoder keeps what opened it (a path, or its own copy of the
// encoded bytes) and pickles as that plus its options: the unpickling process opens it again.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "bindings.h"
#include "loom/audio/load.h"
#include "loom/audio/reader.h"
#include "loom/codec/error.h"
#include "loom/codec/media_probe.h"
#include "media_py.h"
#include "names_py.h"
#include "tensor_py.h"

namespace loom::python {
namespace {

using namespace nb::literals;

// Optional header numbers: None where loom's "unknown" value (0 or -1) stands.
nb::object positive_or_none(double value) {
  return value > 0 ? nb::cast(value) : nb::none();
}
nb::object positive_or_none(int64_t value) {
  return value > 0 ? nb::cast(value) : nb::none();
}

// ---------------------------------------------------------------------------------------------------
// VideoDecoder

Layout dimension_order_from(const std::string& name) {
  if (name == "NCHW") return Layout::kCHW;
  if (name == "NHWC") return Layout::kHWC;
  throw nb::value_error(("dimension_order must be 'NCHW' or 'NHWC', not '" + name + "'").c_str());
}

video::SeekMode seek_mode_from(const std::string& name) {
  if (name == "exact") return video::SeekMode::kExact;
  if (name == "approximate") return video::SeekMode::kApproximate;
  throw nb::value_error(("seek_mode must be 'exact' or 'approximate', not '" + name + "'").c_str());
}

nb::object video_metadata(const video::StreamMetadata& m, int64_t num_frames) {
  const StreamInfo& s = m.stream;
  const double duration = m.end_stream_seconds - m.begin_stream_seconds;
  // As TorchCodec's average_fps: measured from the index when there is one, else the header's.
  nb::object fps = m.num_frames_from_content && duration > 0
                       ? nb::cast(static_cast<double>(*m.num_frames_from_content) / duration)
                       : positive_or_none(s.average_fps);
  nb::dict fields;
  fields["stream_index"] = s.index;
  fields["codec"] = s.codec;
  fields["container"] = m.container;
  fields["width"] = s.width;
  fields["height"] = s.height;
  fields["pixel_format"] = s.pixel_format;
  fields["color_space"] = s.color_space;
  fields["color_range"] = s.color_range;
  fields["color_primaries"] = s.color_primaries;
  fields["rotation"] = s.rotation;
  fields["bit_rate"] = positive_or_none(s.bit_rate);
  fields["duration_seconds_from_header"] = s.duration_seconds >= 0 ? nb::cast(s.duration_seconds) : nb::none();
  fields["average_fps_from_header"] = positive_or_none(s.average_fps);
  fields["num_frames_from_header"] = positive_or_none(s.num_frames);
  fields["num_frames_from_content"] = m.num_frames_from_content ? nb::cast(*m.num_frames_from_content) : nb::none();
  fields["begin_stream_seconds"] = m.begin_stream_seconds;
  fields["end_stream_seconds"] = m.end_stream_seconds;
  fields["num_frames"] = num_frames;
  fields["duration_seconds"] = duration;
  fields["average_fps"] = fps;
  nb::list key_frames;
  for (int64_t i : m.key_frame_indices) key_frames.append(i);
  fields["key_frame_indices"] = key_frames;
  return media_type("VideoStreamMetadata")(**fields);
}

void open_video(VideoDecoderPy* self, nb::handle source, std::optional<int> stream_index,
                const std::string& dimension_order, const std::string& seek_mode, int num_ffmpeg_threads,
                const std::string& device, bool apply_rotation, bool cpu_fallback) {
  const Device decode_device = device_named(device);
  if (num_ffmpeg_threads < 0) throw nb::value_error("num_ffmpeg_threads must be >= 0 (0 lets FFmpeg choose)");
  video::DecoderOptions options;
  options.stream_index = stream_index.value_or(-1);
  options.dimension_order = dimension_order_from(dimension_order);
  options.seek_mode = seek_mode_from(seek_mode);
  options.num_threads = num_ffmpeg_threads;
  options.apply_rotation = apply_rotation;
  options.device = decode_device;
  options.cpu_fallback = cpu_fallback;
  MediaSource media = MediaSource::from_python(source, "VideoDecoder source");
  std::optional<video::VideoDecoder> decoder;
  {
    nb::gil_scoped_release unlocked;
    decoder =
        media.path ? video::VideoDecoder::open(*media.path, options) : video::VideoDecoder::open(media.bytes, options);
  }
  nb::object metadata;
  try {
    metadata = video_metadata(decoder->metadata(), decoder->num_frames());
  } catch (...) {
    destroy_without_gil(decoder);
    throw;
  }
  new (self) VideoDecoderPy{
      std::move(media), stream_index,       dimension_order,     seek_mode, num_ffmpeg_threads, apply_rotation, device,
      cpu_fallback,     std::move(decoder), std::move(metadata), {}};
}

// i normalised to [0, n), or IndexError as TorchCodec raises.
int64_t checked_index(int64_t i, int64_t n) {
  if (i < -n || i >= n) {
    throw nb::index_error(
        ("frame index " + std::to_string(i) + " is out of range for a video of " + std::to_string(n) + " frames")
            .c_str());
  }
  return i < 0 ? i + n : i;
}

void check_played(const VideoDecoderPy& self, double seconds) {
  const video::StreamMetadata& m = self.decoder->metadata();
  if (!(seconds >= m.begin_stream_seconds && seconds < m.end_stream_seconds)) {
    throw nb::index_error(("no frame is played at " + std::to_string(seconds) + " s: the stream plays during [" +
                           std::to_string(m.begin_stream_seconds) + ", " + std::to_string(m.end_stream_seconds) + ")")
                              .c_str());
  }
}

video::Frames frames_at(VideoDecoderPy& self, const std::vector<int64_t>& indices) {
  nb::gil_scoped_release unlocked;
  std::lock_guard busy(self.busy);
  return self.decoder->get_frames_at(indices);
}

// decoder[i] (a frame's tensor) and decoder[a:b:c] (a batch's tensor), as TorchCodec.
nb::object getitem(VideoDecoderPy& self, nb::handle key) {
  const int64_t n = self.decoder->num_frames();
  if (nb::isinstance<nb::slice>(key)) {
    auto [start, stop, step, length] = nb::borrow<nb::slice>(key).compute(static_cast<size_t>(n));
    video::Frames frames;
    if (step > 0) {
      nb::gil_scoped_release unlocked;
      std::lock_guard busy(self.busy);
      frames = self.decoder->get_frames_in_range(start, stop, step);
    } else {
      std::vector<int64_t> indices;
      for (size_t k = 0; k < length; ++k) indices.push_back(start + static_cast<int64_t>(k) * step);
      frames = frames_at(self, indices);
    }
    return to_python(std::move(frames.data));
  }
  const int64_t index = checked_index(index_from_python(key), n);
  video::Frame frame;
  {
    nb::gil_scoped_release unlocked;
    std::lock_guard busy(self.busy);
    frame = self.decoder->get_frame_at(index);
  }
  return to_python(std::move(frame.data));
}

nb::object reduce_video(const VideoDecoderPy& self) {
  nb::dict options;
  options["stream_index"] = self.stream_index ? nb::cast(*self.stream_index) : nb::none();
  options["dimension_order"] = self.dimension_order;
  options["seek_mode"] = self.seek_mode;
  options["num_ffmpeg_threads"] = self.num_ffmpeg_threads;
  options["apply_rotation"] = self.apply_rotation;
  options["device"] = self.device;
  options["cpu_fallback"] = self.cpu_fallback;
  nb::object reopen = nb::module_::import_("loom.decoders").attr("_reopen_video_decoder");
  return nb::make_tuple(reopen, nb::make_tuple(self.source.to_python(), options));
}

void bind_video_decoder(nb::module_& m) {
  nb::class_<VideoDecoderPy>(
      m, "VideoDecoder",
      "Frames of one video stream, after torchcodec.decoders.VideoDecoder.\n\n"
      "source: a path (str or os.PathLike), bytes-like, or a 1-D uint8 tensor of encoded bytes (copied:\n"
      "the decoder owns them). stream_index: None picks FFmpeg's best video stream. dimension_order:\n"
      "'NCHW' (default) or 'NHWC'. seek_mode: 'exact' (default; scans the packets at open: indices and\n"
      "times are right for any file) or 'approximate' (trusts the header). num_ffmpeg_threads: FFmpeg's\n"
      "decoding threads (0 lets FFmpeg choose; default 1, as TorchCodec). device: 'cpu' (default), 'cuda' or\n"
      "'cuda:N': NVDEC through FFmpeg's CUDA hwaccel, colour converted on the GPU, frames on that device\n"
      "(loom.UnsupportedError naming the file when there is no CUDA build, device or hardware decoder for\n"
      "the stream). cpu_fallback (loom only): decode on the CPU where NVDEC cannot (frames still on the\n"
      "device when there is one).\n"
      "apply_rotation (loom only): turn frames as the display matrix says (phone clips), as ffmpeg shows\n"
      "them; metadata keeps the coded size.\n\n"
      "Frames are uint8 RGB (libswscale, bilinear, with each frame's colour matrix and range, as the ffmpeg\n"
      "CLI converts). Indexing takes ints (negative from the end) and slices and returns tensors; the\n"
      "get_* methods return Frame / FrameBatch with pts_seconds and duration_seconds. An index or time\n"
      "outside the stream is IndexError. Decoding releases the GIL; one decoder is used by one thread at\n"
      "a time. Pickles as its source and options (a decoder opened from memory pickles its bytes). A\n"
      "forked child may keep using a decoder with num_ffmpeg_threads=1; FFmpeg's decoding threads (any\n"
      "other value) do not survive fork(), so pickle such a decoder to the child instead.")
      .def("__init__", &open_video, "source"_a, nb::kw_only(), "stream_index"_a = nb::none(),
           "dimension_order"_a = "NCHW", "seek_mode"_a = "exact", "num_ffmpeg_threads"_a = 1, "device"_a = "cpu",
           "apply_rotation"_a = false, "cpu_fallback"_a = false)
      .def_prop_ro(
          "metadata", [](const VideoDecoderPy& self) { return self.metadata; },
          "VideoStreamMetadata of the decoded stream.")
      .def("__len__", [](const VideoDecoderPy& self) { return self.decoder->num_frames(); })
      .def("__getitem__", &getitem, "key"_a)
      .def(
          "get_frame_at",
          [](VideoDecoderPy& self, nb::handle index) {
            const int64_t i = checked_index(index_from_python(index), self.decoder->num_frames());
            video::Frame frame;
            {
              nb::gil_scoped_release unlocked;
              std::lock_guard busy(self.busy);
              frame = self.decoder->get_frame_at(i);
            }
            return frame_to_python(std::move(frame));
          },
          "index"_a, "The Frame at `index` (presentation order; negative counts from the end).")
      .def(
          "get_frames_at",
          [](VideoDecoderPy& self, nb::handle indices) {
            std::vector<int64_t> wanted = indices_from_python(indices);
            for (int64_t& i : wanted) i = checked_index(i, self.decoder->num_frames());
            return frames_to_python(frames_at(self, wanted));
          },
          "indices"_a,
          "A FrameBatch of the frames at `indices` (any order, repeats allowed), in the order asked; each\n"
          "GOP is decoded at most once.")
      .def(
          "get_frames_in_range",
          [](VideoDecoderPy& self, int64_t start, int64_t stop, int64_t step) {
            const int64_t n = self.decoder->num_frames();
            if (step <= 0) throw nb::value_error("step must be > 0");
            if (start < 0 || start >= n)
              throw nb::index_error(
                  ("start " + std::to_string(start) + " is out of range [0, " + std::to_string(n) + ")").c_str());
            if (stop < start) throw nb::index_error("stop must be >= start");
            video::Frames frames;
            {
              nb::gil_scoped_release unlocked;
              std::lock_guard busy(self.busy);
              frames = self.decoder->get_frames_in_range(start, stop, step);
            }
            return frames_to_python(std::move(frames));
          },
          "start"_a, "stop"_a, "step"_a = 1,
          "A FrameBatch of frames start, start + step, ... before stop (half-open). start must be a valid\n"
          "index and stop >= start, else IndexError; a stop past the end is clamped (TorchCodec refuses it).")
      .def(
          "get_frame_played_at",
          [](VideoDecoderPy& self, double seconds) {
            check_played(self, seconds);
            video::Frame frame;
            {
              nb::gil_scoped_release unlocked;
              std::lock_guard busy(self.busy);
              frame = self.decoder->get_frame_played_at(seconds);
            }
            return frame_to_python(std::move(frame));
          },
          "seconds"_a, "The Frame played at `seconds`: pts <= seconds < the next frame's pts.")
      .def(
          "get_frames_played_at",
          [](VideoDecoderPy& self, nb::handle seconds) {
            const std::vector<double> times = seconds_from_python(seconds);
            for (double t : times) check_played(self, t);
            video::Frames frames;
            {
              nb::gil_scoped_release unlocked;
              std::lock_guard busy(self.busy);
              frames = self.decoder->get_frames_played_at(times);
            }
            return frames_to_python(std::move(frames));
          },
          "seconds"_a, "A FrameBatch of the frames played at each of `seconds`, in the order asked.")
      .def(
          "get_frames_played_in_range",
          [](VideoDecoderPy& self, double start_seconds, double stop_seconds) {
            video::Frames frames;
            {
              nb::gil_scoped_release unlocked;
              std::lock_guard busy(self.busy);
              frames = self.decoder->get_frames_played_in_range(start_seconds, stop_seconds);
            }
            return frames_to_python(std::move(frames));
          },
          "start_seconds"_a, "stop_seconds"_a,
          "A FrameBatch of every frame played during [start_seconds, stop_seconds): the one played at\n"
          "start_seconds, then every frame with pts < stop_seconds. start_seconds must lie in the stream\n"
          "and stop_seconds >= start_seconds (else loom.InvalidInputError, a ValueError).")
      .def("__reduce__", &reduce_video);
}

// ---------------------------------------------------------------------------------------------------
// AudioDecoder

struct AudioDecoderPy {
  MediaSource source;
  std::optional<int> stream_index;
  std::optional<int> sample_rate;   // output rate asked for; unset: the stream's
  std::optional<int> num_channels;  // output channels asked for; unset: the stream's
  int stream_rate = 0;              // the decoded stream's
  nb::object metadata;              // loom._media_types.AudioStreamMetadata
};

// The stream's samples (float32 [channels, frames]) from `offset`, at most `count` frames (-1: all).
Tensor decode_audio(const AudioDecoderPy& self, int64_t offset, int64_t count) {
  audio::LoadOptions options;
  options.frame_offset = offset;
  options.num_frames = count;
  options.stream_index = self.stream_index.value_or(-1);
  nb::gil_scoped_release unlocked;
  return self.source.path ? audio::load(*self.source.path, options).samples
                          : audio::decode(self.source.bytes, options).samples;
}

nb::object audio_samples(Tensor data, int64_t first_frame, int rate) {
  const int64_t frames = data.size(1);
  return media_type("AudioSamples")(to_python(std::move(data)), static_cast<double>(first_frame) / rate,
                                    static_cast<double>(frames) / rate, rate);
}

int output_rate(const AudioDecoderPy& self) {
  return self.sample_rate.value_or(self.stream_rate);
}

// The samples of [start_seconds, stop_seconds) at the output rate: frames round(start * rate) up to
// round(stop * rate). Converted output is converted whole, then cut, so that a range holds the same
// values as get_all_samples().
nb::object samples_in_range(const AudioDecoderPy& self, double start_seconds, std::optional<double> stop_seconds) {
  if (!(start_seconds >= 0)) throw nb::value_error("start_seconds must be >= 0");
  if (stop_seconds && !(*stop_seconds >= start_seconds)) throw nb::value_error("stop_seconds must be >= start_seconds");
  const int rate = output_rate(self);
  const auto first = static_cast<int64_t>(std::llround(start_seconds * rate));
  const int64_t count = stop_seconds ? static_cast<int64_t>(std::llround(*stop_seconds * rate)) - first : -1;
  const bool converts = self.sample_rate || self.num_channels;
  Tensor data;
  if (!converts) {
    data = decode_audio(self, first, count);
  } else {
    Tensor all = decode_audio(self, 0, -1);
    nb::gil_scoped_release unlocked;
    all = convert_audio(std::move(all), self.stream_rate, self.num_channels, self.sample_rate);
    const int64_t total = all.size(1);
    const int64_t begin = std::min(first, total);
    const int64_t end = count < 0 ? total : std::min(first + count, total);
    data = all.slice(1, begin, end).contiguous();
  }
  return audio_samples(std::move(data), first, rate);
}

// What the decoder found when it opened the stream.
struct StreamFacts {
  int sample_rate = 0;
  int channels = 0;
  std::optional<int64_t> num_frames;
};

nb::object audio_metadata(const AudioDecoderPy& self, const StreamFacts& reader) {
  nb::dict fields;
  fields["stream_index"] = self.stream_index ? nb::cast(*self.stream_index) : nb::none();
  fields["codec"] = nb::none();
  fields["sample_format"] = nb::none();
  fields["bit_rate"] = nb::none();
  fields["duration_seconds_from_header"] = nb::none();
  fields["sample_rate"] = reader.sample_rate;
  fields["num_channels"] = reader.channels;
  fields["num_frames_from_header"] = reader.num_frames ? nb::cast(*reader.num_frames) : nb::none();
  if (self.source.path) {
    ContainerInfo container;
    {
      nb::gil_scoped_release unlocked;
      container = probe_container(*self.source.path);
    }
    const StreamInfo* stream = container.best("audio");
    if (self.stream_index) {
      stream = nullptr;
      for (const StreamInfo& s : container.streams)
        if (s.index == *self.stream_index) stream = &s;
    }
    if (stream != nullptr) {
      fields["stream_index"] = stream->index;
      fields["codec"] = stream->codec;
      fields["sample_format"] = stream->sample_format.empty() ? nb::none() : nb::cast(stream->sample_format);
      fields["bit_rate"] = positive_or_none(stream->bit_rate);
      const double duration = stream->duration_seconds >= 0 ? stream->duration_seconds : container.duration_seconds;
      fields["duration_seconds_from_header"] = duration >= 0 ? nb::cast(duration) : nb::none();
    }
  }
  return media_type("AudioStreamMetadata")(**fields);
}

void open_audio(AudioDecoderPy* self, nb::handle source, std::optional<int> stream_index,
                std::optional<int> sample_rate, std::optional<int> num_channels) {
  if (sample_rate && *sample_rate <= 0) throw nb::value_error("sample_rate must be > 0");
  if (num_channels && *num_channels <= 0) throw nb::value_error("num_channels must be > 0");
  AudioDecoderPy decoder{MediaSource::from_python(source, "AudioDecoder source"),
                         stream_index,
                         sample_rate,
                         num_channels,
                         0,
                         nb::object()};
  audio::ReaderOptions options;
  options.stream_index = stream_index.value_or(-1);
  StreamFacts facts;
  {
    // Opened and closed without the GIL (closing joins FFmpeg's threads; see VideoDecoderPy).
    nb::gil_scoped_release unlocked;
    const auto reader = decoder.source.path ? audio::AudioReader(*decoder.source.path, options)
                                            : audio::AudioReader(decoder.source.bytes, options);
    facts = {reader.sample_rate(), reader.channels(), reader.num_frames()};
  }
  decoder.stream_rate = facts.sample_rate;
  decoder.metadata = audio_metadata(decoder, facts);
  new (self) AudioDecoderPy(std::move(decoder));
}

nb::object reduce_audio(const AudioDecoderPy& self) {
  nb::dict options;
  options["stream_index"] = self.stream_index ? nb::cast(*self.stream_index) : nb::none();
  options["sample_rate"] = self.sample_rate ? nb::cast(*self.sample_rate) : nb::none();
  options["num_channels"] = self.num_channels ? nb::cast(*self.num_channels) : nb::none();
  nb::object reopen = nb::module_::import_("loom.decoders").attr("_reopen_audio_decoder");
  return nb::make_tuple(reopen, nb::make_tuple(self.source.to_python(), options));
}

void bind_audio_decoder(nb::module_& m) {
  nb::class_<AudioDecoderPy>(
      m, "AudioDecoder",
      "The samples of one audio stream, after torchcodec.decoders.AudioDecoder.\n\n"
      "source: a path, bytes-like, or a 1-D uint8 tensor of encoded bytes (copied). stream_index: None\n"
      "picks the first audio stream. sample_rate / num_channels: convert the output (None keeps the\n"
      "stream's). Samples are float32 [channels, samples] with loom.audio.load's values (libsndfile for\n"
      "WAV/AIFF/AU/CAF/FLAC/Vorbis, FFmpeg for the rest).\n\n"
      "Differences from TorchCodec: times count from the first decoded sample (pts_seconds of\n"
      "get_all_samples() is 0, not the stream's start time); a rate change is libsoxr's high quality\n"
      "(SOXR_HQ, the algorithm of SoX's 'rate -h': within 2^-13 of torchaudio.sox_effects' values away\n"
      "from the first and last 50 ms), not swresample; channels convert to mono (the mean of the\n"
      "channels) or from mono (copies) only. Decoding releases the GIL. Pickles as its source and\n"
      "options.")
      .def("__init__", &open_audio, "source"_a, nb::kw_only(), "stream_index"_a = nb::none(),
           "sample_rate"_a = nb::none(), "num_channels"_a = nb::none())
      .def_prop_ro(
          "metadata", [](const AudioDecoderPy& self) { return self.metadata; },
          "AudioStreamMetadata of the decoded stream.")
      .def(
          "get_all_samples", [](const AudioDecoderPy& self) { return samples_in_range(self, 0, std::nullopt); },
          "Every sample of the stream, as AudioSamples.")
      .def("get_samples_played_in_range", &samples_in_range, "start_seconds"_a = 0.0, "stop_seconds"_a = nb::none(),
           "The samples of [start_seconds, stop_seconds) (None: to the end), at the output rate: sample\n"
           "round(start_seconds * rate) up to round(stop_seconds * rate); pts_seconds is the first one's time.")
      .def("__reduce__", &reduce_audio);
}

}  // namespace

void bind_decoders(nb::module_& m) {
  bind_video_decoder(m);
  bind_audio_decoder(m);
}

}  // namespace loom::python
