// loom.samplers: clip samplers after torchcodec.samplers, over loom::video's samplers (every frame of
// every clip decoded in one batch). They return a FrameBatch whose data is [num_clips,
// num_frames_per_clip, ...] and whose pts_seconds / duration_seconds are float64 [num_clips,
// num_frames_per_clip].
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <string>
#include <utility>
#include <vector>

#include "bindings.h"
#include "loom/video/samplers.h"
#include "media_py.h"
#include "tensor_py.h"

namespace loom::python {
namespace {

using namespace nb::literals;

video::Policy policy_from(const std::string& name) {
  if (name == "repeat_last") return video::Policy::kRepeatLast;
  if (name == "wrap") return video::Policy::kWrap;
  if (name == "error") return video::Policy::kError;
  throw nb::value_error(("policy must be 'repeat_last', 'wrap' or 'error', not '" + name + "'").c_str());
}

nb::object clips_to_python(video::Clips clips) {
  std::vector<double> pts, duration;
  for (const auto& clip : clips.pts_seconds) pts.insert(pts.end(), clip.begin(), clip.end());
  for (const auto& clip : clips.duration_seconds) duration.insert(duration.end(), clip.begin(), clip.end());
  const std::vector<int64_t> shape = {clips.data.size(0), clips.data.size(1)};
  return media_type("FrameBatch")(to_python(std::move(clips.data)), to_python(doubles_tensor(pts, shape)),
                                  to_python(doubles_tensor(duration, shape)));
}

video::IndexClipOptions index_options(int num_clips, int num_frames_per_clip, int num_indices_between_frames,
                                      int64_t sampling_range_start, std::optional<int64_t> sampling_range_end,
                                      const std::string& policy) {
  video::IndexClipOptions o;
  o.num_clips = num_clips;
  o.num_frames_per_clip = num_frames_per_clip;
  o.num_indices_between_frames = num_indices_between_frames;
  o.sampling_range_start = sampling_range_start;
  o.sampling_range_end = sampling_range_end;
  o.policy = policy_from(policy);
  return o;
}

video::TimestampClipOptions timestamp_options(int num_clips, std::optional<double> seconds_between_clip_starts,
                                              int num_frames_per_clip, std::optional<double> seconds_between_frames,
                                              std::optional<double> sampling_range_start,
                                              std::optional<double> sampling_range_end, const std::string& policy) {
  video::TimestampClipOptions o;
  o.num_clips = num_clips;
  o.seconds_between_clip_starts = seconds_between_clip_starts;
  o.num_frames_per_clip = num_frames_per_clip;
  o.seconds_between_frames = seconds_between_frames;
  o.sampling_range_start = sampling_range_start;
  o.sampling_range_end = sampling_range_end;
  o.policy = policy_from(policy);
  return o;
}

template <typename Sample>
nb::object sample(VideoDecoderPy& decoder, Sample&& sample_clips) {
  video::Clips clips;
  {
    nb::gil_scoped_release unlocked;
    std::lock_guard busy(decoder.busy);
    clips = sample_clips(*decoder.decoder);
  }
  return clips_to_python(std::move(clips));
}

}  // namespace

void bind_samplers(nb::module_& m) {
  m.def(
      "clips_at_random_indices",
      [](VideoDecoderPy& decoder, uint64_t seed, int num_clips, int num_frames_per_clip, int num_indices_between_frames,
         int64_t sampling_range_start, std::optional<int64_t> sampling_range_end, const std::string& policy) {
        const auto o = index_options(num_clips, num_frames_per_clip, num_indices_between_frames, sampling_range_start,
                                     sampling_range_end, policy);
        return sample(decoder, [&](video::VideoDecoder& d) { return video::clips_at_random_indices(d, seed, o); });
      },
      "decoder"_a, "seed"_a, "num_clips"_a, "num_frames_per_clip"_a, "num_indices_between_frames"_a,
      "sampling_range_start"_a, "sampling_range_end"_a.none(), "policy"_a);
  m.def(
      "clips_at_regular_indices",
      [](VideoDecoderPy& decoder, int num_clips, int num_frames_per_clip, int num_indices_between_frames,
         int64_t sampling_range_start, std::optional<int64_t> sampling_range_end, const std::string& policy) {
        const auto o = index_options(num_clips, num_frames_per_clip, num_indices_between_frames, sampling_range_start,
                                     sampling_range_end, policy);
        return sample(decoder, [&](video::VideoDecoder& d) { return video::clips_at_regular_indices(d, o); });
      },
      "decoder"_a, "num_clips"_a, "num_frames_per_clip"_a, "num_indices_between_frames"_a, "sampling_range_start"_a,
      "sampling_range_end"_a.none(), "policy"_a);
  m.def(
      "clips_at_random_timestamps",
      [](VideoDecoderPy& decoder, uint64_t seed, int num_clips, int num_frames_per_clip,
         std::optional<double> seconds_between_frames, std::optional<double> sampling_range_start,
         std::optional<double> sampling_range_end, const std::string& policy) {
        const auto o = timestamp_options(num_clips, std::nullopt, num_frames_per_clip, seconds_between_frames,
                                         sampling_range_start, sampling_range_end, policy);
        return sample(decoder, [&](video::VideoDecoder& d) { return video::clips_at_random_timestamps(d, seed, o); });
      },
      "decoder"_a, "seed"_a, "num_clips"_a, "num_frames_per_clip"_a, "seconds_between_frames"_a.none(),
      "sampling_range_start"_a.none(), "sampling_range_end"_a.none(), "policy"_a);
  m.def(
      "clips_at_regular_timestamps",
      [](VideoDecoderPy& decoder, double seconds_between_clip_starts, int num_frames_per_clip,
         std::optional<double> seconds_between_frames, std::optional<double> sampling_range_start,
         std::optional<double> sampling_range_end, const std::string& policy) {
        const auto o = timestamp_options(1, seconds_between_clip_starts, num_frames_per_clip, seconds_between_frames,
                                         sampling_range_start, sampling_range_end, policy);
        return sample(decoder, [&](video::VideoDecoder& d) { return video::clips_at_regular_timestamps(d, o); });
      },
      "decoder"_a, "seconds_between_clip_starts"_a, "num_frames_per_clip"_a, "seconds_between_frames"_a.none(),
      "sampling_range_start"_a.none(), "sampling_range_end"_a.none(), "policy"_a);
}

}  // namespace loom::python
