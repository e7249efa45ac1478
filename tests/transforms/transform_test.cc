// Transform objects and pipelines (core/transform.cc):
//  - Compose / RandomApply / RandomChoice / RandomOrder: order, all-or-nothing, probabilities over
//    many draws, permutations, null transforms and bad probabilities rejected;
//  - "same seed, same output": a random geometric + color + noise pipeline over a batch of 16 samples
//    with Rng(seed, i) gives byte-identical images and identical boxes on 1 thread and on 4 threads in
//    any order; another seed gives other outputs.
#include "loom/transforms/transform.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <thread>
#include <vector>

#include "loom/codec/error.h"
#include "loom/transforms/color_transforms.h"
#include "loom/transforms/geometry.h"
#include "loom/transforms/geometry_transforms.h"
#include "loom/transforms/random.h"
#include "tensor_rows.h"
#include "test_media.h"

namespace loom::transforms {
namespace {

using test::error_code_of;
using test_util::bytes;
using test_util::random_image;
constexpr ErrorCode kInvalid = ErrorCode::kInvalidInput;

Tensor rows_f64(const std::vector<std::vector<double>>& rows) {
  return test_util::rows_tensor(rows);
}
std::vector<double> values(const Tensor& t) {
  return test_util::tensor_doubles(t);
}

// Appends its id to a log shared by the test (apply() is const; the log lives outside the object).
class Recorder final : public Transform {
 public:
  Recorder(int id, std::vector<int>* log) : id_(id), log_(log) {}
  void apply(Sample&, Rng&) const override { log_->push_back(id_); }
  std::string describe() const override { return "Recorder(" + std::to_string(id_) + ")"; }

 private:
  int id_;
  std::vector<int>* log_;
};

TransformPtr rec(int id, std::vector<int>* log) {
  return std::make_shared<Recorder>(id, log);
}

// ---------------------------------------------------------------------------------------------
// Composition

TEST(PipelineCompose, AppliesInOrderAndDescribes) {
  std::vector<int> log;
  const Compose c({rec(1, &log), rec(2, &log), rec(3, &log), rec(2, &log)});
  Sample s;
  Rng rng(1);
  c.apply(s, rng);
  EXPECT_EQ(log, (std::vector<int>{1, 2, 3, 2}));
  EXPECT_EQ(c.describe(), "Compose([Recorder(1), Recorder(2), Recorder(3), Recorder(2)])");
  // Nested and empty compositions.
  log.clear();
  const Compose outer({std::make_shared<Compose>(std::vector<TransformPtr>{rec(4, &log), rec(5, &log)}),
                       std::make_shared<Compose>(std::vector<TransformPtr>{}), rec(6, &log)});
  outer.apply(s, rng);
  EXPECT_EQ(log, (std::vector<int>{4, 5, 6}));
}

TEST(PipelineCompose, GeometricStepsEqualTheFunctionsInSequence) {
  Sample s;
  s.image = random_image(3, 30, 40, Rng(3));
  s.boxes = BoundingBoxes{rows_f64({{2, 3, 20, 25}, {30, 1, 39, 9}}), BoxFormat::kXYXY, {30, 40}, Clamping::kSoft};
  Sample piped = s;
  Rng rng(9);
  Compose({std::make_shared<Pad>(Padding{1, 2, 3, 4}), std::make_shared<CenterCrop>(Size{25, 33}),
           std::make_shared<Resize>(Size{20, 0}, ResizeOptions{Interpolation::kNearest})})
      .apply(piped, rng);
  const Sample manual = resize(center_crop(pad(s, {1, 2, 3, 4}), {25, 33}), size_for_shorter_side({25, 33}, 20),
                               {Interpolation::kNearest});
  EXPECT_EQ(bytes(piped.image), bytes(manual.image));
  EXPECT_EQ(values(piped.boxes->data), values(manual.boxes->data));
  EXPECT_EQ(piped.boxes->canvas, manual.boxes->canvas);
}

TEST(PipelineCompose, NullTransformsAndBadProbabilitiesAreRejected) {
  std::vector<int> log;
  EXPECT_EQ(error_code_of([] { Compose({nullptr}); }), kInvalid);
  EXPECT_EQ(error_code_of([&] { Compose({rec(1, &log), nullptr}); }), kInvalid);
  EXPECT_EQ(error_code_of([] { RandomApply({nullptr}, 0.5); }), kInvalid);
  EXPECT_EQ(error_code_of([] { RandomChoice({nullptr}); }), kInvalid);
  EXPECT_EQ(error_code_of([] { RandomOrder({nullptr}); }), kInvalid);
  for (double p : {-0.01, 1.01, std::nan("")}) {
    EXPECT_EQ(error_code_of([&] { RandomApply({rec(1, &log)}, p); }), kInvalid) << p;
  }
  EXPECT_EQ(error_code_of([] { RandomChoice({}); }), kInvalid);
  EXPECT_EQ(error_code_of([&] { RandomChoice({rec(1, &log), rec(2, &log)}, {1.0}); }), kInvalid);
  EXPECT_EQ(error_code_of([&] { RandomChoice({rec(1, &log), rec(2, &log)}, {1.0, -0.5}); }), kInvalid);
  EXPECT_EQ(error_code_of([&] { RandomChoice({rec(1, &log), rec(2, &log)}, {0.0, 0.0}); }), kInvalid);
  EXPECT_EQ(error_code_of([&] { RandomChoice({rec(1, &log)}, {std::nan("")}); }), kInvalid);
}

TEST(PipelineRandomApply, AllOrNothingWithProbabilityP) {
  std::vector<int> log;
  const RandomApply apply({rec(1, &log), rec(2, &log)}, 0.3);
  Sample s;
  Rng rng(11);
  constexpr int kDraws = 4000;
  int applied = 0;
  for (int i = 0; i < kDraws; ++i) {
    log.clear();
    apply.apply(s, rng);
    if (!log.empty()) {
      ASSERT_EQ(log, (std::vector<int>{1, 2}));
      ++applied;
    }
  }
  // 0.3 +- 4 standard deviations (sqrt(0.21 / 4000) = 0.0072).
  EXPECT_NEAR(static_cast<double>(applied) / kDraws, 0.3, 0.03);
  for (double p : {0.0, 1.0}) {
    log.clear();
    const RandomApply fixed({rec(7, &log)}, p);
    for (int i = 0; i < 200; ++i) fixed.apply(s, rng);
    EXPECT_EQ(log.size(), p == 0.0 ? 0u : 200u) << p;
  }
}

TEST(PipelineRandomChoice, PicksOneWithTheGivenProbabilities) {
  std::vector<int> log;
  Sample s;
  Rng rng(12);
  constexpr int kDraws = 6000;
  auto frequencies = [&](const RandomChoice& choice) {
    std::map<int, int> count;
    for (int i = 0; i < kDraws; ++i) {
      log.clear();
      choice.apply(s, rng);
      EXPECT_EQ(log.size(), 1u);
      if (!log.empty()) ++count[log[0]];
    }
    return count;
  };
  // Weights are normalized: {1, 2, 1} is {0.25, 0.5, 0.25}.
  std::map<int, int> weighted = frequencies(RandomChoice({rec(0, &log), rec(1, &log), rec(2, &log)}, {1, 2, 1}));
  EXPECT_NEAR(weighted[0] / double(kDraws), 0.25, 0.025);
  EXPECT_NEAR(weighted[1] / double(kDraws), 0.50, 0.025);
  EXPECT_NEAR(weighted[2] / double(kDraws), 0.25, 0.025);
  // Empty probabilities: uniform.
  std::map<int, int> uniform = frequencies(RandomChoice({rec(0, &log), rec(1, &log), rec(2, &log), rec(3, &log)}));
  for (int k = 0; k < 4; ++k) EXPECT_NEAR(uniform[k] / double(kDraws), 0.25, 0.025) << k;
  // A zero weight is never picked.
  std::map<int, int> zero = frequencies(RandomChoice({rec(0, &log), rec(1, &log), rec(2, &log)}, {0.5, 0.0, 0.5}));
  EXPECT_EQ(zero[1], 0);
  EXPECT_GT(zero[0], 0);
  EXPECT_GT(zero[2], 0);
}

TEST(PipelineRandomOrder, AppliesEachOnceInEveryOrder) {
  std::vector<int> log;
  const RandomOrder order({rec(0, &log), rec(1, &log), rec(2, &log)});
  Sample s;
  Rng rng(13);
  constexpr int kDraws = 3000;
  std::map<std::vector<int>, int> seen;
  for (int i = 0; i < kDraws; ++i) {
    log.clear();
    order.apply(s, rng);
    std::vector<int> sorted = log;
    std::sort(sorted.begin(), sorted.end());
    ASSERT_EQ(sorted, (std::vector<int>{0, 1, 2}));
    ++seen[log];
  }
  ASSERT_EQ(seen.size(), 6u);
  for (const auto& [perm, n] : seen) EXPECT_NEAR(n / double(kDraws), 1.0 / 6.0, 0.03);
  // random_permutation: a permutation of 0..n-1, every element everywhere over many draws.
  std::vector<std::vector<int>> position_counts(7, std::vector<int>(7, 0));
  for (int i = 0; i < 2000; ++i) {
    const std::vector<int> p = random_permutation(7, rng);
    std::vector<int> sorted = p;
    std::sort(sorted.begin(), sorted.end());
    ASSERT_EQ(sorted, (std::vector<int>{0, 1, 2, 3, 4, 5, 6}));
    for (int k = 0; k < 7; ++k) ++position_counts[k][p[k]];
  }
  for (const auto& row : position_counts) {
    for (int n : row) EXPECT_GT(n, 2000 / 7 / 2);
  }
  EXPECT_TRUE(random_permutation(0, rng).empty());
}

// ---------------------------------------------------------------------------------------------
// Same seed, same output

Sample batch_sample(int i) {
  Sample s;
  s.image = random_image(3, 40, 48, Rng(99, static_cast<uint64_t>(i)));
  s.boxes = BoundingBoxes{rows_f64({{2, 3, 20, 25}, {25, 10, 46, 38}, {5.0 + i, 20, 15.0 + i, 30}}),
                          BoxFormat::kXYXY,
                          {40, 48},
                          Clamping::kSoft};
  s.keypoints = KeyPoints{rows_f64({{10, 10}, {30, 20}}), {40, 48}};
  return s;
}

TransformPtr augmentation_pipeline() {
  RandomAffine::Params affine;
  affine.degrees = {-15, 15};
  affine.translate = Point{0.1, 0.1};
  affine.scale = Range{0.8, 1.2};
  affine.shear_x = Range{-5, 5};
  return std::make_shared<Compose>(std::vector<TransformPtr>{
      std::make_shared<RandomHorizontalFlip>(0.5),
      std::make_shared<RandomResizedCrop>(Size{32, 32}, Range{0.3, 1.0}),
      std::make_shared<RandomApply>(std::vector<TransformPtr>{std::make_shared<RandomRotation>(
                                        Range{-30, 30}, RotateOptions{Interpolation::kBilinear})},
                                    0.7),
      std::make_shared<RandomAffine>(affine, WarpOptions{Interpolation::kBilinear, {}}),
      std::make_shared<RandomPerspective>(0.3, 0.5),
      std::make_shared<RandomOrder>(std::vector<TransformPtr>{std::make_shared<ColorJitter>(0.4, 0.4, 0.4, 0.1),
                                                              std::make_shared<GaussianNoise>(0.0, 0.05)}),
  });
}

struct Output {
  std::vector<uint8_t> image;
  std::vector<double> boxes, keypoints;
  bool operator==(const Output&) const = default;
};

Output run_one(const Transform& t, uint64_t seed, int i) {
  Sample s = batch_sample(i);
  Rng rng(seed, static_cast<uint64_t>(i));
  t.apply(s, rng);
  return {bytes(s.image), values(s.boxes->data), values(s.keypoints->data)};
}

TEST(PipelineDeterminism, SameSeedSameOutputOnAnyThreadCount) {
  constexpr int kBatch = 16;
  constexpr uint64_t kSeed = 2024;
  const TransformPtr pipeline = augmentation_pipeline();
  std::vector<Output> serial(kBatch);
  for (int i = 0; i < kBatch; ++i) serial[i] = run_one(*pipeline, kSeed, i);

  // 4 threads sharing the pipeline, each taking samples in its own order: interleaved backwards,
  // or whichever is next from a shared counter.
  for (int mode = 0; mode < 2; ++mode) {
    std::vector<Output> parallel(kBatch);
    std::atomic<int> next{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        if (mode == 0) {
          for (int i = kBatch - 1 - t; i >= 0; i -= 4) parallel[i] = run_one(*pipeline, kSeed, i);
        } else {
          for (int i = next++; i < kBatch; i = next++)
            parallel[kBatch - 1 - i] = run_one(*pipeline, kSeed, kBatch - 1 - i);
        }
      });
    }
    for (std::thread& th : threads) th.join();
    for (int i = 0; i < kBatch; ++i) {
      EXPECT_TRUE(parallel[i].image == serial[i].image) << "mode " << mode << " sample " << i;
      EXPECT_EQ(parallel[i].boxes, serial[i].boxes) << "mode " << mode << " sample " << i;
      EXPECT_EQ(parallel[i].keypoints, serial[i].keypoints) << "mode " << mode << " sample " << i;
    }
  }

  // The pipeline is random: samples differ from each other under one seed, and another seed gives
  // other outputs for (nearly) every sample.
  int differing = 0, differing_boxes = 0;
  for (int i = 0; i < kBatch; ++i) {
    const Output other = run_one(*pipeline, kSeed + 1, i);
    differing += other.image != serial[i].image;
    differing_boxes += other.boxes != serial[i].boxes;
  }
  EXPECT_EQ(differing, kBatch);
  EXPECT_GE(differing_boxes, kBatch - 1);
  // Every sample has the output size of the crop.
  for (const Output& o : serial) EXPECT_EQ(o.image.size(), 3u * 32 * 32);
}

}  // namespace
}  // namespace loom::transforms
