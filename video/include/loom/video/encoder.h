// VideoEncoder: uint8 RGB frames (NCHW or NHWC batches) to a video file (mp4, mov, mkv, webm, avi)
// through FFmpeg's encoders and muxers, with an optional audio track; written atomically.
//
// Colour: input frames are 8-bit RGB, taken as sRGB, full range. A YUV pixel format is produced with
// swscale using BT.709 coefficients when the frame is HD (height >= 720 or width >= 1280) and BT.601
// (SMPTE 170M) below that, in limited ("tv", 16-235) range; the stream is tagged accordingly
// (colour primaries, transfer, matrix and range) so that decoders and ffprobe see the same choice.
// 8-bit RGB pixel formats (bgr0, rgb24, bgra, ...) are tagged BT.709 primaries, sRGB transfer, "gbr"
// matrix and full range, and hold the input values unchanged: ffv1 + bgr0, and libx264rgb + rgb24/bgr0
// with codec_options {"qp", "0"}, round trip bit-exact.
//
// Atomicity: the file is written through a loom::AtomicFile (loom/codec/atomic_file.h): a hidden
// temporary ".NAME.loom-XXXXXX" in the destination folder, registered with loom::remove_pending_files()
// (so a SIGINT/SIGTERM handler that calls it leaves no partial file), committed over `path` by close().
// An encoder destroyed without close(), or aborted by an error, removes its temporary file: `path` is
// then untouched (an existing file keeps its old contents). With overwrite == false, an existing `path`
// is Error(kIo) from open(). Output is local files only: no protocol is involved, the muxer writes to the temporary
// file's descriptor.
//
// Thread safety: one VideoEncoder must not be used from two threads at once; distinct encoders are
// independent.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "loom/codec/api.h"
#include "loom/codec/layout.h"
#include "loom/codec/tensor.h"

LOOM_API_BEGIN

namespace loom::video {

struct EncoderOptions {
  // FFmpeg encoder name ("libx264", "libvpx-vp9", "mpeg4", "ffv1", "libsvtav1", "libaom-av1",
  // "librav1e", ...), a codec name whose default encoder is used ("h264", "vp9", ...), or "av1" for the
  // first AV1 encoder present among libsvtav1, libaom-av1, librav1e. Empty: the container's default,
  // libx264 for mp4/mov/mkv, libvpx-vp9 for webm, mpeg4 for avi. An encoder that this FFmpeg lacks is
  // Error(kUnsupported) naming it; so is a codec the container cannot hold.
  std::string codec;
  // Frames per second (> 0). Stored as a rational: integers exactly, NTSC rates (29.97, 23.976, 59.94,
  // within 0.01) as N*1000/1001, others through av_d2q.
  double fps = 30;
  // Constant-quality factor: the encoder's "crf" option (x264 0-51, vp9/aom/svt-av1 0-63), rav1e's
  // "qp" (0-255), the fixed quantiser (qscale 1-31) for mpeg4. Unset: the encoder's default. Codecs
  // without such a control (ffv1, lossless) throw Error(kUnsupported) when it is set.
  std::optional<int> crf;
  // Speed/size trade-off: the encoder's "preset" (x264 "ultrafast".."placebo", SVT-AV1 "0".."13"),
  // else "cpu-used" (libvpx, libaom), else "speed" (rav1e). Empty: the encoder's default. A codec
  // with none of them throws Error(kUnsupported) when it is set.
  std::string preset;
  // FFmpeg pixel format name of the encoded stream: "yuv420p" (default), "yuv422p", "yuv444p", or an
  // RGB format for lossless RGB ("bgr0" with ffv1: FFmpeg 5.1's ffv1 has no 8-bit "gbrp"; "rgb24" or
  // "bgr0" with libx264rgb). The
  // encoder must support it (else Error(kUnsupported) listing the ones it does). Chroma-subsampled
  // formats need frame sizes that are multiples of the subsampling (even width and height for
  // yuv420p): other sizes are Error(kInvalidInput) from open(); nothing is padded or cropped.
  std::string pixel_format = "yuv420p";
  // Encoder threads; 0 lets the encoder choose.
  int num_threads = 0;
  Layout dimension_order = Layout::kCHW;  // of the batches given to write(); channels R, G, B
  // Extra encoder options passed to avcodec_open2 (e.g. {"g", "12"}, {"tune", "film"}, {"lossless",
  // "1"}, {"bf", "0"}). An option the encoder does not know is Error(kInvalidInput).
  std::map<std::string, std::string> codec_options;
  bool overwrite = true;  // false: an existing file is an Error(kIo) and is left alone
};

struct AudioTrack {
  // float32 [channels, samples] in [-1, 1], on the CPU.
  Tensor samples;
  int sample_rate = 0;
  // FFmpeg encoder name; empty: the container's default, "aac" for mp4/mov, "libopus" for webm, "flac"
  // for mkv, "libmp3lame" for avi. When the encoder cannot take `sample_rate` (Opus: 8/12/16/24/48 kHz)
  // the audio is resampled to the lowest supported rate above it (else the highest).
  std::string codec;
};

class VideoEncoder {
 public:
  // Opens an encoder for width x height frames. The container comes from the extension of `path`
  // (.mp4, .mov, .mkv, .webm, .avi; else Error(kUnsupported)). The temporary file is created now;
  // `path` itself is only replaced by close(). Throws Error(kInvalidInput) for bad sizes, fps, options
  // or an audio track that is not float32 [C, N] with C >= 1 and a rate > 0, Error(kUnsupported) for a
  // missing encoder or a codec/pixel format the container or encoder cannot take, Error(kIo) when the
  // folder cannot be written or `path` is a folder.
  static VideoEncoder open(const std::filesystem::path& path, int width, int height, const EncoderOptions& options = {},
                           const std::optional<AudioTrack>& audio = std::nullopt);

  VideoEncoder(VideoEncoder&&) noexcept;
  VideoEncoder& operator=(VideoEncoder&&) noexcept;
  // Without close(): removes the temporary file; `path` stays as it was.
  ~VideoEncoder();

  // Appends a batch of uint8 CPU frames, [N, 3, H, W] or [N, H, W, 3] per options.dimension_order,
  // any strides; H and W must be the size given to open(). N == 0 does nothing. A bad batch (dtype,
  // device, rank, channel count, size) throws Error(kInvalidInput/kUnsupported) before anything is
  // encoded and leaves the encoder usable. Any other failure (encoder, disk) aborts the encoder: its
  // temporary file is removed and later calls throw Error(kInvalidInput). After close() every call
  // throws Error(kInvalidInput).
  void write(const Tensor& frames);

  // Flushes the encoders, writes the rest of the audio track and the container trailer, syncs and
  // renames the file into place. Throws as write() does (the temporary file is then removed and `path`
  // untouched); calling it again after it succeeded does nothing.
  void close();

  // Frames written so far.
  int64_t frames_written() const;
  // The encoder actually used (e.g. "libsvtav1" for "av1"), and the frame rate as num/den.
  const std::string& codec_name() const;
  int fps_num() const;
  int fps_den() const;

 private:
  struct LOOM_HIDDEN Impl;
  explicit VideoEncoder(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// open + write(frames) + close in one call. `frames` as for write(); `fps` overrides options.fps.
void encode_video(const std::filesystem::path& path, const Tensor& frames, double fps,
                  const EncoderOptions& options = {}, const std::optional<AudioTrack>& audio = std::nullopt);

}  // namespace loom::video

LOOM_API_END
