// Loader fields beyond images: video clips and audio clips from real files, checked against the
// decoders they come from.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "loom/audio/effects.h"
#include "loom/audio/functional.h"
#include "loom/audio/load.h"
#include "loom/loader/loader.h"
#include "loom/video/decoder.h"
#include "test_media.h"

namespace loom::loader {
namespace {

// Record i: a video ("mp4") and an audio track ("wav"), alternating between two files of each.
class MediaDataset final : public Dataset {
 public:
  MediaDataset() {
    for (const char* v : {"video/h265_video.mp4", "video/nasa_13013.mp4"})
      videos_.push_back(test::read_bytes(test::media(v)));
    for (const char* a : {"audio/sine_mono_s16.wav", "audio/pluck-pcm16.wav"})
      audios_.push_back(test::read_bytes(test::media(a)));
  }
  int64_t size() const override { return 6; }
  Record read(int64_t i) const override {
    Record r;
    r.key = std::to_string(i);
    r.source = "media";
    r.members.push_back({"mp4", ByteSource::from_memory(videos_[i % 2], "v" + r.key)});
    r.members.push_back({"wav", ByteSource::from_memory(audios_[i % 2], "a" + r.key)});
    r.label = i;
    return r;
  }
  std::string name(int64_t i) const override { return "media:" + std::to_string(i); }
  uint64_t fingerprint() const override { return 6; }
  const std::vector<uint8_t>& video(int64_t i) const { return videos_[i % 2]; }
  const std::vector<uint8_t>& audio(int64_t i) const { return audios_[i % 2]; }

 private:
  std::vector<std::vector<uint8_t>> videos_, audios_;
};

LoaderOptions media_options(int threads) {
  LoaderOptions o;
  o.batch_size = 6;
  o.threads = threads;
  o.order.seed = 11;
  FieldSpec clip{.name = "clip", .kind = FieldKind::kVideo};
  clip.video.num_frames = 4;
  clip.video.frame_step = 2;
  clip.video.size = Size{48, 64};
  FieldSpec sound{.name = "sound", .kind = FieldKind::kAudio};
  sound.audio.duration_seconds = 1.0;
  sound.audio.sample_rate = 16000;
  sound.audio.channels = 1;
  o.fields = {clip, sound};
  return o;
}

bool equal(const Tensor& a, const Tensor& b) {
  const Tensor x = a.contiguous(), y = b.contiguous();
  return x.nbytes() == y.nbytes() && std::memcmp(x.data(), y.data(), x.nbytes()) == 0;
}

TEST(LoaderMedia, VideoClipsAreConsecutiveFramesOfTheirFile) {
  const auto data = std::make_shared<const MediaDataset>();
  Loader loader(data, media_options(2));
  const Batch b = *loader.next();
  const Tensor& clips = b["clip"].tensor;
  ASSERT_TRUE(clips.defined());
  EXPECT_EQ(std::vector<int64_t>(clips.shape().begin(), clips.shape().end()), (std::vector<int64_t>{6, 4, 3, 48, 64}));
  std::vector<int64_t> starts;
  for (int64_t i = 0; i < 6; ++i) {
    video::DecoderOptions opt;
    opt.output_size = Size{48, 64};
    auto decoder = video::VideoDecoder::open(ByteSource::from_memory(data->video(b.indices[i])), opt);
    const Tensor all = decoder.get_frames_in_range(0, decoder.metadata().stream.num_frames).data;
    int64_t found = -1;
    for (int64_t s = 0; s + 6 < all.size(0) && found < 0; ++s) {
      if (equal(all.slice(0, s, s + 7, 2), clips.select(0, i))) found = s;
    }
    EXPECT_GE(found, 0) << "sample " << i << ": the clip is no run of frames 2 apart";
    starts.push_back(found);
  }
  // Random starts: not all the same.
  EXPECT_NE(std::count(starts.begin(), starts.end(), starts[0]), 6);
}

TEST(LoaderMedia, AudioClipsAreResampledMixedAndCutFromTheirFile) {
  const auto data = std::make_shared<const MediaDataset>();
  Loader loader(data, media_options(2));
  const Batch b = *loader.next();
  const Tensor& sound = b["sound"].tensor;
  EXPECT_EQ(std::vector<int64_t>(sound.shape().begin(), sound.shape().end()), (std::vector<int64_t>{6, 1, 16000}));
  for (int64_t i = 0; i < 6; ++i) {
    const audio::Audio full = audio::decode(ByteSource::from_memory(data->audio(b.indices[i])));
    Tensor samples = full.samples;
    if (full.sample_rate != 16000) samples = audio::resample(samples, full.sample_rate, 16000);
    if (samples.size(0) != 1) samples = audio::mix_down(samples);
    const Tensor clip = sound.select(0, i);
    if (samples.size(1) <= 16000) {  // the pluck (0.3 s): whole, then zeros
      EXPECT_TRUE(equal(clip.slice(1, 0, samples.size(1)), samples));
      const float* tail = clip.data<float>() + samples.size(1);
      const float* end = clip.data<float>() + 16000;
      EXPECT_TRUE(std::all_of(tail, end, [](float v) { return v == 0.0f; }));
    } else {  // the sine (4 s): some one-second window of it
      bool found = false;
      for (int64_t s = 0; s + 16000 <= samples.size(1) && !found; ++s)
        found = std::memcmp(clip.data(), samples.data<float>() + s, 16000 * sizeof(float)) == 0;
      EXPECT_TRUE(found) << "sample " << i;
    }
  }
}

TEST(LoaderMedia, ClipsAreTheSameOnOneAndTwoThreads) {
  const auto data = std::make_shared<const MediaDataset>();
  Loader one(data, media_options(1)), two(data, media_options(2));
  const Batch a = *one.next(), b = *two.next();
  EXPECT_TRUE(equal(a["clip"].tensor, b["clip"].tensor));
  EXPECT_TRUE(equal(a["sound"].tensor, b["sound"].tensor));
}

}  // namespace
}  // namespace loom::loader
