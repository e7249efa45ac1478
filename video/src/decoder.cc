// VideoDecoder: the output assembly. It asks the seek rules (seek_rules.h) which frames an index or a
// time names, the frame source (frame_source.h: demux and decode) for those frames, and the decode
// backend (decode_backend.h: CPU, or CUDA/NVDEC) to convert each into its slot of the output tensor, which
// lives on the backend's device.
#include "loom/video/decoder.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <numeric>
#include <optional>
#include <vector>

#include "decode_backend.h"
#include "frame_index.h"
#include "frame_source.h"
#include "loom/accel/cuda.h"
#include "loom/accel/device_memory.h"
#include "loom/accel/stream.h"
#include "loom/codec/error.h"
#include "seek_rules.h"
#include "stream_metadata.h"

namespace loom::video {
namespace {

// Quarter turns counter-clockwise that show a stream of display rotation `degrees` (counter-clockwise,
// as ffprobe reports it) upright: 0 to 3; 0 for angles that are not a multiple of 90.
int quarter_turns(double degrees) {
  const double turns = degrees / 90.0;
  if (turns != std::round(turns)) return 0;
  return static_cast<int>(((static_cast<int64_t>(std::round(turns)) % 4) + 4) % 4);
}

// `frames` (N x 3 x H x W, or N x H x W x 3 for kHWC) turned counter-clockwise by `turns` quarter
// turns, as a new contiguous tensor (np.rot90 over the H and W axes).
Tensor rotate_frames(const Tensor& frames, int turns, Layout layout) {
  const int h = layout == Layout::kHWC ? 1 : 2, w = h + 1;
  auto flip = [](const Tensor& t, int dim) { return t.slice(dim, -1, INT64_MIN, -1); };
  auto transpose = [&](const Tensor& t) {
    std::vector<int> dims = {0, 1, 2, 3};
    std::swap(dims[h], dims[w]);
    return t.permute(dims);
  };
  switch (turns) {
    case 1: return transpose(flip(frames, w)).contiguous();
    case 2: return flip(flip(frames, h), w).contiguous();
    case 3: return transpose(flip(frames, h)).contiguous();
    default: return frames;
  }
}

}  // namespace

using detail::FrameTarget;

struct VideoDecoder::Impl {
  Impl(std::string input, const DecoderOptions& opts)
      : name(std::move(input)),
        options(opts),
        backend(detail::make_decode_backend(opts, name)),
        source(name, opts.limits) {}

  std::string name;
  DecoderOptions options;                          // output_size: the current one
  std::unique_ptr<detail::DecodeBackend> backend;  // outlives the decoder it configured (source's)
  detail::FrameSource source;
  std::unique_ptr<detail::SeekRules> rules;
  StreamMetadata meta;
  int out_width = 0, out_height = 0;  // of the decoded frames, before rotation
  int turns = 0;                      // quarter turns counter-clockwise applied to the output

  void setup();  // after the input is open: stream, decoder, output size, metadata, seek rules
  std::unique_ptr<detail::SeekRules> make_seek_rules();  // scans the packets for the exact rules
  void set_output_size(std::optional<Size> size);        // validates it

  int64_t normalize_index(int64_t i) const;
  void check_time(double t) const;
  std::vector<FrameTarget> targets_of(std::span<const int64_t> indices) const;

  Tensor allocate(int64_t n) const;
  detail::OutputSlot slot_of(const Tensor& out, int64_t slot) const;
  void copy_slot(const Tensor& out, int64_t from, int64_t to) const;
  // Decodes `targets` (in the caller's order) into one batch.
  Frames decode(std::span<const FrameTarget> targets);
};

// ---------------------------------------------------------------------------------------------------
// Opening

void VideoDecoder::Impl::setup() {
  if (options.num_threads < 0) {
    throw Error(ErrorCode::kInvalidInput, name, fmt::format("num_threads must be >= 0, got {}", options.num_threads));
  }
  source.open_stream(options.stream_index, *backend, options);
  meta = detail::describe_stream(source.format(), source.stream());
  turns = options.apply_rotation ? quarter_turns(meta.stream.rotation) : 0;
  if (turns != 0 && !backend->device().is_cpu()) {
    throw Error(ErrorCode::kUnsupported, name,
                fmt::format("apply_rotation on a CUDA device: the stream is rotated by {} degrees, and frames are "
                            "turned on the CPU only (decode without apply_rotation, or on the CPU)",
                            meta.stream.rotation));
  }
  set_output_size(options.output_size);
  rules = make_seek_rules();
  rules->describe(meta);
  source.set_first_pts(rules->first_pts());
}

std::unique_ptr<detail::SeekRules> VideoDecoder::Impl::make_seek_rules() {
  std::unique_ptr<detail::SeekRules> approximate;
  if (!options.custom_index && options.seek_mode == SeekMode::kApproximate) {
    detail::HeaderTiming header;
    header.num_frames = meta.stream.num_frames;
    header.duration_seconds = meta.stream.duration_seconds;
    header.average_fps = meta.stream.average_fps;
    if (source.stream().start_time != AV_NOPTS_VALUE) header.start_pts = source.stream().start_time;
    header.time_base = source.time_base();
    approximate = detail::approximate_rules(header);  // nullptr: nothing to trust, scan instead
  }
  const int64_t max_frames = options.limits.max_video_frames;
  const int64_t declared = approximate            ? approximate->num_frames()
                           : options.custom_index ? static_cast<int64_t>(options.custom_index->size())
                                                  : 0;
  if (max_frames > 0 && declared > max_frames) {
    throw Error(ErrorCode::kLimitExceeded, name,
                fmt::format("the video stream declares more than {} frames (Limits::max_video_frames)", max_frames));
  }
  if (approximate) return approximate;
  std::vector<detail::IndexedFrame> frames =
      options.custom_index ? detail::from_custom_index(*options.custom_index, name) : source.scan(max_frames);
  return detail::exact_rules(std::move(frames), source.nominal_duration(), source.time_base(), name);
}

void VideoDecoder::Impl::set_output_size(std::optional<Size> size) {
  if (size && (size->height <= 0 || size->width <= 0)) {
    throw Error(ErrorCode::kInvalidInput, name,
                fmt::format("output_size must be positive, got {}x{} (height x width)", size->height, size->width));
  }
  if (size && (size->height > INT_MAX || size->width > INT_MAX)) {
    throw Error(ErrorCode::kLimitExceeded, name,
                fmt::format("output_size {}x{} (height x width) is too large", size->height, size->width));
  }
  const AVCodecParameters* par = source.stream().codecpar;
  // A size asked for is that of the frames returned: decode turned by a quarter turn sideways.
  const bool sideways = turns % 2 == 1;
  const int width = size ? static_cast<int>(sideways ? size->height : size->width) : par->width;
  const int height = size ? static_cast<int>(sideways ? size->width : size->height) : par->height;
  check_image_size(options.limits, name, width, height, 3, 1);
  options.output_size = size;
  out_width = width;
  out_height = height;
}

// ---------------------------------------------------------------------------------------------------
// Indices, times and output

int64_t VideoDecoder::Impl::normalize_index(int64_t i) const {
  const int64_t n = rules->num_frames();
  if (i < -n || i >= n) {
    throw Error(
        ErrorCode::kInvalidInput, name,
        fmt::format("frame index {} is out of range: the video has {} frames (valid: {} to {})", i, n, -n, n - 1));
  }
  return i < 0 ? i + n : i;
}

void VideoDecoder::Impl::check_time(double t) const {
  if (!(t >= rules->begin_seconds() && t < rules->end_seconds())) {
    throw Error(ErrorCode::kInvalidInput, name,
                fmt::format("time {} s is outside the video's frames [{:.6f}, {:.6f}) s", t, rules->begin_seconds(),
                            rules->end_seconds()));
  }
}

// `indices` are normalized (0 <= i < num_frames).
std::vector<FrameTarget> VideoDecoder::Impl::targets_of(std::span<const int64_t> indices) const {
  std::vector<FrameTarget> targets;
  targets.reserve(indices.size());
  for (int64_t i : indices) targets.push_back(rules->target_of(i));
  return targets;
}

// Output tensors live on the backend's device (a CUDA one: from accel's caching allocator, for the
// current stream, on which the conversions are queued).
Tensor VideoDecoder::Impl::allocate(int64_t n) const {
  const uint64_t bytes = static_cast<uint64_t>(n) * 3 * static_cast<uint64_t>(out_width) * out_height;
  if (options.limits.max_bytes > 0 && bytes > options.limits.max_bytes) {
    throw Error(ErrorCode::kLimitExceeded, name,
                fmt::format("{} frames of {}x{} need {} bytes, more than Limits::max_bytes ({})", n, out_width,
                            out_height, bytes, options.limits.max_bytes));
  }
  const Device device = backend->device();
  const bool hwc = options.dimension_order == Layout::kHWC;
  if (!device.is_cpu()) {
    const accel::Stream stream = accel::current_stream(device.index);
    if (hwc) return accel::empty_device({n, out_height, out_width, 3}, DType::kUInt8, device, stream);
    return accel::empty_device({n, 3, out_height, out_width}, DType::kUInt8, device, stream);
  }
  if (hwc) return Tensor::empty({n, out_height, out_width, 3}, DType::kUInt8);
  return Tensor::empty({n, 3, out_height, out_width}, DType::kUInt8);
}

detail::OutputSlot VideoDecoder::Impl::slot_of(const Tensor& out, int64_t slot) const {
  const size_t bytes = static_cast<size_t>(out_width) * out_height * 3;
  return {static_cast<uint8_t*>(out.data()) + slot * bytes, out_width, out_height, options.dimension_order};
}

void VideoDecoder::Impl::copy_slot(const Tensor& out, int64_t from, int64_t to) const {
  if (!out.device().is_cpu()) {
    accel::copy_into(out.select(0, from), out.select(0, to), accel::current_stream(out.device().index));
    return;
  }
  const size_t bytes = static_cast<size_t>(out_width) * out_height * 3;
  uint8_t* base = static_cast<uint8_t*>(out.data());
  std::memcpy(base + to * bytes, base + from * bytes, bytes);
}

// Decoded in ascending order (each frame once, repeats copied), returned in the caller's order.
Frames VideoDecoder::Impl::decode(std::span<const FrameTarget> targets) {
  const auto n = static_cast<int64_t>(targets.size());
  Frames out;
  out.data = allocate(n);
  out.pts_seconds.resize(n);
  out.duration_seconds.resize(n);
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return detail::decode_before(targets[a], targets[b]); });
  int64_t prev_slot = -1;
  for (int64_t slot : order) {
    const FrameTarget& target = targets[slot];
    if (prev_slot >= 0 && target.index >= 0 && targets[prev_slot].index == target.index) {
      copy_slot(out.data, prev_slot, slot);
      out.pts_seconds[slot] = out.pts_seconds[prev_slot];
      out.duration_seconds[slot] = out.duration_seconds[prev_slot];
      continue;
    }
    const detail::FrameTimes times = source.decode(target);
    out.pts_seconds[slot] = times.pts_seconds;
    out.duration_seconds[slot] = times.duration_seconds;
    backend->convert(source.frame(), slot_of(out.data, slot));
    prev_slot = slot;
  }
  out.data = rotate_frames(out.data, turns, options.dimension_order);
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Public API

VideoDecoder::VideoDecoder(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
VideoDecoder::VideoDecoder(VideoDecoder&&) noexcept = default;
VideoDecoder& VideoDecoder::operator=(VideoDecoder&&) noexcept = default;
VideoDecoder::~VideoDecoder() = default;

VideoDecoder VideoDecoder::open(const std::filesystem::path& path, const DecoderOptions& options) {
  auto impl = std::make_unique<Impl>(path.string(), options);
  impl->source.arm();
  impl->source.open_input(path);
  impl->setup();
  return VideoDecoder(std::move(impl));
}

VideoDecoder VideoDecoder::open(const ByteSource& source, const DecoderOptions& options) {
  if (options.limits.max_bytes > 0 && source.size() > options.limits.max_bytes) {
    throw Error(ErrorCode::kLimitExceeded, source.name(),
                fmt::format("{} bytes is more than Limits::max_bytes ({})", source.size(), options.limits.max_bytes));
  }
  auto impl = std::make_unique<Impl>(source.name(), options);
  impl->source.arm();
  impl->source.open_input(source);
  impl->setup();
  return VideoDecoder(std::move(impl));
}

const StreamMetadata& VideoDecoder::metadata() const {
  return impl_->meta;
}

int64_t VideoDecoder::num_frames() const {
  return impl_->rules->num_frames();
}

Device VideoDecoder::device() const {
  return impl_->backend->device();
}

const DecodeStats& VideoDecoder::decode_stats() const {
  return impl_->source.stats();
}

void VideoDecoder::set_output_size(std::optional<Size> size) {
  impl_->set_output_size(size);
}

Frame VideoDecoder::get_frame_at(int64_t index) {
  const int64_t i = impl_->normalize_index(index);
  impl_->source.arm();
  Frames f = impl_->decode(impl_->targets_of(std::span<const int64_t>(&i, 1)));
  return {f.data.select(0, 0), f.pts_seconds[0], f.duration_seconds[0]};
}

Frames VideoDecoder::get_frames_at(std::span<const int64_t> indices) {
  std::vector<int64_t> normalized;
  normalized.reserve(indices.size());
  for (int64_t i : indices) normalized.push_back(impl_->normalize_index(i));
  impl_->source.arm();
  return impl_->decode(impl_->targets_of(normalized));
}

Frames VideoDecoder::get_frames_in_range(int64_t start, int64_t stop, int64_t step) {
  if (step <= 0) throw Error(ErrorCode::kInvalidInput, impl_->name, fmt::format("step must be positive, got {}", step));
  const int64_t n = num_frames();
  auto clamp = [n](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + n : v, 0, n); };
  std::vector<int64_t> indices;
  for (int64_t i = clamp(start); i < clamp(stop); i += step) indices.push_back(i);
  impl_->source.arm();
  return impl_->decode(impl_->targets_of(indices));
}

Frame VideoDecoder::get_frame_played_at(double seconds) {
  Frames f = get_frames_played_at(std::span<const double>(&seconds, 1));
  return {f.data.select(0, 0), f.pts_seconds[0], f.duration_seconds[0]};
}

Frames VideoDecoder::get_frames_played_at(std::span<const double> seconds) {
  Impl& d = *impl_;
  for (double t : seconds) d.check_time(t);
  d.source.arm();
  std::vector<FrameTarget> targets;
  targets.reserve(seconds.size());
  for (double t : seconds) targets.push_back(d.rules->target_played_at(t));
  return d.decode(targets);
}

int64_t VideoDecoder::index_played_at(double seconds) const {
  const Impl& d = *impl_;
  d.check_time(seconds);
  return d.rules->index_played_at(seconds);
}

Frames VideoDecoder::get_frames_played_in_range(double begin, double end) {
  Impl& d = *impl_;
  if (!(end >= begin)) {
    throw Error(ErrorCode::kInvalidInput, d.name, fmt::format("range end {} s is before its begin {} s", end, begin));
  }
  d.check_time(begin);
  std::vector<int64_t> indices;
  if (end > begin) {
    const auto [first, last] = d.rules->indices_played_in(begin, end);  // [first, last)
    for (int64_t i = first; i < last; ++i) indices.push_back(i);
  }
  d.source.arm();
  return d.decode(d.targets_of(indices));
}

}  // namespace loom::video
