// loom::Tensor — an n-dimensional view over CPU or CUDA memory, shared by every module.
//
// Layout: shape and strides are in elements (not bytes), row-major when contiguous. Strides may be
// negative (a view with a negative slice step) or zero (broadcast). At most kMaxDims dimensions.
// Ownership: a Tensor shares its storage with every view made from it (slice, select, permute, view);
// the storage is released, through its deleter, when the last of them is destroyed. Copying a Tensor
// copies the view, not the data (use clone() for a deep copy).
// Thread safety: distinct Tensor objects may be used from different threads even when they share
// storage; writing elements while another thread reads them is the caller's race.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "loom/codec/api.h"

struct DLManagedTensor;  // from dlpack/dlpack.h; loom's public headers include no third-party header

LOOM_API_BEGIN

namespace loom {

enum class DType : uint8_t { kUInt8, kInt16, kUInt16, kInt32, kInt64, kFloat16, kBFloat16, kFloat32, kFloat64 };

// Bytes per element (1, 2, 4 or 8).
size_t element_size(DType dtype);
// "uint8", "int16", ..., "bfloat16", "float32", "float64".
std::string_view to_string(DType dtype);

// The DType of a C++ element type (uint8_t, int16_t, uint16_t, int32_t, int64_t, float, double).
template <typename T>
constexpr DType dtype_of();
template <>
constexpr DType dtype_of<uint8_t>() {
  return DType::kUInt8;
}
template <>
constexpr DType dtype_of<int16_t>() {
  return DType::kInt16;
}
template <>
constexpr DType dtype_of<uint16_t>() {
  return DType::kUInt16;
}
template <>
constexpr DType dtype_of<int32_t>() {
  return DType::kInt32;
}
template <>
constexpr DType dtype_of<int64_t>() {
  return DType::kInt64;
}
template <>
constexpr DType dtype_of<float>() {
  return DType::kFloat32;
}
template <>
constexpr DType dtype_of<double>() {
  return DType::kFloat64;
}

enum class DeviceType : uint8_t { kCPU, kCUDA };

struct Device {
  DeviceType type = DeviceType::kCPU;
  int index = 0;  // CUDA device ordinal; 0 for the CPU

  static constexpr Device cpu() { return {}; }
  static constexpr Device cuda(int index = 0) { return {DeviceType::kCUDA, index}; }
  bool is_cpu() const { return type == DeviceType::kCPU; }
  bool operator==(const Device&) const = default;
};

// "cpu", "cuda" (device 0) or "cuda:N", as torch names devices; Error(kInvalidInput) for anything else.
Device parse_device(std::string_view name);
// The name parse_device reads: "cpu" or "cuda:N".
std::string to_string(Device device);

inline constexpr int kMaxDims = 5;
// Alignment of the storage that Tensor::empty allocates.
inline constexpr size_t kTensorAlignment = 64;

// Tensor::empty keeps the storage of freed tensors of 64 KiB and more for reuse (rounded up to a size
// class, at most 12.5% larger; a request takes a kept block of its class or a larger one up to twice
// its size), up to LOOM_TENSOR_CACHE_MB MiB in all (default 256; 0 disables it), so
// that tensors made over and over in a loop reuse memory already mapped instead of faulting in fresh
// pages. release_cached_memory() frees what is kept now and returns its size in bytes (as
// torch.cuda.empty_cache does for its cache). Thread safe.
size_t release_cached_memory() noexcept;

class Tensor {
 public:
  // Called once with the data pointer when the last view of borrowed storage goes away.
  using Deleter = std::function<void(void* data)>;

  // An undefined tensor: defined() is false, ndim() is 0 and it holds no storage.
  Tensor() = default;

  // New CPU storage, 64-byte aligned, uninitialised (empty) or zero-filled (zeros). Throws
  // Error(kInvalidInput) on a negative size or more than kMaxDims dimensions.
  static Tensor empty(std::span<const int64_t> shape, DType dtype);
  static Tensor empty(std::initializer_list<int64_t> shape, DType dtype) {
    return empty(std::span<const int64_t>(shape.begin(), shape.size()), dtype);
  }
  static Tensor zeros(std::span<const int64_t> shape, DType dtype);
  static Tensor zeros(std::initializer_list<int64_t> shape, DType dtype) {
    return zeros(std::span<const int64_t>(shape.begin(), shape.size()), dtype);
  }

  // Borrowed storage: wraps `data` without copying. `strides` empty means contiguous. `deleter`, when
  // given, is called with `data` once no view needs the memory any more; without one the caller keeps
  // the memory alive for as long as any view exists.
  static Tensor from_blob(void* data, std::span<const int64_t> shape, std::span<const int64_t> strides, DType dtype,
                          Device device = Device::cpu(), Deleter deleter = {});

  // Zero-copy DLPack exchange (DLPack 0.6 ABI: DLManagedTensor).
  // to_dlpack: the caller owns the result and must call its deleter exactly once; the storage stays
  // alive until then. from_dlpack: takes ownership of `managed` (its deleter runs when the last view is
  // gone); throws Error(kUnsupported) for dtypes, lanes or devices loom does not represent.
  DLManagedTensor* to_dlpack() const;
  static Tensor from_dlpack(DLManagedTensor* managed);

  bool defined() const { return storage_ != nullptr; }
  int ndim() const { return ndim_; }
  std::span<const int64_t> shape() const { return {shape_, static_cast<size_t>(ndim_)}; }
  std::span<const int64_t> strides() const { return {strides_, static_cast<size_t>(ndim_)}; }
  // size(d) and stride(d) accept negative d counting from the end, as Python does.
  int64_t size(int dim) const;
  int64_t stride(int dim) const;
  DType dtype() const { return dtype_; }
  Device device() const { return device_; }
  int64_t numel() const;
  size_t nbytes() const { return static_cast<size_t>(numel()) * element_size(dtype_); }
  // Row-major with no gaps (size-1 dimensions may have any stride).
  bool is_contiguous() const;

  // Address of the element at index (0, ..., 0).
  void* data() const { return data_; }
  // Typed access; throws Error(kInvalidInput) when T does not match dtype().
  template <typename T>
  T* data() const {
    check_dtype(dtype_of<T>());
    return static_cast<T*>(data_);
  }

  // ---- Views (share storage, never copy) ----
  // Elements start, start+step, ... before stop along `dim`; Python semantics: negative start/stop
  // count from the end and are clamped to the valid range; step must not be 0 and may be negative.
  Tensor slice(int dim, int64_t start, int64_t stop, int64_t step = 1) const;
  // Index `index` (negative counts from the end) along `dim`; the result has one dimension less.
  Tensor select(int dim, int64_t index) const;
  // Reorders dimensions: result.size(i) == size(dims[i]). `dims` must be a permutation of 0..ndim-1.
  Tensor permute(std::span<const int> dims) const;
  Tensor permute(std::initializer_list<int> dims) const {
    return permute(std::span<const int>(dims.begin(), dims.size()));
  }
  // Same elements, new shape; requires a contiguous tensor and the same numel.
  Tensor view(std::span<const int64_t> shape) const;
  Tensor view(std::initializer_list<int64_t> shape) const {
    return view(std::span<const int64_t>(shape.begin(), shape.size()));
  }

  // ---- Copies (CPU only: a CUDA tensor that would need a copy throws Error(kUnsupported); use
  // loom::accel::to_device) ----
  // This tensor when already contiguous (on any device), else a contiguous copy.
  Tensor contiguous() const;
  // Always a new contiguous copy.
  Tensor clone() const;
  // Copies `src` (same shape and dtype, any strides) into this tensor's elements.
  void copy_from(const Tensor& src) const;

  // Number of Tensor objects sharing this storage (for tests of ownership).
  long use_count() const { return storage_.use_count(); }

 private:
  struct LOOM_HIDDEN Storage;
  void check_dtype(DType expected) const;
  int wrap_dim(int dim) const;

  std::shared_ptr<Storage> storage_;
  void* data_ = nullptr;
  int64_t shape_[kMaxDims] = {};
  int64_t strides_[kMaxDims] = {};
  int ndim_ = 0;
  DType dtype_ = DType::kUInt8;
  Device device_{};
};

}  // namespace loom

LOOM_API_END
