// Transform objects and their composition (torchvision.transforms.v2's Compose, RandomApply,
// RandomChoice), with an explicit random generator.
//
// Every random choice a transform makes is drawn from the Rng passed to apply(): the same seed gives
// the same output, whatever the thread count (a loader gives each sample its own Rng(seed, index)).
// Transform objects hold parameters only and are immutable after construction, so one pipeline may be
// applied from many threads at once.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "loom/codec/api.h"
#include "loom/transforms/random.h"
#include "loom/transforms/sample.h"

LOOM_API_BEGIN

namespace loom::transforms {

class Transform {
 public:
  virtual ~Transform() = default;
  // Transforms the sample in place (its tensors are replaced by new ones, never written into).
  virtual void apply(Sample& sample, Rng& rng) const = 0;
  // A short description with the parameters, e.g. "RandomHorizontalFlip(p=0.5)".
  virtual std::string describe() const = 0;

  // Convenience for image-only pipelines.
  Tensor operator()(const Tensor& image, Rng& rng, Layout layout = Layout::kCHW) const;
};

using TransformPtr = std::shared_ptr<const Transform>;

// Applies each transform in order.
class Compose final : public Transform {
 public:
  explicit Compose(std::vector<TransformPtr> transforms);
  void apply(Sample& sample, Rng& rng) const override;
  std::string describe() const override;

 private:
  std::vector<TransformPtr> transforms_;
};

// Applies all the transforms (in order) with probability p, or none of them.
class RandomApply final : public Transform {
 public:
  explicit RandomApply(std::vector<TransformPtr> transforms, double p = 0.5);
  void apply(Sample& sample, Rng& rng) const override;
  std::string describe() const override;

 private:
  std::vector<TransformPtr> transforms_;
  double p_;
};

// Applies one of the transforms, picked with the given probabilities (equal when empty; they are
// normalized to sum to 1).
class RandomChoice final : public Transform {
 public:
  explicit RandomChoice(std::vector<TransformPtr> transforms, std::vector<double> probabilities = {});
  void apply(Sample& sample, Rng& rng) const override;
  std::string describe() const override;

 private:
  std::vector<TransformPtr> transforms_;
  std::vector<double> cumulative_;
};

// Applies the transforms in a random order (torchvision's RandomOrder).
class RandomOrder final : public Transform {
 public:
  explicit RandomOrder(std::vector<TransformPtr> transforms);
  void apply(Sample& sample, Rng& rng) const override;
  std::string describe() const override;

 private:
  std::vector<TransformPtr> transforms_;
};

// A shuffled permutation of 0..n-1 drawn from rng (Fisher-Yates), as torch.randperm is used by
// RandomOrder and ColorJitter.
std::vector<int> random_permutation(int n, Rng& rng);

}  // namespace loom::transforms

LOOM_API_END
