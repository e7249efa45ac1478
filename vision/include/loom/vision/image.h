// Image decode and encode. Decode: JPEG (libjpeg-turbo), PNG (libpng), WebP (libwebp), GIF (giflib),
// TIFF (libtiff), AVIF (libavif), HEIF/HEIC (libheif) and BMP (loom's own reader). Encode: JPEG, PNG
// and WebP.
//
// Layout: decoded images are uint8 (or uint16 for samples of more than 8 bits: 16-bit PNG and TIFF;
// 10/12-bit AVIF scaled to 0..65535 by libavif as avifdec -d 16; 10/12-bit HEIF shifted up as
// heif-convert, 1023 -> 65472) tensors of shape C x H x W (CHW, the
// default, as torchvision) or H x W x C (HWC), contiguous. Animations (GIF, WebP) decode to their
// first frame, or with decode_image_frames to N x (image shape). Encoders accept either layout, and also a
// 2-D H x W tensor for one channel, with any strides.
// Errors: decoders throw loom::Error naming the input (the path, or ByteSource::name()) for bad,
// unsupported or oversized input; encoders name themselves ("encode_jpeg") and write_image names the
// output path; a CUDA tensor gives Error(kUnsupported). Nothing is returned half-decoded and no output
// file is left behind.
// Thread safety: all functions are reentrant; distinct calls may run concurrently.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

#include "loom/codec/api.h"
#include "loom/codec/byte_source.h"
#include "loom/codec/layout.h"
#include "loom/codec/limits.h"
#include "loom/codec/sniff.h"
#include "loom/codec/tensor.h"

LOOM_API_BEGIN

namespace loom::vision {

// Which channels to decode to, as torchvision.io.ImageReadMode.
enum class ImageReadMode {
  kUnchanged,  // the file's own channels: gray 1, gray+alpha 2, color 3, color+alpha 4. Palettes (PNG,
               // GIF, TIFF, BMP) expand to RGB, or RGBA when they carry transparency; CMYK JPEGs and
               // TIFFs convert to RGB.
  kGray,       // 1 channel: JPEG's luma for YCbCr files; PNG color converts with torchvision's weights
               // (0.2989 R + 0.587 G + 0.1141 B), the other formats with Pillow's convert("L")
               // (0.299 R + 0.587 G + 0.114 B)
  kGrayAlpha,  // 2 channels; alpha is opaque when the file has none
  kRGB,        // 3 channels; alpha and transparency are dropped (not composited)
  kRGBAlpha,   // 4 channels; alpha is opaque when the file has none
};

struct Rect {
  int x = 0, y = 0, width = 0, height = 0;
};

struct DecodeOptions {
  ImageReadMode mode = ImageReadMode::kUnchanged;
  Layout layout = Layout::kCHW;
  // Rotate/flip the pixels as the file's orientation says so that the image is upright: the EXIF
  // Orientation tag (JPEG APP1, PNG eXIf before IDAT, WebP's EXIF chunk), TIFF's Orientation tag and
  // AVIF's irot/imir boxes. Off by default, as in torchvision. HEIF images come upright always
  // (libheif applies irot/imir, which HEIF makes part of the image).
  bool apply_exif_orientation = false;
  // Samples of more than 8 bits decode to uint16 unless this is set; then PNG and TIFF samples keep
  // their high byte (as Pillow) and AVIF and HEIF convert at 8 bits in their library (as avifdec -d 8).
  bool to_uint8 = false;
  // Size hint for JPEG DCT-domain scaling: when either is > 0, the JPEG decoder picks the smallest
  // libjpeg-turbo scale M/8 (M = 1..8) whose output is at least min_width x min_height, so a caller
  // that resizes afterwards decodes far fewer pixels. PNG ignores the hint (full size).
  int min_width = 0;
  int min_height = 0;
  // Decode only this region, in the coordinates of the (scaled) stored image before any EXIF
  // orientation; it is clipped to the image and must not be empty after clipping. JPEG skips the rows
  // above and decodes only the iMCU columns it needs; PNG decodes rows up to the region's end; the
  // other formats decode the whole image and cut the region out.
  std::optional<Rect> crop;
  Limits limits;
};

struct ImageInfo {
  Format format = Format::kUnknown;
  int width = 0, height = 0;  // as stored, before EXIF orientation
  int channels = 0;           // what ImageReadMode::kUnchanged decodes to
  int bit_depth = 0;          // bits per sample in the file (1 to 16)
  int orientation = 1;        // EXIF orientation 1..8 (1 = upright or no tag)
  bool progressive = false;   // progressive JPEG, interlaced PNG or GIF
  int frames = 1;             // frames of an animation (GIF, WebP), pages of a TIFF
};

// Whether decode_image reads images of `format`.
bool decodes_format(Format format);

// Reads only the header (and EXIF); throws like decode_image.
ImageInfo read_image_info(const ByteSource& source, const Limits& limits = {});

// Decodes an image of any format above, sniffed from its bytes (never its name); the first frame of an
// animation, the first page of a TIFF. Other image formats (JPEG 2000, QOI, PNM) throw
// Error(kUnsupported); bytes of no known format throw Error(kInvalidInput).
Tensor decode_image(const ByteSource& source, const DecodeOptions& options = {});
// Every frame of a GIF or WebP animation, composited onto the canvas as a viewer shows them (as
// Pillow's ImageSequence, converted to the read mode), stacked as N x C x H x W (or N x H x W x C).
// Other images give N = 1. options.limits.max_bytes bounds all frames together.
Tensor decode_image_frames(const ByteSource& source, const DecodeOptions& options = {});
Tensor decode_jpeg(const ByteSource& source, const DecodeOptions& options = {});
Tensor decode_png(const ByteSource& source, const DecodeOptions& options = {});
// Decodes like decode_image into `out`, a CPU tensor the caller owns and may reuse call after call
// (a slice of a batch, a buffer kept between decodes), so that no output memory is allocated or
// faulted in. `out` must have the shape and dtype decode_image would return for these options (so the
// caller knows the image's size: read_image_info, or a dataset of one size); any strides. JPEG and PNG
// write their rows straight into a contiguous `out` when no orientation turn is asked for; the other
// formats, and those cases, decode as decode_image does and copy. Throws like decode_image, and
// Error(kInvalidInput) naming the input and both shapes when `out` does not fit (a JPEG or PNG finds
// that before decoding). On an error `out` may be partly written.
void decode_image_into(const ByteSource& source, const Tensor& out, const DecodeOptions& options = {});
// ByteSource::from_file(path) then decode_image.
Tensor read_image(const std::filesystem::path& path, const DecodeOptions& options = {});
Tensor read_image_frames(const std::filesystem::path& path, const DecodeOptions& options = {});

enum class ChromaSubsampling { k444, k422, k420 };

struct JpegEncodeOptions {
  int quality = 75;  // 1..100, libjpeg's scale (as Pillow and torchvision)
  ChromaSubsampling subsampling = ChromaSubsampling::k420;
  bool progressive = false;
  bool optimize = false;     // optimal Huffman tables (progressive files always have them)
  int restart_interval = 0;  // MCUs between restart markers (lets decoders resynchronise); 0: none
  Layout layout = Layout::kCHW;
};

struct PngEncodeOptions {
  int compression_level = 6;  // zlib level 0..9
  Layout layout = Layout::kCHW;
};

struct WebpEncodeOptions {
  // Lossy: 0..100 (Pillow's default 80). Lossless: the effort spent on compression, 0..100.
  float quality = 80;
  bool lossless = false;  // exact pixels back, alpha and the color under transparent pixels too
  int method = 4;         // 0 (fast) .. 6 (slow, smaller), as cwebp -m and Pillow
  Layout layout = Layout::kCHW;
};

// JPEG: uint8 with 1 (gray) or 3 (RGB) channels. PNG: uint8 or uint16 with 1 to 4 channels. WebP:
// uint8 with 1 to 4 channels (gray is stored as RGB; alpha is kept).
// Throws Error(kInvalidInput) for other shapes, dtypes or option values.
std::vector<uint8_t> encode_jpeg(const Tensor& image, const JpegEncodeOptions& options = {});
std::vector<uint8_t> encode_png(const Tensor& image, const PngEncodeOptions& options = {});
std::vector<uint8_t> encode_webp(const Tensor& image, const WebpEncodeOptions& options = {});

struct WriteOptions {
  JpegEncodeOptions jpeg;
  PngEncodeOptions png;
  WebpEncodeOptions webp;
  bool overwrite = true;  // false: an existing file is an Error(kIo) and is left alone
};

// Encodes by the extension of `path` (.jpg/.jpeg, .png or .webp; anything else is Error(kUnsupported)) and
// writes atomically (temporary file in the same folder, then rename). `layout` is taken from the
// options of the chosen format.
void write_image(const Tensor& image, const std::filesystem::path& path, const WriteOptions& options = {});

}  // namespace loom::vision

LOOM_API_END
