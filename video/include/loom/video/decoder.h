// VideoDecoder: frames of one video stream as uint8 RGB tensors, by index or by presentation time.
//
// Semantics follow TorchCodec's VideoDecoder:
// - Frame i is the i-th frame in presentation order (sorted by pts), counted from 0. Negative indices
//   count from the end (-1 is the last frame). An index outside [-num_frames, num_frames) throws
//   Error(kInvalidInput) ("index out of range").
// - A frame is "played" during the half-open interval [pts, next frame's pts); the last frame during
//   [pts, pts + duration). (Like TorchCodec, the next pts rather than the duration bounds a frame, so
//   wrong or zero durations do not leave gaps.) get_frame_played_at(t) returns the frame whose
//   interval contains t. Times are in seconds on the stream's clock (the numbers ffprobe prints as
//   pts_time). A time before begin_stream_seconds or at/after end_stream_seconds throws
//   Error(kInvalidInput).
// - Ranges are half-open: get_frames_in_range(start, stop, step) returns start, start+step, ... < stop;
//   get_frames_played_in_range(t0, t1) returns every frame played during [t0, t1): the one played at
//   t0, then every frame with pts < t1.
// - Every frame carries pts_seconds and duration_seconds.
//
// Seek modes: kExact (default) scans every packet once at open to build a frame index (pts, duration
// and keyframe of every frame): indices and times are right with B-frames, variable frame rate, edit
// lists and headers that lie. kApproximate trusts the header instead (frame count from the header, or
// duration * average fps; frame i is the one played at begin + (i + 0.5) / average_fps, times are
// resolved by decoding after a seek, and a stream whose header gives neither count nor rate is scanned
// as in kExact): opening is fast, results match
// kExact on constant-frame-rate files with correct headers but may be off by a frame on variable-rate
// files or when the header is wrong. A custom FrameIndex (e.g. from `ffprobe -show_frames`) gives
// exact results without the scan.
//
// Output: uint8 RGB, [N, 3, H, W] (Layout::kCHW, default) or [N, H, W, 3] (Layout::kHWC); a single frame drops N.
// Colour conversion is libswscale's, with the matrix (BT.601, BT.709, BT.2020, ...) and range
// (limited/full) of each decoded frame (BT.601 when the stream does not say), the way the ffmpeg CLI's
// scale filter does it, with SWS_BILINEAR; 10-bit sources convert directly. An output_size resizes in
// the same swscale pass. Rotation metadata is reported, and applied only with apply_rotation.
//
// Errors: loom::Error naming the input. kInvalidInput for unreadable, corrupt or truncated media and
// for out-of-range indices or times; kUnsupported for formats outside the whitelist (playlists, concat
// lists and network protocols are refused) or without a decoder; kLimitExceeded past Limits
// (max_pixels, max_bytes, deadline_seconds on every blocking call); kIo when a file cannot be read.
// A truncated file yields the frames before the cut; asking for a later frame throws kInvalidInput.
//
// Device decode (DecoderOptions::device = Device::cuda(i)): packets are demuxed and seeked on the CPU
// exactly as above (same indices, times and seek rules); NVDEC decodes them into NV12/P010 surfaces on
// the device, and a CUDA kernel converts each into its output frame with the frame's own matrix and
// range, as swscale reads it (within 2 levels of the CPU frames for 8-bit sources, 4 for 10-bit). With
// an output_size other than the coded size, or a surface format other than NV12/P010/P016, the surface
// is copied to the host, converted (and resized) by swscale as on the CPU, and copied back. The work is
// queued on loom::accel::current_stream(i) (loom/accel/stream.h) and may still run when a call
// returns: the returned tensors are ready once that stream has passed it (synchronize the stream, or
// wait on an event recorded there), as for loom's other device operations. apply_rotation with a
// rotated stream is not supported on a CUDA device (Error(kUnsupported) at open).
//
// Thread safety: a VideoDecoder is used by one thread at a time (its methods are not const because
// they move the decode position). Distinct decoders are independent and may run on different threads.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "loom/codec/api.h"
#include "loom/codec/byte_source.h"
#include "loom/codec/layout.h"
#include "loom/codec/limits.h"
#include "loom/codec/size.h"
#include "loom/codec/tensor.h"
#include "loom/video/metadata.h"

LOOM_API_BEGIN

namespace loom::video {

enum class SeekMode { kExact, kApproximate };

// A caller-supplied frame index, in the stream's time base (ffprobe -show_frames "pts"/"duration"
// fields, or "pkt_dts" where pts is missing). Entries may come in any order; they are sorted by pts.
// A frame with duration <= 0 plays until the next frame's pts.
struct FrameIndexEntry {
  int64_t pts = 0;
  int64_t duration = 0;
  bool key_frame = false;
};
using FrameIndex = std::vector<FrameIndexEntry>;

struct DecoderOptions {
  // Video stream to decode; -1 picks FFmpeg's best video stream.
  int stream_index = -1;
  SeekMode seek_mode = SeekMode::kExact;
  // When set, used instead of the scan (seek_mode is then ignored).
  std::optional<FrameIndex> custom_index;
  // FFmpeg decoding threads; 0 lets FFmpeg choose.
  int num_threads = 1;
  Layout dimension_order = Layout::kCHW;
  // Output height and width (both > 0); unset keeps the stream's size (turned with the frames when
  // apply_rotation turns them by 90 or 270 degrees: it is the size of the frames returned).
  std::optional<Size> output_size;
  // Turn the frames as the stream's display matrix says (StreamInfo::rotation, a multiple of 90
  // degrees; other angles are left alone), as ffmpeg's autorotate and players show them. Off by
  // default, as in TorchCodec; metadata keeps the coded size either way.
  bool apply_rotation = false;
  // Where frames are decoded and returned. Device::cpu(): FFmpeg's software decoders and swscale.
  // Device::cuda(i): NVDEC through FFmpeg's CUDA hwaccel on CUDA device i, the colour conversion by a
  // CUDA kernel, frames returned as tensors on that device (see "Device decode" below). Without
  // cpu_fallback, a stream NVDEC cannot decode throws Error(kUnsupported) naming the file and why: a
  // build without CUDA, no such device, no CUDA decoder in FFmpeg for the codec (at open), a profile or
  // bit depth the GPU's decoder refuses (at the first decoded frame).
  Device device = Device::cpu();
  // With a CUDA device: decode on the CPU where NVDEC cannot, instead of throwing. Frames still come
  // out on the CUDA device when there is one (converted by swscale, then copied), else on the CPU;
  // VideoDecoder::device() tells which. Ignored for the CPU.
  bool cpu_fallback = false;
  Limits limits;
};

// The stream the decoder reads: its headers (VideoMetadata: container, stream, audio_streams; stream.width
// and height are the coded picture size, before output_size), and what the decoder found.
struct StreamMetadata : VideoMetadata {
  // Frames found by the scan (kExact) or given by a custom index; nullopt in kApproximate mode.
  std::optional<int64_t> num_frames_from_content;
  // First frame's pts, and the end of the last frame (pts + duration), in seconds. Exact: from the
  // index; approximate: from the header (start time, start + duration).
  double begin_stream_seconds = 0;
  double end_stream_seconds = 0;
  // Indices of the keyframes (exact mode and custom index; empty in approximate mode).
  std::vector<int64_t> key_frame_indices;
};

struct Frame {
  Tensor data;  // uint8 [3, H, W] or [H, W, 3]
  double pts_seconds = 0;
  double duration_seconds = 0;
};

struct Frames {
  Tensor data;  // uint8 [N, 3, H, W] or [N, H, W, 3]
  std::vector<double> pts_seconds;
  std::vector<double> duration_seconds;
};

// The decode work a VideoDecoder has done since it opened (the packet scan of exact mode aside): what
// a request costs, for benchmarks and tests. A sequential pass sends each packet once; a random frame
// costs the packets from its keyframe to it.
struct DecodeStats {
  int64_t seeks = 0;           // demuxer seeks
  int64_t packets_sent = 0;    // packets given to the decoder
  int64_t frames_decoded = 0;  // frames the decoder returned (the asked ones and those before them)
};

class VideoDecoder {
 public:
  // Opens `path` (a local file) or the bytes of `source`, selects the stream, validates its size
  // against options.limits and, in exact mode, scans its packets. Throws as described above.
  static VideoDecoder open(const std::filesystem::path& path, const DecoderOptions& options = {});
  static VideoDecoder open(const ByteSource& source, const DecoderOptions& options = {});

  VideoDecoder(VideoDecoder&&) noexcept;
  VideoDecoder& operator=(VideoDecoder&&) noexcept;
  ~VideoDecoder();

  const StreamMetadata& metadata() const;
  // The device the frames come out on: options.device, or the CPU when cpu_fallback decodes on the
  // CPU for want of a CUDA device.
  Device device() const;
  // Frames addressable by index: the scanned/custom count, or the header's estimate (approximate).
  int64_t num_frames() const;

  // Changes the size frames come out at (DecoderOptions::output_size; unset: the stream's), e.g. once
  // metadata() has given the stream's size. The index is kept: no rescan. Error(kInvalidInput) for a
  // non-positive size, Error(kLimitExceeded) beyond the limits.
  void set_output_size(std::optional<Size> size);

  // ---- By index (negative counts from the end) ----
  Frame get_frame_at(int64_t index);
  // Any order, repeats allowed; decoded in ascending order (each GOP at most once), returned in the
  // order asked.
  Frames get_frames_at(std::span<const int64_t> indices);
  // start, start + step, ... before stop (half-open; Python slice rules for negative start/stop, which
  // are clamped to the valid range; step > 0).
  Frames get_frames_in_range(int64_t start, int64_t stop, int64_t step = 1);

  // ---- By time (seconds) ----
  // The frame played at `seconds`: pts <= seconds < pts + duration.
  Frame get_frame_played_at(double seconds);
  Frames get_frames_played_at(std::span<const double> seconds);
  // The index of the frame played at `seconds`, without decoding: exact mode (and a custom index)
  // from the index, approximate mode from the header's frame rate (floor((t - begin) * fps), as
  // get_frame_at numbers frames there). Error(kInvalidInput) for a time outside the stream.
  int64_t index_played_at(double seconds) const;
  // Frames played during [begin, end): the frame played at `begin`, then every frame with pts < end.
  // begin must lie in [begin_stream_seconds, end_stream_seconds) and end >= begin (an end past the
  // last frame is allowed); begin == end gives no frame.
  Frames get_frames_played_in_range(double begin, double end);

  const DecodeStats& decode_stats() const;

 private:
  struct LOOM_HIDDEN Impl;
  explicit VideoDecoder(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace loom::video

LOOM_API_END
