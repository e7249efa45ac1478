#include "loom/codec/tensor.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "block_cache.h"
#include "loom/codec/error.h"

namespace loom {

struct Tensor::Storage {
  void* data;
  Deleter deleter;
  Storage(void* d, Deleter del) : data(d), deleter(std::move(del)) {}
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;
  ~Storage() {
    if (deleter) deleter(data);
  }
};

namespace {

[[noreturn]] void fail(const std::string& message) {
  throw Error(ErrorCode::kInvalidInput, "tensor", message);
}

void check_shape(std::span<const int64_t> shape) {
  if (shape.size() > static_cast<size_t>(kMaxDims)) {
    fail(fmt::format("{} dimensions; at most {} are supported", shape.size(), kMaxDims));
  }
  int64_t elements = 1;
  for (int64_t s : shape) {
    if (s < 0) fail(fmt::format("negative size {}", s));
    // Byte sizes must fit in 63 bits with 8-byte elements.
    if (__builtin_mul_overflow(elements, s, &elements) || elements > (INT64_MAX >> 3)) {
      throw Error(ErrorCode::kLimitExceeded, "tensor", "shape has too many elements to address");
    }
  }
}

// Number of elements; shapes are checked (check_shape) so that this cannot overflow.
// dst[i * ds] = src[i * ss] for i < n, strides in elements of E.
template <typename E>
void copy_run(std::byte* dst, const std::byte* src, int64_t n, int64_t ds, int64_t ss) {
  auto* d = reinterpret_cast<E*>(dst);
  const auto* s = reinterpret_cast<const E*>(src);
  for (int64_t i = 0; i < n; ++i) d[i * ds] = s[i * ss];
}

int64_t count(std::span<const int64_t> shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

}  // namespace

size_t element_size(DType dtype) {
  switch (dtype) {
    case DType::kUInt8: return 1;
    case DType::kInt16:
    case DType::kUInt16:
    case DType::kFloat16:
    case DType::kBFloat16: return 2;
    case DType::kInt32:
    case DType::kFloat32: return 4;
    case DType::kInt64:
    case DType::kFloat64: return 8;
  }
  return 1;
}

Device parse_device(std::string_view name) {
  if (name == "cpu") return Device::cpu();
  if (name == "cuda") return Device::cuda(0);
  const std::string_view digits = name.substr(std::min<size_t>(name.size(), 5));
  if (name.starts_with("cuda:") && !digits.empty() && digits.size() <= 4 &&
      digits.find_first_not_of("0123456789") == std::string_view::npos) {
    return Device::cuda(std::stoi(std::string(digits)));
  }
  throw Error(ErrorCode::kInvalidInput, "device",
              "'" + std::string(name) + "' is not a device: use 'cpu', 'cuda' or 'cuda:N'");
}

std::string to_string(Device device) {
  return device.is_cpu() ? std::string("cpu") : "cuda:" + std::to_string(device.index);
}

std::string_view to_string(DType dtype) {
  switch (dtype) {
    case DType::kUInt8: return "uint8";
    case DType::kInt16: return "int16";
    case DType::kUInt16: return "uint16";
    case DType::kInt32: return "int32";
    case DType::kInt64: return "int64";
    case DType::kFloat16: return "float16";
    case DType::kBFloat16: return "bfloat16";
    case DType::kFloat32: return "float32";
    case DType::kFloat64: return "float64";
  }
  return "unknown";
}

Tensor Tensor::empty(std::span<const int64_t> shape, DType dtype) {
  check_shape(shape);
  const size_t bytes = static_cast<size_t>(count(shape)) * element_size(dtype);
  const detail::Block block = detail::allocate_block(bytes);
  return from_blob(block.data, shape, {}, dtype, Device::cpu(), [block](void*) { detail::release_block(block); });
}

size_t release_cached_memory() noexcept {
  return detail::trim_block_cache();
}

Tensor Tensor::zeros(std::span<const int64_t> shape, DType dtype) {
  Tensor t = empty(shape, dtype);
  std::memset(t.data_, 0, t.nbytes());
  return t;
}

Tensor Tensor::from_blob(void* data, std::span<const int64_t> shape, std::span<const int64_t> strides, DType dtype,
                         Device device, Deleter deleter) {
  check_shape(shape);
  if (!strides.empty() && strides.size() != shape.size()) {
    fail(fmt::format("{} strides given for {} dimensions", strides.size(), shape.size()));
  }
  Tensor t;
  t.storage_ = std::make_shared<Storage>(data, std::move(deleter));
  t.data_ = data;
  t.ndim_ = static_cast<int>(shape.size());
  t.dtype_ = dtype;
  t.device_ = device;
  int64_t stride = 1;
  for (int d = t.ndim_ - 1; d >= 0; --d) {
    t.shape_[d] = shape[d];
    t.strides_[d] = strides.empty() ? stride : strides[d];
    stride *= std::max<int64_t>(shape[d], 1);
  }
  return t;
}

int Tensor::wrap_dim(int dim) const {
  const int d = dim < 0 ? dim + ndim_ : dim;
  if (d < 0 || d >= ndim_) fail(fmt::format("dimension {} out of range for a {}-d tensor", dim, ndim_));
  return d;
}

int64_t Tensor::size(int dim) const {
  return shape_[wrap_dim(dim)];
}
int64_t Tensor::stride(int dim) const {
  return strides_[wrap_dim(dim)];
}
int64_t Tensor::numel() const {
  return defined() ? count(shape()) : 0;
}

bool Tensor::is_contiguous() const {
  int64_t expected = 1;
  for (int d = ndim_ - 1; d >= 0; --d) {
    if (shape_[d] == 1) continue;
    if (strides_[d] != expected) return false;
    expected *= shape_[d];
  }
  return true;
}

void Tensor::check_dtype(DType expected) const {
  if (dtype_ != expected) {
    fail(fmt::format("element type {} requested from a {} tensor", to_string(expected), to_string(dtype_)));
  }
}

Tensor Tensor::slice(int dim, int64_t start, int64_t stop, int64_t step) const {
  const int d = wrap_dim(dim);
  if (step == 0) fail("slice step must not be 0");
  const int64_t n = shape_[d];
  // Python's slice.indices(): clamp to [0, n] for positive steps and [-1, n-1] for negative ones.
  auto clamp = [&](int64_t i) {
    if (i < 0) i += n;
    return step > 0 ? std::clamp<int64_t>(i, 0, n) : std::clamp<int64_t>(i, -1, n - 1);
  };
  start = clamp(start);
  stop = clamp(stop);
  // Unsigned arithmetic: |step| may be as large as 2^63.
  const uint64_t magnitude = step > 0 ? static_cast<uint64_t>(step) : uint64_t{0} - static_cast<uint64_t>(step);
  const uint64_t span = step > 0 ? static_cast<uint64_t>(std::max<int64_t>(stop - start, 0))
                                 : static_cast<uint64_t>(std::max<int64_t>(start - stop, 0));
  const int64_t len = span == 0 ? 0 : static_cast<int64_t>((span - 1) / magnitude + 1);
  Tensor t = *this;
  if (len > 0)
    t.data_ = static_cast<std::byte*>(data_) + start * strides_[d] * static_cast<int64_t>(element_size(dtype_));
  t.shape_[d] = len;
  // stride * step, as NumPy; with one element or none the stride is never used, so a product that
  // overflows (|step| near 2^63) keeps the old stride instead.
  if (__builtin_mul_overflow(strides_[d], step, &t.strides_[d])) t.strides_[d] = strides_[d];
  return t;
}

Tensor Tensor::select(int dim, int64_t index) const {
  const int d = wrap_dim(dim);
  const int64_t i = index < 0 ? index + shape_[d] : index;
  if (i < 0 || i >= shape_[d]) fail(fmt::format("index {} out of range for size {}", index, shape_[d]));
  Tensor t = *this;
  t.data_ = static_cast<std::byte*>(data_) + i * strides_[d] * static_cast<int64_t>(element_size(dtype_));
  for (int k = d; k + 1 < ndim_; ++k) {
    t.shape_[k] = shape_[k + 1];
    t.strides_[k] = strides_[k + 1];
  }
  t.ndim_ = ndim_ - 1;
  return t;
}

Tensor Tensor::permute(std::span<const int> dims) const {
  if (static_cast<int>(dims.size()) != ndim_)
    fail(fmt::format("permute of {} dims on a {}-d tensor", dims.size(), ndim_));
  bool seen[kMaxDims] = {};
  Tensor t = *this;
  for (int i = 0; i < ndim_; ++i) {
    const int d = wrap_dim(dims[i]);
    if (seen[d]) fail("permute dims repeat a dimension");
    seen[d] = true;
    t.shape_[i] = shape_[d];
    t.strides_[i] = strides_[d];
  }
  return t;
}

Tensor Tensor::view(std::span<const int64_t> shape) const {
  check_shape(shape);
  if (!is_contiguous()) fail("view needs a contiguous tensor");
  if (count(shape) != numel()) fail(fmt::format("view of {} elements as {}", numel(), count(shape)));
  Tensor t = *this;
  t.ndim_ = static_cast<int>(shape.size());
  int64_t stride = 1;
  for (int d = t.ndim_ - 1; d >= 0; --d) {
    t.shape_[d] = shape[d];
    t.strides_[d] = stride;
    stride *= std::max<int64_t>(shape[d], 1);
  }
  return t;
}

void Tensor::copy_from(const Tensor& src) const {
  if (!device_.is_cpu() || !src.device_.is_cpu()) {
    throw Error(ErrorCode::kUnsupported, "tensor", "copies between devices need loom::accel");
  }
  if (src.dtype_ != dtype_ || src.ndim_ != ndim_ || !std::equal(shape_, shape_ + ndim_, src.shape_)) {
    fail("copy_from needs the same shape and dtype");
  }
  const int64_t esize = static_cast<int64_t>(element_size(dtype_));
  if (numel() == 0) return;
  if (is_contiguous() && src.is_contiguous()) {
    std::memcpy(data_, src.data_, nbytes());
    return;
  }
  // Pad to kMaxDims leading size-1 dims, then walk the outer dims with an odometer and copy the
  // innermost dimension as a run (one memcpy when both inner strides are 1).
  int64_t n[kMaxDims], ds[kMaxDims], ss[kMaxDims];
  const int pad = kMaxDims - ndim_;
  for (int d = 0; d < kMaxDims; ++d) {
    n[d] = d < pad ? 1 : shape_[d - pad];
    ds[d] = d < pad ? 0 : strides_[d - pad] * esize;
    ss[d] = d < pad ? 0 : src.strides_[d - pad] * esize;
  }
  const int64_t inner = n[kMaxDims - 1];
  const int64_t dsi = ds[kMaxDims - 1], ssi = ss[kMaxDims - 1];
  const bool run = dsi == esize && ssi == esize;
  for (int64_t i0 = 0; i0 < n[0]; ++i0)
    for (int64_t i1 = 0; i1 < n[1]; ++i1)
      for (int64_t i2 = 0; i2 < n[2]; ++i2)
        for (int64_t i3 = 0; i3 < n[3]; ++i3) {
          auto* d = static_cast<std::byte*>(data_) + i0 * ds[0] + i1 * ds[1] + i2 * ds[2] + i3 * ds[3];
          auto* s = static_cast<const std::byte*>(src.data_) + i0 * ss[0] + i1 * ss[1] + i2 * ss[2] + i3 * ss[3];
          if (run) {
            std::memcpy(d, s, inner * esize);
            continue;
          }
          const int64_t de = dsi / esize, se = ssi / esize;  // element strides of the inner dimension
          switch (esize) {
            case 1: copy_run<uint8_t>(d, s, inner, de, se); break;
            case 2: copy_run<uint16_t>(d, s, inner, de, se); break;
            case 4: copy_run<uint32_t>(d, s, inner, de, se); break;
            default: copy_run<uint64_t>(d, s, inner, de, se); break;
          }
        }
}

Tensor Tensor::clone() const {
  if (!defined()) return {};
  Tensor t = empty(shape(), dtype_);
  t.copy_from(*this);
  return t;
}

Tensor Tensor::contiguous() const {
  return is_contiguous() ? *this : clone();
}

}  // namespace loom
