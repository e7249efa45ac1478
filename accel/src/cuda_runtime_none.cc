// loom/accel/cuda.h, stream.h and device_memory.h for builds without CUDA (LOOM_WITH_CUDA off): every
// request for a CUDA device is Error(kUnsupported), CPU copies work, waits and statistics are trivial.
#include <string>

#include "loom/accel/cuda.h"
#include "loom/accel/device_memory.h"
#include "loom/accel/stream.h"
#include "loom/codec/error.h"

namespace loom::accel {
namespace {

[[noreturn]] void no_cuda(const std::string& what) {
  throw Error(ErrorCode::kUnsupported, "cuda", what + ": loom was built without CUDA support");
}

}  // namespace

bool built_with_cuda() {
  return false;
}

int cuda_device_count() {
  return 0;
}

void check_cuda_device(int index, const char* input) {
  throw Error(ErrorCode::kUnsupported, input,
              "device cuda:" + std::to_string(index) + " is not usable: loom was built without CUDA support");
}

void check_cuda(int status, const char* what) {
  if (status != 0) no_cuda(std::string(what) + " failed with CUDA status " + std::to_string(status));
}

Tensor to_device(const Tensor& src, Device device) {
  if (src.device().is_cpu() && device.is_cpu()) return src.clone();
  no_cuda("to_device");
}

Tensor copy(const Tensor& src, Device device, const Stream&) {
  if (src.device().is_cpu() && device.is_cpu()) {
    if (!src.is_contiguous()) no_cuda("copy of a non-contiguous tensor");
    return src.clone();
  }
  no_cuda("copy");
}

void copy_into(const Tensor& src, const Tensor& dst, const Stream&) {
  if (!src.device().is_cpu() || !dst.device().is_cpu()) no_cuda("copy_into");
  dst.copy_from(src);
}

Stream Stream::create(int) {
  no_cuda("cannot create a CUDA stream");
}

void Stream::synchronize() const {}

bool Stream::query() const {
  return true;
}

void Stream::wait(const Event&) const {}

Event Event::create(int) {
  no_cuda("cannot create a CUDA event");
}

void Event::record(const Stream&) {
  no_cuda("cannot record a CUDA event");
}

void Event::synchronize() const {}

bool Event::query() const {
  return true;
}

DeviceGuard::DeviceGuard(int) {}

DeviceGuard::~DeviceGuard() = default;

Tensor empty_device(std::span<const int64_t>, DType, Device, const Stream&) {
  no_cuda("empty_device");
}

Tensor empty_device(std::initializer_list<int64_t>, DType, Device, const Stream&) {
  no_cuda("empty_device");
}

void record_stream(const Tensor&, const Stream&) {}

Tensor empty_pinned(std::span<const int64_t>, DType) {
  no_cuda("empty_pinned");
}

Tensor empty_pinned(std::initializer_list<int64_t>, DType) {
  no_cuda("empty_pinned");
}

MemoryStats device_memory_stats(int) {
  return {};
}

MemoryStats pinned_memory_stats() {
  return {};
}

size_t release_cached_device_memory() {
  return 0;
}

size_t release_cached_pinned_memory() {
  return 0;
}

}  // namespace loom::accel
