#include "loom/transforms/transform.h"

#include <fmt/format.h>

#include <numeric>

#include "loom/codec/error.h"

namespace loom::transforms {
namespace {

std::string describe_all(std::string_view name, const std::vector<TransformPtr>& transforms,
                         std::string_view extra = {}) {
  std::string out = fmt::format("{}([", name);
  for (size_t i = 0; i < transforms.size(); ++i) out += (i ? ", " : "") + transforms[i]->describe();
  return out + "]" + std::string(extra) + ")";
}

void check_not_null(const std::vector<TransformPtr>& transforms, std::string_view who) {
  for (const TransformPtr& t : transforms) {
    if (!t) throw Error(ErrorCode::kInvalidInput, std::string(who), "a transform in the list is null");
  }
}

}  // namespace

Tensor Transform::operator()(const Tensor& image, Rng& rng, Layout layout) const {
  Sample sample;
  sample.image = image;
  sample.layout = layout;
  apply(sample, rng);
  return sample.image;
}

std::vector<int> random_permutation(int n, Rng& rng) {
  std::vector<int> order(static_cast<size_t>(std::max(n, 0)));
  std::iota(order.begin(), order.end(), 0);
  for (int i = n - 1; i > 0; --i) std::swap(order[i], order[rng.integer(0, i + 1)]);
  return order;
}

Compose::Compose(std::vector<TransformPtr> transforms) : transforms_(std::move(transforms)) {
  check_not_null(transforms_, "Compose");
}

void Compose::apply(Sample& sample, Rng& rng) const {
  for (const TransformPtr& t : transforms_) t->apply(sample, rng);
}

std::string Compose::describe() const {
  return describe_all("Compose", transforms_);
}

RandomApply::RandomApply(std::vector<TransformPtr> transforms, double p) : transforms_(std::move(transforms)), p_(p) {
  check_not_null(transforms_, "RandomApply");
  if (!(p >= 0.0 && p <= 1.0))
    throw Error(ErrorCode::kInvalidInput, "RandomApply", fmt::format("p must be in [0, 1], got {}", p));
}

void RandomApply::apply(Sample& sample, Rng& rng) const {
  if (!rng.bernoulli(p_)) return;
  for (const TransformPtr& t : transforms_) t->apply(sample, rng);
}

std::string RandomApply::describe() const {
  return describe_all("RandomApply", transforms_, fmt::format(", p={}", p_));
}

RandomChoice::RandomChoice(std::vector<TransformPtr> transforms, std::vector<double> probabilities)
    : transforms_(std::move(transforms)) {
  check_not_null(transforms_, "RandomChoice");
  if (transforms_.empty()) throw Error(ErrorCode::kInvalidInput, "RandomChoice", "needs at least one transform");
  if (probabilities.empty()) probabilities.assign(transforms_.size(), 1.0);
  if (probabilities.size() != transforms_.size()) {
    throw Error(ErrorCode::kInvalidInput, "RandomChoice",
                fmt::format("{} probabilities for {} transforms", probabilities.size(), transforms_.size()));
  }
  double total = 0.0;
  for (double p : probabilities) {
    if (!(p >= 0.0)) throw Error(ErrorCode::kInvalidInput, "RandomChoice", "probabilities must be non-negative");
    total += p;
  }
  if (!(total > 0.0)) throw Error(ErrorCode::kInvalidInput, "RandomChoice", "probabilities must not all be zero");
  double running = 0.0;
  for (double p : probabilities) cumulative_.push_back(running += p / total);
}

void RandomChoice::apply(Sample& sample, Rng& rng) const {
  const double u = rng.uniform();
  size_t i = 0;
  while (i + 1 < cumulative_.size() && u >= cumulative_[i]) ++i;
  transforms_[i]->apply(sample, rng);
}

std::string RandomChoice::describe() const {
  return describe_all("RandomChoice", transforms_);
}

RandomOrder::RandomOrder(std::vector<TransformPtr> transforms) : transforms_(std::move(transforms)) {
  check_not_null(transforms_, "RandomOrder");
}

void RandomOrder::apply(Sample& sample, Rng& rng) const {
  for (int i : random_permutation(static_cast<int>(transforms_.size()), rng)) transforms_[i]->apply(sample, rng);
}

std::string RandomOrder::describe() const {
  return describe_all("RandomOrder", transforms_);
}

}  // namespace loom::transforms
