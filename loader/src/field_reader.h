// Turning one record into the loader's per-sample values, field by field (decode, crop, transform).
// Thread safety: read_fields is reentrant; the specs are read only.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "loom/loader/dataset.h"
#include "loom/loader/loader.h"
#include "loom/transforms/random.h"

namespace loom::loader {

// Nanoseconds spent per stage, summed over threads.
struct StageClock {
  std::atomic<int64_t> read_ns{0}, decode_ns{0}, transform_ns{0}, collate_ns{0};
};

// Adds the time since construction (or the last lap) to a stage counter.
class Stopwatch {
 public:
  Stopwatch() : start_(std::chrono::steady_clock::now()) {}
  void lap(std::atomic<int64_t>& into) {
    const auto now = std::chrono::steady_clock::now();
    into.fetch_add(std::chrono::duration_cast<std::chrono::nanoseconds>(now - start_).count(),
                   std::memory_order_relaxed);
    start_ = now;
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

// One field of one sample.
struct FieldValue {
  Tensor tensor;                 // image, clip, audio, label ([] int64), bytes
  Layout layout = Layout::kCHW;  // an image's, after the transforms
  std::string text;              // kAnnotations
  Tensor boxes;                  // images with boxes_format: [N, k] float32 after the transforms
  Tensor keypoints;              // [M, 2] float32
};

// The values of every field of `specs` for `record`, drawing each field's random choices from
// rng.fork(field number). Throws loom::Error naming the record's member (or the record, for a
// missing member or label).
std::vector<FieldValue> read_fields(const std::vector<FieldSpec>& specs, const Record& record, transforms::Rng& rng,
                                    StageClock& clock);

// The members a field reads when its spec names none.
const std::vector<std::string>& default_members(FieldKind kind);

}  // namespace loom::loader
