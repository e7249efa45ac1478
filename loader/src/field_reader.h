// Turning one record into the loader's per-sample values, field by field (decode, crop, transform).
// Thread safety: read_fields is reentrant; the specs are read only.
#pragma once

#include <atomic>
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
