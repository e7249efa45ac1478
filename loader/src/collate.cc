#include "collate.h"

#include <algorithm>

#include "loom/codec/error.h"
#include "loom/transforms/color.h"
#include "loom/transforms/sample.h"

namespace loom::loader {
namespace {

bool same_shape(const std::vector<Tensor>& items) {
  for (const Tensor& t : items) {
    if (t.dtype() != items[0].dtype() || !std::ranges::equal(t.shape(), items[0].shape())) return false;
  }
  return true;
}

// [N, shape...] with each item copied into its row; rows of smaller items are zero-padded.
Tensor stack(const std::vector<Tensor>& items, std::span<const int64_t> shape, bool zeroed, BufferPool& pool) {
  std::vector<int64_t> batch_shape{static_cast<int64_t>(items.size())};
  batch_shape.insert(batch_shape.end(), shape.begin(), shape.end());
  Tensor out = pool.take(batch_shape, items[0].dtype(), zeroed);
  for (size_t i = 0; i < items.size(); ++i) {
    Tensor row = out.select(0, static_cast<int64_t>(i));
    for (int d = 0; d < items[i].ndim(); ++d) row = row.slice(d, 0, items[i].size(d));
    row.copy_from(items[i]);
  }
  return out;
}

BatchField padded(const std::string& name, const std::vector<Tensor>& items, BufferPool& pool) {
  const int ndim = items[0].ndim();
  std::vector<int64_t> shape(items[0].shape().begin(), items[0].shape().end());
  for (const Tensor& t : items) {
    if (t.ndim() != ndim || t.dtype() != items[0].dtype())
      throw Error(ErrorCode::kInvalidInput, name, "cannot pad tensors of different rank or dtype into one batch");
    for (int d = 0; d < ndim; ++d) shape[d] = std::max(shape[d], t.size(d));
  }
  BatchField field;
  field.tensor = stack(items, shape, /*zeroed=*/true, pool);
  field.lengths = Tensor::empty({static_cast<int64_t>(items.size()), ndim}, DType::kInt64);
  int64_t* lengths = field.lengths.data<int64_t>();
  for (size_t i = 0; i < items.size(); ++i)
    for (int d = 0; d < ndim; ++d) lengths[i * ndim + d] = items[i].size(d);
  return field;
}

BatchField tensors(const FieldSpec& spec, std::vector<Tensor> items, BufferPool& pool) {
  BatchField field;
  if (items.empty()) return field;
  if (spec.collate == Collate::kPad) return padded(spec.name, items, pool);
  if (spec.collate == Collate::kAuto && same_shape(items)) {
    field.tensor = stack(items, items[0].shape(), /*zeroed=*/false, pool);
  } else {
    field.list = std::move(items);
  }
  return field;
}

// ImageField::normalize: equal sizes normalize straight into one [N, ...] float32 batch; otherwise
// each image on its own, then collated as any other tensors.
BatchField normalized(const FieldSpec& spec, size_t field, const std::vector<std::vector<FieldValue>>& samples,
                      BufferPool& pool) {
  const ImageField::Normalization& n = *spec.image.normalize;
  std::vector<Tensor> items;
  for (const auto& s : samples) items.push_back(s[field].tensor);
  auto options = [&](size_t i) { return transforms::NormalizeOptions{samples[i][field].layout, n.layout}; };
  bool same_layout = true;
  for (const auto& s : samples) same_layout &= s[field].layout == samples[0][field].layout;
  if (spec.collate == Collate::kAuto && !items.empty() && same_shape(items) && same_layout) {
    const Layout in = samples[0][field].layout;
    const Size size = transforms::image_size(items[0], in);
    const int64_t c = transforms::image_channels(items[0], in), count = static_cast<int64_t>(items.size());
    const std::vector<int64_t> shape = n.layout == Layout::kHWC
                                           ? std::vector<int64_t>{count, size.height, size.width, c}
                                           : std::vector<int64_t>{count, c, size.height, size.width};
    BatchField out;
    out.tensor = pool.take(shape, DType::kFloat32);
    for (size_t i = 0; i < items.size(); ++i)
      transforms::normalize_into(items[i], out.tensor.select(0, static_cast<int64_t>(i)), n.mean, n.std, options(i));
    return out;
  }
  for (size_t i = 0; i < items.size(); ++i) items[i] = transforms::normalize(items[i], n.mean, n.std, options(i));
  return tensors(spec, std::move(items), pool);
}

}  // namespace

std::vector<std::pair<std::string, BatchField>> collate(const FieldSpec& spec, size_t field,
                                                        const std::vector<std::vector<FieldValue>>& samples,
                                                        BufferPool& pool) {
  std::vector<std::pair<std::string, BatchField>> out;
  if (spec.kind == FieldKind::kAnnotations) {
    BatchField texts;
    for (const auto& s : samples) texts.texts.push_back(s[field].text);
    out.emplace_back(spec.name, std::move(texts));
    return out;
  }
  if (spec.kind == FieldKind::kImage && spec.image.normalize) {
    out.emplace_back(spec.name, normalized(spec, field, samples, pool));
  } else {
    std::vector<Tensor> items;
    for (const auto& s : samples) items.push_back(s[field].tensor);
    out.emplace_back(spec.name, tensors(spec, std::move(items), pool));
  }
  if (spec.kind == FieldKind::kImage && spec.image.boxes_format) {
    BatchField boxes, keypoints;
    for (const auto& s : samples) {
      boxes.list.push_back(s[field].boxes);
      keypoints.list.push_back(s[field].keypoints);
    }
    out.emplace_back(spec.name + ".boxes", std::move(boxes));
    out.emplace_back(spec.name + ".keypoints", std::move(keypoints));
  }
  return out;
}

}  // namespace loom::loader
