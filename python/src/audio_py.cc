// loom.audio: load, save and info after torchaudio (0.13's functions of the same names), over
// loom::audio::load / decode, save and info.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <optional>
#include <string>
#include <utility>

#include "bindings.h"
#include "loom/audio/effects.h"
#include "loom/audio/info.h"
#include "loom/audio/load.h"
#include "loom/audio/save.h"
#include "media_py.h"
#include "source_py.h"
#include "tensor_py.h"

namespace loom::python {
namespace {

using namespace nb::literals;

std::filesystem::path file_path(nb::handle uri, const char* what) {
  auto path = path_from_python(uri);
  if (!path) throw nb::type_error((std::string(what) + ": uri must be a str or an os.PathLike").c_str());
  return *path;
}

nb::object load(nb::handle uri, int64_t frame_offset, int64_t num_frames, bool normalize, bool channels_first,
                nb::handle /*format: loom identifies the format from the bytes*/) {
  audio::LoadOptions options;
  options.frame_offset = frame_offset;
  options.num_frames = num_frames;
  options.normalize = normalize;
  options.channels_first = channels_first;
  audio::Audio decoded;
  if (auto path = path_from_python(uri)) {
    nb::gil_scoped_release unlocked;
    decoded = audio::load(*path, options);
  } else {
    // torchaudio also reads file-like objects: their remaining bytes are the encoded file.
    nb::object data = nb::hasattr(uri, "read") ? uri.attr("read")() : nb::borrow(uri);
    EncodedInput encoded = encoded_from_python(data, "<file-like>");
    nb::gil_scoped_release unlocked;
    decoded = audio::decode(encoded.source, options);
  }
  return nb::make_tuple(to_python(std::move(decoded.samples)), decoded.sample_rate);
}

void save(nb::handle uri, nb::handle src, int sample_rate, bool channels_first, std::optional<double> compression,
          std::optional<std::string> format, std::optional<std::string> encoding, std::optional<int> bits_per_sample) {
  const auto path = file_path(uri, "save");
  Tensor samples = from_python(src, "src");
  audio::SaveOptions options;
  options.format = format.value_or("");
  options.encoding = encoding.value_or("");
  options.bits_per_sample = bits_per_sample.value_or(0);
  options.compression = compression;
  options.channels_first = channels_first;
  nb::gil_scoped_release unlocked;
  audio::save(path, samples, sample_rate, options);
}

nb::object info(nb::handle uri, nb::handle /*format*/) {
  const auto path = file_path(uri, "info");
  audio::AudioInfo found;
  {
    nb::gil_scoped_release unlocked;
    found = audio::info(path);
  }
  return media_type("AudioMetaData")(found.sample_rate, found.num_frames, found.channels, found.bits_per_sample,
                                     found.encoding);
}

audio::ResampleQuality quality_named(const std::string& name) {
  if (name == "quick") return audio::ResampleQuality::kQuick;
  if (name == "low") return audio::ResampleQuality::kLow;
  if (name == "medium") return audio::ResampleQuality::kMedium;
  if (name == "high") return audio::ResampleQuality::kHigh;
  if (name == "very_high") return audio::ResampleQuality::kVeryHigh;
  throw nb::value_error(
      ("resample: quality must be 'quick', 'low', 'medium', 'high' or 'very_high', not '" + name + "'").c_str());
}

audio::ResampleEngine engine_named(const std::string& name) {
  if (name == "soxr") return audio::ResampleEngine::kSoxr;
  if (name == "sox") return audio::ResampleEngine::kSox;
  if (name == "sinc") return audio::ResampleEngine::kSinc;
  throw nb::value_error(("resample: engine must be 'soxr', 'sox' or 'sinc', not '" + name + "'").c_str());
}

// torchaudio's resampling_method names, and the older ones it still takes (with a warning).
audio::SincWindow window_named(const std::string& name) {
  if (name == "sinc_interp_hann" || name == "sinc_interpolation") return audio::SincWindow::kHann;
  if (name == "sinc_interp_kaiser" || name == "kaiser_window") return audio::SincWindow::kKaiser;
  throw nb::value_error(
      ("resample: resampling_method must be 'sinc_interp_hann' or 'sinc_interp_kaiser', not '" + name + "'").c_str());
}

nb::object resample(nb::handle waveform, int orig_freq, int new_freq, const std::string& quality,
                    const std::string& engine, int lowpass_filter_width, double rolloff,
                    const std::string& resampling_method, std::optional<double> beta) {
  Tensor samples = from_python(waveform, "waveform");
  const bool one_channel = samples.ndim() == 1;
  if (one_channel) samples = samples.contiguous().view({1, samples.size(0)});
  audio::ResampleOptions options;
  options.quality = quality_named(quality);
  options.engine = engine_named(engine);
  options.lowpass_filter_width = lowpass_filter_width;
  options.rolloff = rolloff;
  options.window = window_named(resampling_method);
  if (beta) options.beta = *beta;
  Tensor out;
  {
    nb::gil_scoped_release unlocked;
    out = audio::resample(samples, orig_freq, new_freq, options);
  }
  if (one_channel) out = out.view({out.size(1)});
  return to_python(std::move(out));
}

}  // namespace

void bind_audio(nb::module_& m) {
  m.def("resample", &resample, "waveform"_a, "orig_freq"_a, "new_freq"_a, nb::kw_only(), "quality"_a = "high",
        "engine"_a = "soxr", "lowpass_filter_width"_a = 6, "rolloff"_a = 0.99,
        "resampling_method"_a = "sinc_interp_hann", "beta"_a = nb::none(),
        "Resamples float32 waveform [channels, frames] (or [frames]) from orig_freq to new_freq Hz, as\n"
        "torchaudio.functional.resample is called: round(frames * new_freq / orig_freq) frames out\n"
        "(engine='sinc': ceil, as torchaudio).\n\n"
        "engine: 'soxr' (default: libsoxr on the samples as they are; python-soxr's values), 'sox' (SoX's\n"
        "rate effect, bit for bit the sox CLI's and torchaudio.sox_effects' 'rate'; values beyond [-1, 1]\n"
        "clip) or 'sinc' (torchaudio.functional.resample's windowed sinc, its values within 1e-5, computed\n"
        "over the non-zero taps only with SIMD). quality ('soxr', 'sox'): 'quick', 'low', 'medium', 'high'\n"
        "(default) or 'very_high', SoX's rate -q/-l/-m/-h/-v and libsoxr's recipes of the same names.\n"
        "lowpass_filter_width, rolloff, resampling_method ('sinc_interp_hann' or 'sinc_interp_kaiser') and\n"
        "beta (None: torchaudio's 14.769656459379492): torchaudio's, read by engine='sinc' only.\n"
        "Differences from torchaudio.functional.resample: waveform has at most 2 dimensions, and NaN or\n"
        "infinity is an error. Releases the GIL.");
  m.def("load", &load, "uri"_a, "frame_offset"_a = 0, "num_frames"_a = -1, "normalize"_a = true,
        "channels_first"_a = true, "format"_a = nb::none(),
        "Decodes an audio file into (waveform, sample_rate), as torchaudio.load.\n\n"
        "uri: a path, a file-like object (its remaining bytes are read), bytes-like or a 1-D uint8 tensor.\n"
        "frame_offset / num_frames: the frames (samples per channel) to return, exact in every format\n"
        "(-1: to the end). normalize=True: float32 in [-1, 1] (integers divided by 2^(bits-1); float files as\n"
        "stored); False: the file's native type (uint8, int16, int32 with 24-bit left-aligned, float32,\n"
        "float64), as torchaudio for WAV; lossy codecs are always float32. channels_first: [C, N], else\n"
        "[N, C].\n\n"
        "Values equal soundfile's (libsndfile: WAV, AIFF, AU, CAF, FLAC, Vorbis) and PyAV's (FFmpeg: MP3,\n"
        "AAC, Opus, ADPCM, video containers). Differences from torchaudio: normalize=False gives the native\n"
        "integers of every PCM format (torchaudio only of WAV: FLAC comes as float32 there); 32-bit integer\n"
        "and float files come as stored (torchaudio's sox rounds them through int32, a difference below\n"
        "2^-25); format is accepted and not used (loom identifies the format from the bytes); errors are\n"
        "loom.Error subclasses (a missing file is loom.IoError, a corrupt one loom.InvalidInputError).");
  m.def("save", &save, "uri"_a, "src"_a, "sample_rate"_a, "channels_first"_a = true, "compression"_a = nb::none(),
        "format"_a = nb::none(), "encoding"_a = nb::none(), "bits_per_sample"_a = nb::none(),
        "Encodes src (uint8, int16, int32, float32 or float64; [C, N], or [N, C] with\n"
        "channels_first=False) at sample_rate Hz into the file uri, atomically, as torchaudio.save.\n\n"
        "format: 'wav', 'flac', 'aiff', 'ogg' (Vorbis), 'opus', 'mp3', 'm4a' or 'adts' (None: from the\n"
        "extension). encoding / bits_per_sample: torchaudio's words ('PCM_S', 'PCM_U', 'PCM_F', 'ULAW',\n"
        "'ALAW'); None picks from the dtype as torchaudio does (float32 -> 32-bit float WAV, 24-bit FLAC;\n"
        "int16 -> 16-bit PCM). Sample conversion is libsndfile's, with floats clipped to the integer range.\n\n"
        "Differences from torchaudio: uri is a path (no file-like objects); compression is FLAC's level\n"
        "(0..8), Vorbis's quality (0..10), MP3's LAME VBR quality (0..9, as lame -V; not torchaudio's\n"
        "'bitrate.quality' number) or Opus's complexity (0..10); Opus is stored at a rate it supports (44.1\n"
        "kHz becomes 48 kHz).");
  m.def("info", &info, "uri"_a, "format"_a = nb::none(),
        "The first audio stream's AudioMetaData(sample_rate, num_frames, num_channels, bits_per_sample,\n"
        "encoding) from the headers, as torchaudio.info. Differences from torchaudio: uri is a path;\n"
        "num_frames is the header's count (or duration x rate; 0 when the header gives neither);\n"
        "bits_per_sample is 0 for compressed codecs without a fixed width; format is not used.");
}

}  // namespace loom::python
