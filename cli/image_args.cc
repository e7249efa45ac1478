#include "image_args.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <random>

#include "batch.h"
#include "format_names.h"
#include "loom/codec/limits.h"
#include "loom/codec/sniff.h"
#include "loom/transforms/geometry.h"
#include "loom/transforms/noise.h"
#include "loom/transforms/random.h"
#include "loom/transforms/resize.h"
#include "loom/vision/image.h"

namespace loom::cli {
namespace fs = std::filesystem;
namespace {

std::optional<CropSpec> parse_crop(const std::string& crop, const std::string& center_crop) {
  if (!crop.empty()) {
    const std::optional<Geometry> g = parse_geometry(crop, /*offset=*/true);
    if (!g) {
      throw CLI::ValidationError("--crop",
                                 fmt::format("'{}' is not WxH or WxH+X+Y (positive W and H, X and Y >= 0)", crop));
    }
    return CropSpec{*g, false};
  }
  if (!center_crop.empty()) {
    std::optional<Geometry> g;
    if (center_crop.find('x') == std::string::npos) {  // "N": a square, as torchvision's CenterCrop(N)
      const std::optional<int64_t> n = parse_count(center_crop);
      if (n && *n > 0) g = parse_geometry(fmt::format("{}x{}", *n, *n), false);
    } else {
      g = parse_geometry(center_crop, /*offset=*/false);
    }
    if (!g) {
      throw CLI::ValidationError("--center-crop", fmt::format("'{}' is not WxH or N (positive integers)", center_crop));
    }
    return CropSpec{*g, true};
  }
  return std::nullopt;
}

// --seed: a decimal number of 0..2^64-1 (CLI11's own conversion would wrap "-1" around).
std::optional<uint64_t> parse_seed(const std::string& text) {
  if (text.empty()) return std::nullopt;
  uint64_t seed = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seed);
  if (text.front() < '0' || text.front() > '9' || ec != std::errc() || end != text.data() + text.size()) {
    throw CLI::ValidationError("--seed", fmt::format("'{}' is not a number from 0 to 18446744073709551615", text));
  }
  return seed;
}

void check_noise(const ImageArgs& args) {
  if (args.noise_on && !(std::isfinite(args.noise) && args.noise >= 0)) {
    throw CLI::ValidationError("--noise", fmt::format("sigma must be a finite number >= 0, not {}", args.noise));
  }
}

// The noise stream of a file: FNV-1a of its relative path (as listed below the folder given, or its
// name), so that its noise depends on the seed and the path only, never on the processing order.
uint64_t noise_stream(const fs::path& relative) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (const char c : relative.generic_string()) {
    hash ^= static_cast<uint8_t>(c);
    hash *= 0x100000001b3ull;
  }
  return hash;
}

// An HWC image as a Sample for the geometric transforms (no annotations).
transforms::Sample hwc_sample(const Tensor& image) {
  transforms::Sample sample;
  sample.image = image;
  sample.layout = Layout::kHWC;
  return sample;
}

Tensor apply_crop(const Tensor& image, const CropSpec& crop) {
  const transforms::Sample sample = hwc_sample(image);
  const Geometry& g = crop.region;
  if (crop.center) return transforms::center_crop(sample, Size{g.height, g.width}).image;
  return transforms::crop(sample, g.y, g.x, g.height, g.width).image;
}

vision::ImageReadMode parse_mode(const std::string& mode) {
  if (mode == "gray") return vision::ImageReadMode::kGray;
  if (mode == "rgb") return vision::ImageReadMode::kRGB;
  if (mode == "rgba") return vision::ImageReadMode::kRGBAlpha;
  return vision::ImageReadMode::kUnchanged;
}

transforms::Interpolation parse_interp(const std::string& interp) {
  if (interp == "nearest") return transforms::Interpolation::kNearest;
  if (interp == "bicubic") return transforms::Interpolation::kBicubic;
  return transforms::Interpolation::kBilinear;
}

}  // namespace

bool ImageFlags::any_given() const {
  return std::any_of(options.begin(), options.end(), [](const CLI::Option* o) { return o->count() > 0; });
}

ImageFlags add_image_flags(CLI::App& cmd, ImageArgs& args) {
  ImageFlags flags;
  auto keep = [&](CLI::Option* o) {
    flags.options.push_back(o);
    return o;
  };
  keep(cmd.add_option("--format", args.format,
                      "Output format: jpg (or jpeg), png or webp (default: JPEG for JPEG inputs, PNG for the others)")
           ->transform(format_check(kImageFormats)));
  keep(cmd.add_option("--quality", args.quality, "JPEG quality 1-100 (default 75) or lossy WebP quality (default 80)")
           ->check(CLI::Range(1, 100)));
  keep(cmd.add_flag("--lossless", args.lossless, "WebP: lossless (exact pixels and alpha)"));
  keep(cmd.add_option("--compression", args.compression, "PNG zlib level 0-9")
           ->check(CLI::Range(0, 9))
           ->capture_default_str());
  keep(cmd.add_option("--mode", args.mode, "Channels to decode to")
           ->check(CLI::IsMember({"unchanged", "gray", "rgb", "rgba"}))
           ->capture_default_str());
  keep(cmd.add_option("--resize", args.resize,
                      "WxH, or N for the shorter side (aspect kept, as torchvision Resize(N))"));
  keep(cmd.add_flag("--exact", args.exact,
                    "With --resize: decode JPEGs at full size, then resize with Pillow's order and arithmetic (equals "
                    "Pillow's Image.resize; slower). Default: DCT-scaled JPEG decode to the smallest size covering "
                    "the target, then the fast resize"));
  keep(cmd.add_option("--interp", args.interp, "Resize interpolation")
           ->check(CLI::IsMember({"nearest", "bilinear", "bicubic"}))
           ->capture_default_str());
  keep(cmd.add_flag("--no-antialias", args.no_antialias, "Do not widen the filter when downscaling"));
  keep(cmd.add_flag("--exif-orientation", args.exif, "Turn images upright as their EXIF orientation says"));
  CLI::Option* crop = keep(
      cmd.add_option("--crop", args.crop,
                     "Keep the WxH region whose top-left corner is at X,Y (WxH+X+Y; WxH: at 0,0), before resizing"));
  CLI::Option* center_crop =
      keep(cmd.add_option("--center-crop", args.center_crop,
                          "Keep the centred WxH (or NxN) region, zero-padded when larger, before resizing"));
  crop->excludes(center_crop);
  keep(cmd.add_flag("--hflip", args.hflip, "Mirror left-right (after resizing)"));
  flags.noise = keep(cmd.add_option(
      "--noise", args.noise,
      "Add Gaussian noise of this sigma on the [0, 1] scale (0.1 = 25.5 levels), as torchvision GaussianNoise"));
  CLI::Option* seed = keep(
      cmd.add_option("--seed", args.seed, "Noise seed: the same seed gives the same files (default: random, printed)"));
  seed->needs(flags.noise);
  return flags;
}

void check_image_args(ImageArgs& args, const ImageFlags& flags) {
  args.noise_on = flags.noise->count() > 0;
  parse_resize(args.resize);
  parse_crop(args.crop, args.center_crop);
  check_noise(args);
  parse_seed(args.seed);
  if (args.lossless && !args.format.empty() && args.format != "webp") {
    throw CLI::ValidationError("--lossless", fmt::format("applies to WebP output, not {}", args.format));
  }
}

ImageSteps parse_image_steps(const ImageArgs& args) {
  ImageSteps steps;
  steps.resize = parse_resize(args.resize);
  steps.crop = parse_crop(args.crop, args.center_crop);
  check_noise(args);
  const std::optional<uint64_t> seed = parse_seed(args.seed);
  if (args.noise_on) {
    if (seed) {
      steps.noise_seed = seed;
    } else {
      std::random_device device;
      steps.noise_seed = (uint64_t{device()} << 32) ^ device();
    }
  }
  return steps;
}

std::string image_output_extension(const ImageArgs& args, const fs::path& input) {
  if (!args.format.empty()) return "." + args.format;
  return sniff_file(input) == Format::kJpeg ? ".jpg" : ".png";
}

std::vector<uint8_t> transform_image(const ImageArgs& args, const ImageSteps& steps, const ByteSource& src,
                                     const fs::path& relative, const std::string& format) {
  const bool jpeg_out = format == "jpg";
  const std::optional<ResizeSpec>& resize = steps.resize;
  vision::DecodeOptions opt;
  opt.layout = Layout::kHWC;  // what the codecs read and write natively: no layout passes
  opt.mode = parse_mode(args.mode);
  opt.apply_exif_orientation = args.exif;
  // JPEG and WebP store 8 bits; the noise is uint8 GaussianNoise.
  opt.to_uint8 = format != "png" || steps.noise_seed.has_value();

  Size target;
  // The DCT-scaling hint only when nothing comes between decode and resize (a crop's region is in
  // full-resolution pixels, and cropping a scaled decode would not give the same pixels), and not with
  // --exact, whose full decode + resize is Pillow's Image.resize.
  const bool dct_hint = resize && !steps.crop && !args.exact;
  if (dct_hint) {
    const vision::ImageInfo info = vision::read_image_info(src, opt.limits);
    const bool swapped = args.exif && info.orientation >= 5;  // EXIF 5..8 turn the image by 90 degrees
    const Size upright{swapped ? info.width : info.height, swapped ? info.height : info.width};
    target = resize_target(*resize, upright);
    // The requested size obeys the limits as a decoded one does, before anything is decoded.
    check_image_size(opt.limits, src.name(), target.width, target.height, info.channels, 1);
    // DCT-domain scaling: JPEG decodes straight to the smallest size that still covers the target.
    opt.min_width = static_cast<int>(swapped ? target.height : target.width);
    opt.min_height = static_cast<int>(swapped ? target.width : target.height);
  }
  Tensor image = vision::decode_image(src, opt);
  if (jpeg_out && (image.size(2) == 2 || image.size(2) == 4)) {
    image = image.slice(2, 0, image.size(2) - 1);  // JPEG stores no alpha
  }
  if (steps.crop) image = apply_crop(image, *steps.crop);
  if (resize) {
    if (!dct_hint) target = resize_target(*resize, transforms::image_size(image, Layout::kHWC));
    check_image_size(opt.limits, src.name(), target.width, target.height, image.size(2),
                     static_cast<int64_t>(element_size(image.dtype())));
    transforms::ResizeOptions ro;
    ro.interpolation = parse_interp(args.interp);
    ro.antialias = !args.no_antialias;
    ro.layout = Layout::kHWC;
    ro.pillow_exact = args.exact;
    if (image.size(0) != target.height || image.size(1) != target.width) image = transforms::resize(image, target, ro);
  }
  if (args.hflip) image = transforms::horizontal_flip(hwc_sample(image)).image;
  if (steps.noise_seed) {
    transforms::Rng rng(*steps.noise_seed, noise_stream(relative));
    image = transforms::gaussian_noise(image, rng, 0.0, args.noise, /*clip=*/true);
  }
  return encode_hwc(image, {format, args.quality, args.compression, args.lossless});
}

}  // namespace loom::cli
