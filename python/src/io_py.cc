// loom.io: image and file I/O after torchvision.io (decode_image, decode_jpeg, decode_png,
// encode_jpeg, encode_png, read_image, write_jpeg, write_png, read_file, write_file, ImageReadMode),
// decode_webp, decode_gif, decode_avif, decode_heic, and loom's own decode_image_frames, encode_webp
// and write_webp.
#include <fmt/format.h>
#include <nanobind/stl/string.h>

#include <cstring>
#include <string>
#include <vector>

#include "bindings.h"
#include "loom/codec/atomic_file.h"
#include "loom/codec/error.h"
#include "loom/vision/image.h"
#include "names_py.h"
#include "source_py.h"
#include "tensor_py.h"

namespace loom::python {
namespace {

using namespace nb::literals;
using vision::ImageReadMode;

vision::DecodeOptions decode_options(nb::handle mode, bool apply_exif_orientation, const std::string& layout) {
  vision::DecodeOptions options;
  options.mode = read_mode_named(mode);
  options.apply_exif_orientation = apply_exif_orientation;
  options.layout = layout_named(layout);
  return options;
}

using Decoder = Tensor (*)(const ByteSource&, const vision::DecodeOptions&);

// Throws Error(kInvalidInput) naming the input unless its bytes are of `expected`.
void check_format(const ByteSource& src, Format expected) {
  const Format found = sniff_format(src.bytes());
  if (found != expected) {
    throw Error(ErrorCode::kInvalidInput, src.name(),
                fmt::format("not a {} image ({} data)", format_name(expected), format_name(found)));
  }
}

// torchvision's decode_webp, decode_avif and decode_heic: decode_image for bytes of one format.
template <Format Expected>
Tensor decode_format(const ByteSource& src, const vision::DecodeOptions& options) {
  check_format(src, Expected);
  return vision::decode_image(src, options);
}

// torchvision's decode_gif: C x H x W for one frame, N x C x H x W for an animation.
Tensor decode_gif_frames(const ByteSource& src, const vision::DecodeOptions& options) {
  check_format(src, Format::kGif);
  const Tensor frames = vision::decode_image_frames(src, options);
  return frames.size(0) == 1 ? frames.select(0, 0) : frames;
}

// One input, or a list of them as torchvision's batched decode_jpeg takes (a list back).
nb::object decode_each(Decoder decode, nb::handle input, const vision::DecodeOptions& options, const char* name) {
  auto one = [&](nb::handle item) {
    EncodedInput encoded = encoded_from_python(item, name);
    Tensor image;
    {
      nb::gil_scoped_release unlocked;
      image = decode(encoded.source, options);
    }
    return to_python(std::move(image));
  };
  if (!nb::isinstance<nb::list>(input)) return one(input);
  nb::list images;
  for (nb::handle item : input) images.append(one(item));
  return images;
}

// name(<first>, mode=ImageReadMode.UNCHANGED, apply_exif_orientation=False, *, layout="CHW").
void def_decoder(nb::module_& io, const char* name, Decoder decode, const char* first, const char* doc) {
  io.def(
      name,
      [decode, name](nb::handle input, nb::handle mode, bool apply_exif_orientation, const std::string& layout) {
        return decode_each(decode, input, decode_options(mode, apply_exif_orientation, layout), name);
      },
      nb::arg(first), "mode"_a = ImageReadMode::kUnchanged, "apply_exif_orientation"_a = false, nb::kw_only(),
      "layout"_a = "CHW", doc);
}

void check_cpu_device(const std::string& device) {
  if (device != "cpu") {
    throw Error(ErrorCode::kUnsupported, "decode_jpeg",
                "device '" + device + "': loom decodes JPEG on the CPU (move the result with .to())");
  }
}

Tensor bytes_tensor(const std::vector<uint8_t>& bytes) {
  Tensor out = Tensor::empty({static_cast<int64_t>(bytes.size())}, DType::kUInt8);
  if (!bytes.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

template <typename Options, typename Encode>
nb::object encode_each(Encode encode, nb::handle input, const Options& options, const char* name) {
  auto one = [&](nb::handle item) {
    Tensor image = from_python(item, name);
    Tensor encoded;
    {
      nb::gil_scoped_release unlocked;
      encoded = bytes_tensor(encode(image, options));
    }
    return to_python(std::move(encoded));
  };
  if (!nb::isinstance<nb::list>(input)) return one(input);
  nb::list out;
  for (nb::handle item : input) out.append(one(item));
  return out;
}

std::filesystem::path output_path(nb::handle filename) {
  auto path = path_from_python(filename);
  if (!path) throw nb::type_error("filename must be a str or an os.PathLike");
  return *path;
}

vision::JpegEncodeOptions jpeg_options(int quality, const std::string& layout) {
  vision::JpegEncodeOptions options;
  options.quality = quality;
  options.layout = layout_named(layout);
  return options;
}

vision::PngEncodeOptions png_options(int compression_level, const std::string& layout) {
  vision::PngEncodeOptions options;
  options.compression_level = compression_level;
  options.layout = layout_named(layout);
  return options;
}

vision::WebpEncodeOptions webp_options(float quality, bool lossless, int method, const std::string& layout) {
  vision::WebpEncodeOptions options;
  options.quality = quality;
  options.lossless = lossless;
  options.method = method;
  options.layout = layout_named(layout);
  return options;
}

}  // namespace

void bind_io(nb::module_& io) {
  nb::enum_<ImageReadMode>(io, "ImageReadMode", "Which channels to decode to, as torchvision.io.ImageReadMode.")
      .value("UNCHANGED", ImageReadMode::kUnchanged, "the file's own channels")
      .value("GRAY", ImageReadMode::kGray, "1 channel")
      .value("GRAY_ALPHA", ImageReadMode::kGrayAlpha, "2 channels")
      .value("RGB", ImageReadMode::kRGB, "3 channels")
      .value("RGB_ALPHA", ImageReadMode::kRGBAlpha, "4 channels");

  const auto unchanged = ImageReadMode::kUnchanged;
  def_decoder(io, "decode_image", vision::decode_image, "input",
              "Decodes a JPEG, PNG, WebP, GIF, TIFF, AVIF, HEIF or BMP (sniffed from its bytes) into a uint8\n"
              "C x H x W tensor (uint16 for samples of more than 8 bits); the first frame of an animation.\n\n"
              "input: a 1-D uint8 tensor (as read_file returns), bytes-like, or a path; or a list of them.\n"
              "mode: ImageReadMode or its name. layout='HWC' gives H x W x C (loom only).\n"
              "As torchvision 0.21+, 16-bit PNGs decode to uint16.");
  def_decoder(io, "decode_image_frames", vision::decode_image_frames, "input",
              "Every frame of a GIF or WebP animation, composited as Pillow shows them, as N x C x H x W\n"
              "(N = 1 for other images). loom only.");
  io.def(
      "decode_jpeg",
      [](nb::handle input, nb::handle mode, const std::string& device, bool apply_exif_orientation,
         const std::string& layout) {
        check_cpu_device(device);
        return decode_each(vision::decode_jpeg, input, decode_options(mode, apply_exif_orientation, layout),
                           "decode_jpeg");
      },
      "input"_a, "mode"_a = unchanged, "device"_a = "cpu", "apply_exif_orientation"_a = false, nb::kw_only(),
      "layout"_a = "CHW", "Decodes a JPEG (or a list of them) into uint8 C x H x W. device must be 'cpu'.");
  def_decoder(io, "decode_png", vision::decode_png, "input", "Decodes a PNG into a uint8 or uint16 C x H x W tensor.");
  def_decoder(io, "decode_webp", decode_format<Format::kWebp>, "input",
              "Decodes a WebP (the first frame of an animation) as torchvision.io.decode_webp.");
  def_decoder(io, "decode_avif", decode_format<Format::kAvif>, "input",
              "Decodes an AVIF as torchvision.io.decode_avif (uint16 for 10/12-bit, scaled as avifdec -d 16).");
  def_decoder(io, "decode_heic", decode_format<Format::kHeif>, "input",
              "Decodes a HEIF/HEIC as torchvision.io.decode_heic (uint16 for 10/12-bit, shifted as heif-convert).");
  def_decoder(io, "decode_gif", decode_gif_frames, "input",
              "Decodes a GIF as torchvision.io.decode_gif: C x H x W, or N x C x H x W for an animation.");
  def_decoder(io, "read_image", vision::decode_image, "path",
              "Reads and decodes an image file (any format decode_image reads).");
  io.def(
      "encode_jpeg",
      [](nb::handle input, int quality, const std::string& layout) {
        return encode_each(vision::encode_jpeg, input, jpeg_options(quality, layout), "encode_jpeg");
      },
      "input"_a, "quality"_a = 75, nb::kw_only(), "layout"_a = "CHW",
      "Encodes a uint8 C x H x W image (1 or 3 channels), or a list of them, into JPEG bytes (a 1-D\n"
      "uint8 tensor). quality is 1..100 as libjpeg's scale; chroma is subsampled 4:2:0 (as torchvision).");
  io.def(
      "encode_png",
      [](nb::handle input, int compression_level, const std::string& layout) {
        return encode_each(vision::encode_png, input, png_options(compression_level, layout), "encode_png");
      },
      "input"_a, "compression_level"_a = 6, nb::kw_only(), "layout"_a = "CHW",
      "Encodes a uint8 or uint16 C x H x W image (1 to 4 channels) into PNG bytes (a 1-D uint8 tensor).");
  io.def(
      "encode_webp",
      [](nb::handle input, float quality, bool lossless, int method, const std::string& layout) {
        return encode_each(vision::encode_webp, input, webp_options(quality, lossless, method, layout), "encode_webp");
      },
      "input"_a, "quality"_a = 80.0f, "lossless"_a = false, "method"_a = 4, nb::kw_only(), "layout"_a = "CHW",
      "Encodes a uint8 C x H x W image (1 to 4 channels; gray is stored as RGB) into WebP bytes: lossy at\n"
      "quality 0..100 (Pillow's default 80), or lossless. method 0..6 trades speed for size. loom only.");
  io.def(
      "write_webp",
      [](nb::handle input, nb::handle filename, float quality, bool lossless, int method, const std::string& layout) {
        Tensor image = from_python(input, "write_webp");
        const auto path = output_path(filename);
        const auto options = webp_options(quality, lossless, method, layout);
        nb::gil_scoped_release unlocked;
        write_file_atomic(path, vision::encode_webp(image, options));
      },
      "input"_a, "filename"_a, "quality"_a = 80.0f, "lossless"_a = false, "method"_a = 4, nb::kw_only(),
      "layout"_a = "CHW", "Encodes a WebP and writes it atomically. loom only.");
  io.def(
      "write_jpeg",
      [](nb::handle input, nb::handle filename, int quality, const std::string& layout) {
        Tensor image = from_python(input, "write_jpeg");
        const auto path = output_path(filename);
        vision::WriteOptions options;
        options.jpeg = jpeg_options(quality, layout);
        nb::gil_scoped_release unlocked;
        write_file_atomic(path, vision::encode_jpeg(image, options.jpeg));
      },
      "input"_a, "filename"_a, "quality"_a = 75, nb::kw_only(), "layout"_a = "CHW",
      "Encodes a JPEG and writes it atomically (the file appears whole or not at all).");
  io.def(
      "write_png",
      [](nb::handle input, nb::handle filename, int compression_level, const std::string& layout) {
        Tensor image = from_python(input, "write_png");
        const auto path = output_path(filename);
        const auto options = png_options(compression_level, layout);
        nb::gil_scoped_release unlocked;
        write_file_atomic(path, vision::encode_png(image, options));
      },
      "input"_a, "filename"_a, "compression_level"_a = 6, nb::kw_only(), "layout"_a = "CHW",
      "Encodes a PNG and writes it atomically.");
  io.def(
      "read_file",
      [](nb::handle path) {
        const auto file = output_path(path);
        Tensor bytes;
        {
          nb::gil_scoped_release unlocked;
          const ByteSource source = ByteSource::from_file(file);
          bytes = Tensor::empty({static_cast<int64_t>(source.size())}, DType::kUInt8);
          if (source.size() > 0) std::memcpy(bytes.data(), source.data(), source.size());
        }
        return to_python(std::move(bytes));
      },
      "path"_a, "The bytes of a file as a 1-D uint8 tensor.");
  io.def(
      "write_file",
      [](nb::handle filename, nb::handle data) {
        const auto path = output_path(filename);
        Tensor bytes = from_python(data, "write_file");
        if (bytes.dtype() != DType::kUInt8 || bytes.ndim() != 1)
          throw Error(ErrorCode::kInvalidInput, "write_file", "data must be a 1-D uint8 tensor or bytes");
        Tensor contiguous = bytes.contiguous();
        nb::gil_scoped_release unlocked;
        write_file_atomic(path, {static_cast<const uint8_t*>(contiguous.data()), contiguous.nbytes()});
      },
      "filename"_a, "data"_a, "Writes a 1-D uint8 tensor (or bytes) to a file atomically.");
}

}  // namespace loom::python
