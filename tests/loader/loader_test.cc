// The loader: determinism across thread counts, resume (also on other thread and rank counts), error
// policies and their report, collation and buffer reuse, epochs, fields, options.
#include "loom/loader/loader.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "loom/accel/cuda.h"
#include "loom/codec/error.h"
#include "loom/transforms/color_transforms.h"
#include "loom/transforms/geometry_transforms.h"
#include "loom/vision/image.h"
#include "synthetic_dataset.h"
#include "test_media.h"

namespace loom::loader {
namespace {
using test::error_code_of;
using test::error_of;
using test::synthetic_image;
using test::SyntheticDataset;

// The ImageNet-style training fields: RandomResizedCrop 32, random flip, label.
std::vector<FieldSpec> training_fields(bool decode_crop = false) {
  std::vector<FieldSpec> fields = default_fields();
  fields[0].image.crop = std::make_shared<transforms::RandomResizedCrop>(Size{32, 32});
  fields[0].image.decode_crop = decode_crop;
  fields[0].image.transform = std::make_shared<transforms::RandomHorizontalFlip>(0.5);
  return fields;
}

LoaderOptions training_options(int threads, int64_t batch = 4) {
  LoaderOptions o;
  o.batch_size = batch;
  o.threads = threads;
  o.order.shuffle = Shuffle::kTorch;
  o.order.seed = 7;
  o.fields = training_fields();
  return o;
}

std::vector<uint8_t> bytes_of(const Tensor& t) {
  const Tensor c = t.contiguous();
  const auto* p = static_cast<const uint8_t*>(c.data());
  return {p, p + c.nbytes()};
}

// Everything a batch holds, comparable.
struct Snapshot {
  int64_t epoch, step;
  std::vector<int64_t> positions, indices;
  std::vector<uint8_t> images, labels;
  bool operator==(const Snapshot&) const = default;
};

Snapshot snapshot(const Batch& b) {
  return {b.epoch, b.step, b.positions, b.indices, bytes_of(b["image"].tensor), bytes_of(b["label"].tensor)};
}

std::vector<Snapshot> drain(Loader& loader) {
  std::vector<Snapshot> out;
  for (const Batch& b : loader) out.push_back(snapshot(b));
  return out;
}

const auto kData = std::make_shared<const SyntheticDataset>(37);

TEST(Loader, BatchesAreTheSameOnOneTwoAndFourThreads) {
  Loader one(kData, training_options(1));
  Loader two(kData, training_options(2));
  Loader four(kData, training_options(4));
  const auto a = drain(one), b = drain(two), c = drain(four);
  ASSERT_EQ(a.size(), 10u);  // ceil(37 / 4)
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, c);
  // The random draws are real: flips and crops differ between samples of the same source image.
  EXPECT_NE(a[0].images, a[1].images);
}

TEST(Loader, TheOrderIsTorchsAndEveryRankTakesItsShare) {
  LoaderOptions o = training_options(2, 5);
  Loader loader(kData, o);
  std::vector<int64_t> seen;
  for (const Batch& b : loader) seen.insert(seen.end(), b.indices.begin(), b.indices.end());
  EXPECT_EQ(seen, EpochOrder(37, o.order, 0).indices(0));
  EXPECT_EQ(seen, torch_randperm(37, 7));
}

TEST(Loader, ABatchIsOneContiguousAlignedNCHWTensor) {
  Loader loader(kData, training_options(2));
  const Batch b = *loader.next();
  const Tensor& images = b["image"].tensor;
  ASSERT_TRUE(images.defined());
  EXPECT_EQ(std::vector<int64_t>(images.shape().begin(), images.shape().end()), (std::vector<int64_t>{4, 3, 32, 32}));
  EXPECT_TRUE(images.is_contiguous());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(images.data()) % 64, 0u);
  EXPECT_EQ(b["label"].tensor.dtype(), DType::kInt64);
  for (int64_t i = 0; i < b.size(); ++i) EXPECT_EQ(b["label"].tensor.data<int64_t>()[i], b.indices[i] % 10);
  EXPECT_EQ(b.keys[0], "synthetic:s" + std::to_string(b.indices[0]));
  EXPECT_EQ(error_code_of([&] { (void)b["nothing"]; }), ErrorCode::kInvalidInput);
}

TEST(Loader, BatchBuffersAreReused) {
  LoaderOptions o = training_options(2);
  o.prefetch = 2;
  Loader loader(kData, o);
  std::set<const void*> buffers;
  for (int epoch = 0; epoch < 3; ++epoch)
    for (const Batch& b : loader) buffers.insert(b["image"].tensor.data());
  EXPECT_LE(buffers.size(), 6u);  // prefetch + the batch held + the pool's slack, not 30
}

TEST(Loader, ABytesBudgetBoundsTheBatchesInFlight) {
  LoaderOptions o = training_options(2);
  o.prefetch = 8;
  o.max_bytes_in_flight = 1;  // less than one batch: one at a time
  Loader loader(kData, o);
  std::vector<Snapshot> batches;
  while (auto b = loader.next()) {
    const LoaderStats s = loader.stats();
    EXPECT_LE(s.batches_in_flight, 1);
    EXPECT_LE(s.ready_batches, 1);
    batches.push_back(snapshot(*b));
  }
  Loader unbounded(kData, training_options(2));
  EXPECT_EQ(batches, drain(unbounded));
}

TEST(Loader, ResumeGivesTheRemainingBatchesAlsoOnAnotherThreadCount) {
  Loader full(kData, training_options(2));
  const auto all = drain(full);

  Loader first(kData, training_options(2));
  for (int i = 0; i < 4; ++i) first.next();
  const std::string saved = first.state().to_json();
  EXPECT_EQ(LoaderState::from_json(saved).samples_consumed, 16);

  for (int threads : {1, 3}) {
    Loader resumed(kData, training_options(threads));
    resumed.restore(LoaderState::from_json(saved));
    const auto rest = drain(resumed);
    EXPECT_EQ(rest, std::vector<Snapshot>(all.begin() + 4, all.end())) << threads << " threads";
  }
}

TEST(Loader, ElasticResumeAtAFixedGlobalBatch) {
  // One rank with batch 8 against two ranks with batch 4: step k covers the same global positions with
  // the same pixels, and a state saved by the pair resumes the single rank.
  LoaderOptions single = training_options(2, 8);
  Loader one(kData, single);
  std::map<int64_t, std::vector<uint8_t>> by_position;  // position -> image bytes
  std::vector<std::set<int64_t>> steps;
  for (const Batch& b : one) {
    steps.emplace_back(b.positions.begin(), b.positions.end());
    for (int64_t i = 0; i < b.size(); ++i) by_position[b.positions[i]] = bytes_of(b["image"].tensor.select(0, i));
  }
  LoaderOptions pair = training_options(2, 4);
  pair.order.world_size = 2;
  for (int64_t rank = 0; rank < 2; ++rank) {
    pair.order.rank = rank;
    Loader loader(kData, pair);
    int64_t step = 0;
    for (const Batch& b : loader) {
      for (int64_t i = 0; i < b.size(); ++i) {
        const int64_t p = b.positions[i];
        if (p >= 37) continue;  // DistributedSampler's padding (37 -> 38) is not in the single-rank run
        EXPECT_TRUE(steps[static_cast<size_t>(step)].count(p)) << "step " << step << " position " << p;
        EXPECT_EQ(bytes_of(b["image"].tensor.select(0, i)), by_position[p]);
      }
      ++step;
    }
  }
  pair.order.rank = 1;
  Loader two(kData, pair);
  two.next();
  two.next();
  Loader resumed(kData, single);
  resumed.restore(two.state());  // 2 steps * 4 * 2 ranks = 16 = 2 steps of 8
  EXPECT_EQ(resumed.next()->step, 2);
}

TEST(Loader, RestoreRefusesAnotherDatasetSeedOrAStateOffTheBatchGrid) {
  Loader loader(kData, training_options(1));
  LoaderState s = loader.state();
  s.fingerprint ^= 1;
  EXPECT_EQ(error_code_of([&] { loader.restore(s); }), ErrorCode::kInvalidInput);
  s = loader.state();
  s.seed = 8;
  EXPECT_EQ(error_code_of([&] { loader.restore(s); }), ErrorCode::kInvalidInput);
  s = loader.state();
  s.samples_consumed = 3;
  EXPECT_NE(std::string(error_of([&] { loader.restore(s); }).what()).find("multiple of the global batch"),
            std::string::npos);
  EXPECT_EQ(error_code_of([] { LoaderState::from_json("{\"seed\": 1}"); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(error_code_of([] { LoaderState::from_json("not json"); }), ErrorCode::kInvalidInput);
}

TEST(Loader, EpochsAdvanceAndReshuffle) {
  Loader loader(kData, training_options(2));
  const auto e0 = drain(loader);
  EXPECT_EQ(loader.epoch(), 1);
  EXPECT_EQ(loader.state().samples_consumed, 0);
  const auto e1 = drain(loader);
  EXPECT_EQ(e1[0].epoch, 1);
  EXPECT_NE(e0[0].indices, e1[0].indices);
  loader.set_epoch(0);
  EXPECT_EQ(drain(loader), e0);
}

TEST(Loader, DropLastDropsTheIncompleteBatch) {
  LoaderOptions o = training_options(2);
  o.drop_last = true;
  Loader loader(kData, o);
  EXPECT_EQ(loader.num_batches(), 9);
  const auto batches = drain(loader);
  ASSERT_EQ(batches.size(), 9u);
  EXPECT_EQ(batches.back().positions.size(), 4u);
}

const auto kCorrupt = std::make_shared<const SyntheticDataset>(20, std::set<int64_t>{5, 6, 13});

LoaderOptions sequential(ErrorPolicy policy) {
  LoaderOptions o = training_options(2);
  o.order.shuffle = Shuffle::kNone;
  o.on_error = policy;
  return o;
}

TEST(LoaderErrors, RaiseNamesTheSampleAfterTheBatchesBeforeIt) {
  Loader loader(kCorrupt, sequential(ErrorPolicy::kRaise));
  EXPECT_EQ(loader.next()->step, 0);                 // samples 0..3
  const Error e = error_of([&] { loader.next(); });  // 4..7 holds 5
  EXPECT_EQ(e.input(), "synthetic:s5");
  EXPECT_EQ(e.code(), ErrorCode::kInvalidInput);
  EXPECT_EQ(loader.next()->step, 2);  // the failed batch counts as consumed
  EXPECT_TRUE(loader.skipped().empty());
}

TEST(LoaderErrors, SkipDropsTheSampleAndKeepsEveryOtherDraw) {
  Loader clean(std::make_shared<const SyntheticDataset>(20), sequential(ErrorPolicy::kRaise));
  std::map<int64_t, std::vector<uint8_t>> expected;
  for (const Batch& b : clean)
    for (int64_t i = 0; i < b.size(); ++i) expected[b.positions[i]] = bytes_of(b["image"].tensor.select(0, i));

  Loader loader(kCorrupt, sequential(ErrorPolicy::kSkip));
  std::vector<int64_t> sizes;
  for (const Batch& b : loader) {
    sizes.push_back(b.size());
    for (int64_t i = 0; i < b.size(); ++i)
      EXPECT_EQ(bytes_of(b["image"].tensor.select(0, i)), expected[b.positions[i]]);
  }
  EXPECT_EQ(sizes, (std::vector<int64_t>{4, 2, 4, 3, 4}));
  const auto skipped = loader.skipped();
  ASSERT_EQ(skipped.size(), 3u);
  std::set<int64_t> indices;
  for (const SkippedSample& s : skipped) {
    indices.insert(s.index);
    EXPECT_EQ(s.name, "synthetic:s" + std::to_string(s.index));
    EXPECT_FALSE(s.error.empty());
    EXPECT_FALSE(s.replaced_by);
  }
  EXPECT_EQ(indices, (std::set<int64_t>{5, 6, 13}));
  EXPECT_NE(loader.skipped_json().find("\"name\":\"synthetic:s13\""), std::string::npos);
}

TEST(LoaderErrors, ReplaceTakesTheNextReadableSample) {
  Loader loader(kCorrupt, sequential(ErrorPolicy::kReplace));
  std::vector<Snapshot> batches = drain(loader);
  ASSERT_EQ(batches.size(), 5u);
  for (const Snapshot& b : batches) EXPECT_EQ(b.positions.size(), 4u);
  std::map<int64_t, int64_t> replaced;
  for (const SkippedSample& s : loader.skipped()) replaced[s.index] = s.replaced_by.value_or(-1);
  EXPECT_EQ(replaced, (std::map<int64_t, int64_t>{{5, 7}, {6, 7}, {13, 14}}));
}

TEST(LoaderErrors, ReplaceGivesUpAfterMaxReplacements) {
  LoaderOptions o = sequential(ErrorPolicy::kReplace);
  o.max_replacements = 1;
  Loader loader(kCorrupt, o);
  loader.next();
  // s5 fails and so does its one replacement, s6: the batch raises s5's error.
  EXPECT_EQ(error_of([&] { loader.next(); }).input(), "synthetic:s5");
}

TEST(LoaderCollate, VariableSizesBecomeListsOrPaddedBatches) {
  LoaderOptions o;
  o.batch_size = 5;
  o.threads = 2;
  o.fields = default_fields();  // no crop: sizes differ
  Loader lists(kData, o);
  const Batch a = *lists.next();
  EXPECT_FALSE(a["image"].tensor.defined());
  ASSERT_EQ(a["image"].list.size(), 5u);
  EXPECT_EQ(a["image"].list[1].size(1), 67);  // sample 1: 60 + 7 rows

  o.fields[0].collate = Collate::kPad;
  Loader padded(kData, o);
  const Batch b = *padded.next();
  const Tensor& t = b["image"].tensor;
  EXPECT_EQ(std::vector<int64_t>(t.shape().begin(), t.shape().end()), (std::vector<int64_t>{5, 3, 88, 90}));
  EXPECT_EQ(b["image"].lengths.data<int64_t>()[1 * 3 + 1], 67);
  // The padding is zero and the image sits at the top left.
  EXPECT_EQ(t.select(0, 0).select(1, 70).select(1, 0).data<uint8_t>()[0], 0);
  EXPECT_EQ(bytes_of(t.select(0, 1).slice(1, 0, 67).slice(2, 0, 85)), bytes_of(a["image"].list[1]));
}

TEST(LoaderFields, NormalizingWhileCollatingEqualsAFinalNormalize) {
  const std::vector<float> mean{0.485f, 0.456f, 0.406f}, std{0.229f, 0.224f, 0.225f};
  LoaderOptions fused = training_options(2);
  fused.fields[0].image.decode.layout = Layout::kHWC;
  fused.fields[0].image.normalize = ImageField::Normalization{mean, std, Layout::kCHW};
  LoaderOptions separate = training_options(2);
  separate.fields[0].image.decode.layout = Layout::kHWC;
  separate.fields[0].image.transform = std::make_shared<transforms::Compose>(std::vector<transforms::TransformPtr>{
      separate.fields[0].image.transform, std::make_shared<transforms::Normalize>(mean, std, Layout::kCHW)});
  Loader a(kData, fused), b(kData, separate);
  const Batch x = *a.next(), y = *b.next();
  const Tensor& t = x["image"].tensor;
  EXPECT_EQ(std::vector<int64_t>(t.shape().begin(), t.shape().end()), (std::vector<int64_t>{4, 3, 32, 32}));
  EXPECT_EQ(t.dtype(), DType::kFloat32);
  EXPECT_EQ(bytes_of(t), bytes_of(y["image"].tensor));

  // Images of different sizes (no crop): normalized one by one into a list.
  fused.fields[0].image.crop = nullptr;
  Loader lists(kData, fused);
  const Batch z = *lists.next();
  ASSERT_EQ(z["image"].list.size(), 4u);
  EXPECT_EQ(z["image"].list[1].dtype(), DType::kFloat32);
  EXPECT_EQ(z["image"].list[1].size(0), 3);  // CHW
}

TEST(LoaderFields, AnnotationsAndBytes) {
  LoaderOptions o;
  o.batch_size = 3;
  FieldSpec notes{.name = "notes", .kind = FieldKind::kAnnotations};
  FieldSpec raw{.name = "raw", .kind = FieldKind::kBytes, .members = {"jpg"}};
  o.fields = {notes, raw};
  Loader loader(kData, o);
  const Batch b = *loader.next();
  EXPECT_EQ(b["notes"].texts, (std::vector<std::string>{"{\"i\": 0}", "{\"i\": 1}", "{\"i\": 2}"}));
  const std::span<const uint8_t> jpeg = kData->read(2).members[0].bytes.bytes();
  EXPECT_EQ(bytes_of(b["raw"].list[2]), std::vector<uint8_t>(jpeg.begin(), jpeg.end()));
}

TEST(LoaderFields, AMissingMemberNamesTheFieldAndTheRecord) {
  LoaderOptions o;
  FieldSpec audio{.name = "sound", .kind = FieldKind::kAudio};
  o.fields = {audio};
  Loader loader(kData, o);
  const Error e = error_of([&] { loader.next(); });
  EXPECT_EQ(e.input(), "synthetic:s0");
  EXPECT_NE(e.message().find("field \"sound\" has no member (wav, flac"), std::string::npos) << e.message();
}

TEST(LoaderOptionsCheck, BadOptionsAreRefused) {
  auto code = [](auto change) {
    LoaderOptions o;
    change(o);
    return error_code_of([&] { Loader(kData, o); });
  };
  EXPECT_EQ(code([](LoaderOptions& o) { o.batch_size = 0; }), ErrorCode::kInvalidInput);
  EXPECT_EQ(code([](LoaderOptions& o) { o.threads = -1; }), ErrorCode::kInvalidInput);
  EXPECT_EQ(code([](LoaderOptions& o) { o.max_bytes_in_flight = -1; }), ErrorCode::kInvalidInput);
  EXPECT_EQ(code([](LoaderOptions& o) { o.fields.clear(); }), ErrorCode::kInvalidInput);
  EXPECT_EQ(code([](LoaderOptions& o) { o.fields[1].name = "image"; }), ErrorCode::kInvalidInput);
  EXPECT_EQ(code([](LoaderOptions& o) { o.fields[0].image.decode_crop = true; }), ErrorCode::kInvalidInput);
  EXPECT_EQ(code([](LoaderOptions& o) {
              o.fields[0].image.normalize = ImageField::Normalization{{0.5f}, {0.0f}};
            }),
            ErrorCode::kInvalidInput);
  // 37 samples cannot give 64 ranks one each with drop_last.
  EXPECT_EQ(code([](LoaderOptions& o) {
              o.order.world_size = 64;
              o.order.drop_last = true;
            }),
            ErrorCode::kInvalidInput);
}

TEST(LoaderDevice, AnUnusableCudaDeviceIsRefusedWhenTheLoaderIsMade) {
  const int devices = accel::cuda_device_count();
  LoaderOptions o = training_options(1);
  o.device = Device::cuda(devices);  // one past the last device (cuda:0 without a GPU)
  const Error e = error_of([&] { Loader(kData, o); });
  EXPECT_EQ(e.code(), ErrorCode::kUnsupported);
  const std::string what = e.what();
  EXPECT_NE(what.find("cuda:" + std::to_string(devices)), std::string::npos) << what;
  if (devices == 0) {
    EXPECT_NE(what.find(accel::built_with_cuda() ? "no CUDA device" : "built without CUDA"), std::string::npos) << what;
  }
}

TEST(LoaderDevice, ACpuBatchIsReadyAndUsableOnAnyStream) {
  Loader loader(kData, training_options(1));
  const std::optional<Batch> b = loader.next();
  ASSERT_TRUE(b);
  EXPECT_FALSE(b->ready.defined());
  EXPECT_TRUE(b->ready.query());
  EXPECT_NO_THROW(b->use_on(accel::Stream()));
  EXPECT_TRUE(b->fields[0].second.tensor.device().is_cpu());
}

TEST(Loader, UnorderedDeliveryGivesTheSameBatchesInSomeOrder) {
  LoaderOptions o = training_options(2);
  Loader ordered(kData, o);
  auto a = drain(ordered);
  o.ordered = false;
  Loader unordered(kData, o);
  unordered.next();
  EXPECT_EQ(error_code_of([&] { unordered.state(); }), ErrorCode::kUnsupported);
  unordered.set_epoch(0);
  auto b = drain(unordered);
  auto by_step = [](const Snapshot& x, const Snapshot& y) { return x.step < y.step; };
  std::sort(b.begin(), b.end(), by_step);
  EXPECT_EQ(a, b);
}

TEST(Loader, StatsCountWhatWasDelivered) {
  Loader loader(kData, training_options(2));
  drain(loader);
  const LoaderStats s = loader.stats();
  EXPECT_EQ(s.samples, 37);
  EXPECT_EQ(s.batches, 10);
  EXPECT_GT(s.decode_seconds, 0);
  EXPECT_GT(s.samples_per_second, 0);
  EXPECT_EQ(s.batches_in_flight, 0);
  EXPECT_EQ(s.bytes_in_flight, 0);
}

}  // namespace
}  // namespace loom::loader
