// Collation: one field's per-sample values into the batch's BatchField (see Collate in loader.h).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "buffer_pool.h"
#include "field_reader.h"
#include "loom/loader/loader.h"

namespace loom::loader {

// The batch fields for spec (number `field` of each sample's values): the field itself, and for images
// with boxes_format "<name>.boxes" and "<name>.keypoints" (lists). Stacked tensors come from `pool`.
// Error(kInvalidInput) naming the field when kPad meets tensors of different rank or dtype.
std::vector<std::pair<std::string, BatchField>> collate(const FieldSpec& spec, size_t field,
                                                        const std::vector<std::vector<FieldValue>>& samples,
                                                        BufferPool& pool);

}  // namespace loom::loader
