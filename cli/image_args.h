// The image flags of `loom convert`, shared with `loom pack`: output format and quality, read mode,
// crop, resize, flip and noise; their validation, and the decode-transform-encode of one image.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "loom/codec/byte_source.h"
#include "resize_arg.h"
#include "size_arg.h"

namespace loom::cli {

struct ImageArgs {
  std::string format;          // "jpg", "png", "webp" or empty: keep the input's (PNG for other formats)
  std::optional<int> quality;  // JPEG (default 75) or WebP (default 80)
  int compression = 6;
  bool lossless = false;  // WebP
  std::string mode = "unchanged";
  std::string resize;  // "WxH", "N" (shorter side) or empty
  std::string interp = "bilinear";
  bool exact = false;  // --exact: a JPEG decodes at full size before --resize (no DCT scaling), and the
                       // resize is pillow_exact
  bool no_antialias = false;
  bool exif = false;
  std::string crop;         // "WxH" or "WxH+X+Y", or empty
  std::string center_crop;  // "WxH" or "N", or empty
  bool hflip = false;
  double noise = 0.0;  // sigma on the [0, 1] scale; used when noise_on
  bool noise_on = false;
  std::string seed;  // decimal, or empty: a random seed
};

// A crop request: a region at an offset (--crop), or a centred one (--center-crop).
struct CropSpec {
  Geometry region;
  bool center = false;
};

// What transform_image does besides decoding and encoding, validated.
struct ImageSteps {
  std::optional<ResizeSpec> resize;
  std::optional<CropSpec> crop;
  std::optional<uint64_t> noise_seed;  // set with --noise: the run's seed
};

// The options add_image_flags registered.
struct ImageFlags {
  std::vector<CLI::Option*> options;
  CLI::Option* noise = nullptr;
  // Whether any image flag was given on the command line.
  bool any_given() const;
};

// Adds --format, --quality, --compression, --lossless, --mode, --resize, --exact, --interp, --no-antialias,
// --exif-orientation, --crop, --center-crop, --hflip, --noise and --seed to `cmd`, into `args`.
ImageFlags add_image_flags(CLI::App& cmd, ImageArgs& args);

// Validates `args` after parsing (sets noise_on from `flags`); throws CLI::ValidationError naming the
// flag for a bad value, so that the command line is refused (exit 2) before any file is touched.
void check_image_args(ImageArgs& args, const ImageFlags& flags);

// The validated steps; draws a random seed for --noise without --seed.
ImageSteps parse_image_steps(const ImageArgs& args);

// --format (".jpg", ".png" or ".webp"), else the input's own format as its bytes say: ".jpg" for JPEG,
// ".png" for the rest.
std::string image_output_extension(const ImageArgs& args, const std::filesystem::path& input);

// Decodes `src`, crops, resizes, flips and adds noise as `steps` say, and encodes it in `format` ("jpg",
// "png" or "webp"). The noise depends on the seed and `relative` only (FNV-1a of its generic form), never
// on the processing order. Throws loom::Error.
std::vector<uint8_t> transform_image(const ImageArgs& args, const ImageSteps& steps, const ByteSource& src,
                                     const std::filesystem::path& relative, const std::string& format);

}  // namespace loom::cli
