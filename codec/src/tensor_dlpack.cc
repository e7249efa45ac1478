// DLPack exchange for loom::Tensor (DLPack 0.6 ABI, as Debian's libdlpack-dev ships it).
#include <dlpack/dlpack.h>
#include <fmt/format.h>

#include <utility>

#include "loom/codec/error.h"
#include "loom/codec/tensor.h"

namespace loom {
namespace {

[[noreturn]] void unsupported(const std::string& message) {
  throw Error(ErrorCode::kUnsupported, "dlpack tensor", message);
}

DLDataType to_dl(DType dtype) {
  const auto bits = static_cast<uint8_t>(element_size(dtype) * 8);
  switch (dtype) {
    case DType::kUInt8:
    case DType::kUInt16: return {kDLUInt, bits, 1};
    case DType::kInt16:
    case DType::kInt32:
    case DType::kInt64: return {kDLInt, bits, 1};
    case DType::kBFloat16: return {kDLBfloat, bits, 1};
    case DType::kFloat16:
    case DType::kFloat32:
    case DType::kFloat64: return {kDLFloat, bits, 1};
  }
  return {kDLUInt, 8, 1};
}

DType from_dl(DLDataType t) {
  if (t.lanes != 1) unsupported(fmt::format("vector dtype with {} lanes", t.lanes));
  switch (t.code) {
    case kDLUInt:
      if (t.bits == 8) return DType::kUInt8;
      if (t.bits == 16) return DType::kUInt16;
      break;
    case kDLInt:
      if (t.bits == 16) return DType::kInt16;
      if (t.bits == 32) return DType::kInt32;
      if (t.bits == 64) return DType::kInt64;
      break;
    case kDLFloat:
      if (t.bits == 16) return DType::kFloat16;
      if (t.bits == 32) return DType::kFloat32;
      if (t.bits == 64) return DType::kFloat64;
      break;
    case kDLBfloat:
      if (t.bits == 16) return DType::kBFloat16;
      break;
    default: break;
  }
  unsupported(fmt::format("dtype code {} with {} bits", static_cast<int>(t.code), t.bits));
}

// Keeps the exported view (and so its storage) alive until the consumer calls the deleter.
struct ExportContext {
  Tensor tensor;
  int64_t shape[kMaxDims];
  int64_t strides[kMaxDims];
  DLManagedTensor managed;
};

}  // namespace

DLManagedTensor* Tensor::to_dlpack() const {
  if (!defined()) throw Error(ErrorCode::kInvalidInput, "tensor", "cannot export an undefined tensor");
  auto ctx = std::make_unique<ExportContext>();
  ctx->tensor = *this;
  for (int d = 0; d < ndim_; ++d) {
    ctx->shape[d] = shape_[d];
    ctx->strides[d] = strides_[d];
  }
  DLTensor& dl = ctx->managed.dl_tensor;
  dl.data = data_;
  dl.device = device_.is_cpu() ? DLDevice{kDLCPU, 0} : DLDevice{kDLCUDA, device_.index};
  dl.ndim = ndim_;
  dl.dtype = to_dl(dtype_);
  dl.shape = ctx->shape;
  dl.strides = ctx->strides;
  dl.byte_offset = 0;
  ctx->managed.manager_ctx = ctx.get();
  ctx->managed.deleter = [](DLManagedTensor* self) { delete static_cast<ExportContext*>(self->manager_ctx); };
  return &ctx.release()->managed;
}

Tensor Tensor::from_dlpack(DLManagedTensor* managed) {
  if (managed == nullptr) throw Error(ErrorCode::kInvalidInput, "dlpack tensor", "null DLManagedTensor");
  // Until the Tensor owns `managed`, any error must still release it.
  auto release = [managed] {
    if (managed->deleter) managed->deleter(managed);
  };
  try {
    const DLTensor& dl = managed->dl_tensor;
    Device device;
    switch (dl.device.device_type) {
      case kDLCPU:
      case kDLCUDAHost: device = Device::cpu(); break;
      case kDLCUDA: device = Device::cuda(dl.device.device_id); break;
      default: unsupported(fmt::format("device type {}", static_cast<int>(dl.device.device_type)));
    }
    const DType dtype = from_dl(dl.dtype);
    if (dl.ndim < 0 || dl.ndim > kMaxDims) unsupported(fmt::format("{} dimensions", dl.ndim));
    std::span<const int64_t> shape(dl.shape, dl.ndim);
    std::span<const int64_t> strides =
        dl.strides ? std::span<const int64_t>(dl.strides, dl.ndim) : std::span<const int64_t>();
    void* data = static_cast<std::byte*>(dl.data) + dl.byte_offset;
    return from_blob(data, shape, strides, dtype, device, [managed](void*) {
      if (managed->deleter) managed->deleter(managed);
    });
  } catch (...) {
    release();
    throw;
  }
}

}  // namespace loom
