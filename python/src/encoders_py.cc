// loom.encoders: VideoEncoder and AudioEncoder after torchcodec.encoders, over loom::video::encode_video
// and loom::audio::save. Both write files atomically; to_tensor encodes into a private temporary folder
// and returns the file's bytes.
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <system_error>
#include <utility>

#include "bindings.h"
#include "loom/audio/save.h"
#include "loom/codec/byte_source.h"
#include "loom/codec/error.h"
#include "loom/video/encoder.h"
#include "media_py.h"
#include "source_py.h"
#include "tensor_py.h"

namespace loom::python {
namespace {

using namespace nb::literals;
namespace fs = std::filesystem;

fs::path destination(nb::handle dest) {
  auto path = path_from_python(dest);
  if (!path) throw nb::type_error("dest must be a str or an os.PathLike");
  return *path;
}

// A folder of its own under the system's temporary folder, removed with everything in it when the
// object goes.
class ScratchFolder {
 public:
  ScratchFolder() {
    std::random_device entropy;
    for (int attempt = 0; attempt < 100; ++attempt) {
      fs::path candidate = fs::temp_directory_path() / ("loom-encode-" + std::to_string(entropy()));
      std::error_code error;
      if (fs::create_directory(candidate, error)) {
        path_ = std::move(candidate);
        return;
      }
    }
    throw Error(ErrorCode::kIo, fs::temp_directory_path().string(), "cannot create a temporary folder");
  }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
  ~ScratchFolder() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// The bytes of `file` as a 1-D uint8 tensor.
Tensor file_bytes(const fs::path& file) {
  const ByteSource source = ByteSource::from_file(file);
  Tensor out = Tensor::empty({static_cast<int64_t>(source.size())}, DType::kUInt8);
  if (source.size() > 0) std::memcpy(out.data(), source.data(), source.size());
  return out;
}

// A format name, used as a file extension (loom's video encoder picks the container from it).
void check_format(const std::string& format) {
  if (format.empty() || format.find_first_of("/\\.") != std::string::npos) {
    throw nb::value_error(("format must be a name such as 'mp4' or 'wav', not '" + format + "'").c_str());
  }
}

fs::path scratch_file(const ScratchFolder& folder, const std::string& format) {
  return folder.path() / ("encoded." + format);
}

// ---------------------------------------------------------------------------------------------------
// VideoEncoder

struct VideoEncoderPy {
  Tensor frames;  // uint8 [N, 3, H, W], the caller's memory (kept alive)
  double frame_rate = 0;
};

video::EncoderOptions video_options(double frame_rate, std::optional<std::string> codec,
                                    std::optional<std::string> pixel_format, std::optional<int> crf, nb::handle preset,
                                    std::optional<std::map<std::string, std::string>> extra) {
  video::EncoderOptions o;
  o.fps = frame_rate;
  if (codec) o.codec = *codec;
  if (pixel_format) o.pixel_format = *pixel_format;
  o.crf = crf;
  // TorchCodec takes the preset as a name ("medium") or a number (SVT-AV1's 0..13).
  if (!preset.is_none()) o.preset = nb::cast<std::string>(nb::str(preset));
  if (extra) o.codec_options = *extra;
  return o;
}

void bind_video_encoder(nb::module_& m) {
  nb::class_<VideoEncoderPy>(
      m, "VideoEncoder",
      "Encodes uint8 RGB frames [N, 3, H, W] at frame_rate frames per second, after\n"
      "torchcodec.encoders.VideoEncoder. The frames are held (not copied) until encoded.\n\n"
      "Encoding options (keyword-only on to_file and to_tensor): codec (an FFmpeg encoder or codec name;\n"
      "None: the container's default, libx264 for mp4/mov/mkv, libvpx-vp9 for webm, mpeg4 for avi),\n"
      "pixel_format (default 'yuv420p'), crf, preset (a name or a number) and extra_options (a dict of\n"
      "FFmpeg encoder options, str to str). Colour: sRGB input converted with BT.709 (HD) or BT.601\n"
      "coefficients in limited range, and tagged so. Differences from TorchCodec: no to_file_like; files are\n"
      "written atomically. Encoding releases the GIL.")
      .def(
          "__init__",
          [](VideoEncoderPy* self, nb::handle frames, double frame_rate) {
            if (!(frame_rate > 0)) throw nb::value_error("frame_rate must be > 0");
            Tensor data = from_python(frames, "frames");
            if (data.dtype() != DType::kUInt8 || data.ndim() != 4 || data.size(1) != 3) {
              throw nb::value_error("frames must be a uint8 tensor of shape [N, 3, H, W]");
            }
            new (self) VideoEncoderPy{std::move(data), frame_rate};
          },
          "frames"_a, nb::kw_only(), "frame_rate"_a)
      .def(
          "to_file",
          [](const VideoEncoderPy& self, nb::handle dest, std::optional<std::string> codec,
             std::optional<std::string> pixel_format, std::optional<int> crf, nb::handle preset,
             std::optional<std::map<std::string, std::string>> extra_options) {
            const fs::path path = destination(dest);
            const auto o = video_options(self.frame_rate, codec, pixel_format, crf, preset, extra_options);
            nb::gil_scoped_release unlocked;
            video::encode_video(path, self.frames, self.frame_rate, o);
          },
          "dest"_a, nb::kw_only(), "codec"_a = nb::none(), "pixel_format"_a = nb::none(), "crf"_a = nb::none(),
          "preset"_a = nb::none(), "extra_options"_a = nb::none(),
          "Encodes into the file `dest`; the container comes from its extension (.mp4, .mov, .mkv, .webm, .avi).")
      .def(
          "to_tensor",
          [](const VideoEncoderPy& self, const std::string& format, std::optional<std::string> codec,
             std::optional<std::string> pixel_format, std::optional<int> crf, nb::handle preset,
             std::optional<std::map<std::string, std::string>> extra_options) {
            check_format(format);
            const auto o = video_options(self.frame_rate, codec, pixel_format, crf, preset, extra_options);
            Tensor bytes;
            {
              nb::gil_scoped_release unlocked;
              ScratchFolder folder;
              const fs::path file = scratch_file(folder, format);
              video::encode_video(file, self.frames, self.frame_rate, o);
              bytes = file_bytes(file);
            }
            return to_python(std::move(bytes));
          },
          "format"_a, nb::kw_only(), "codec"_a = nb::none(), "pixel_format"_a = nb::none(), "crf"_a = nb::none(),
          "preset"_a = nb::none(), "extra_options"_a = nb::none(),
          "The encoded file as a 1-D uint8 tensor; format is the container ('mp4', 'mov', 'mkv', 'webm', 'avi').");
}

// ---------------------------------------------------------------------------------------------------
// AudioEncoder

struct AudioEncoderPy {
  Tensor samples;  // float32 [channels, frames] (a 1-D tensor is one channel)
  int sample_rate = 0;
};

// The samples to write: converted to num_channels / sample_rate where asked.
Tensor samples_to_write(const AudioEncoderPy& self, std::optional<int> num_channels, std::optional<int> sample_rate) {
  Tensor samples = self.samples.contiguous();
  if (samples.ndim() == 1) samples = samples.view({1, samples.size(0)});
  if (sample_rate && *sample_rate <= 0) throw Error(ErrorCode::kInvalidInput, "sample_rate", "must be > 0");
  return convert_audio(std::move(samples), self.sample_rate, num_channels, sample_rate);
}

audio::SaveOptions audio_options(std::string format, std::optional<int64_t> bit_rate) {
  audio::SaveOptions o;
  o.format = std::move(format);
  o.bit_rate = bit_rate;
  return o;
}

void bind_audio_encoder(nb::module_& m) {
  nb::class_<AudioEncoderPy>(
      m, "AudioEncoder",
      "Encodes float32 samples [channels, samples] in [-1, 1] at sample_rate Hz, after\n"
      "torchcodec.encoders.AudioEncoder, through loom.audio.save (libsndfile for wav/flac/aiff/ogg Vorbis,\n"
      "FFmpeg for mp3/opus/m4a/adts). Keyword-only options: bit_rate (mp3, opus, aac), num_channels and\n"
      "sample_rate (convert first: to or from mono, and libsoxr's high quality as AudioDecoder;\n"
      "TorchCodec uses swresample). An encoder that cannot take the rate\n"
      "(Opus) stores the nearest rate it supports.\n"
      "Encoding releases the GIL.")
      .def(
          "__init__",
          [](AudioEncoderPy* self, nb::handle samples, int sample_rate) {
            if (sample_rate <= 0) throw nb::value_error("sample_rate must be > 0");
            Tensor data = from_python(samples, "samples");
            if (data.dtype() != DType::kFloat32 || data.ndim() < 1 || data.ndim() > 2) {
              throw nb::value_error("samples must be a float32 tensor of shape [channels, samples] or [samples]");
            }
            new (self) AudioEncoderPy{std::move(data), sample_rate};
          },
          "samples"_a, nb::kw_only(), "sample_rate"_a)
      .def(
          "to_file",
          [](const AudioEncoderPy& self, nb::handle dest, std::optional<int64_t> bit_rate,
             std::optional<int> num_channels, std::optional<int> sample_rate) {
            const fs::path path = destination(dest);
            nb::gil_scoped_release unlocked;
            const Tensor samples = samples_to_write(self, num_channels, sample_rate);
            audio::save(path, samples, sample_rate.value_or(self.sample_rate), audio_options("", bit_rate));
          },
          "dest"_a, nb::kw_only(), "bit_rate"_a = nb::none(), "num_channels"_a = nb::none(),
          "sample_rate"_a = nb::none(),
          "Encodes into the file `dest`; the format comes from its extension (.wav, .flac, .aiff, .ogg,\n"
          ".opus, .mp3, .m4a, .aac).")
      .def(
          "to_tensor",
          [](const AudioEncoderPy& self, const std::string& format, std::optional<int64_t> bit_rate,
             std::optional<int> num_channels, std::optional<int> sample_rate) {
            check_format(format);
            Tensor bytes;
            {
              nb::gil_scoped_release unlocked;
              const Tensor samples = samples_to_write(self, num_channels, sample_rate);
              ScratchFolder folder;
              const fs::path file = scratch_file(folder, format);
              audio::save(file, samples, sample_rate.value_or(self.sample_rate), audio_options(format, bit_rate));
              bytes = file_bytes(file);
            }
            return to_python(std::move(bytes));
          },
          "format"_a, nb::kw_only(), "bit_rate"_a = nb::none(), "num_channels"_a = nb::none(),
          "sample_rate"_a = nb::none(),
          "The encoded file as a 1-D uint8 tensor; format is one of 'wav', 'flac', 'aiff', 'ogg', 'opus',\n"
          "'mp3', 'm4a', 'adts'.");
}

}  // namespace

void bind_encoders(nb::module_& m) {
  bind_video_encoder(m);
  bind_audio_encoder(m);
}

}  // namespace loom::python
