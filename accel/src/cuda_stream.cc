// CUDA implementation of Stream, Event and DeviceGuard (loom/accel/stream.h); compiled only with CUDA.
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "loom/accel/cuda.h"
#include "loom/accel/stream.h"
#include "loom/codec/error.h"

namespace loom::accel {
namespace {

cudaStream_t raw(const Stream& s) {
  return static_cast<cudaStream_t>(s.handle());
}

}  // namespace

Stream Stream::create(int device) {
  check_cuda_device(device, "Stream::create");
  const DeviceGuard on(device);
  cudaStream_t s = nullptr;
  check_cuda(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  Stream stream;
  stream.handle_ = std::shared_ptr<void>(s, [](void* h) { cudaStreamDestroy(static_cast<cudaStream_t>(h)); });
  stream.device_ = device;
  return stream;
}

void Stream::synchronize() const {
  if (handle() == nullptr && cuda_device_count() == 0) return;  // nothing can be queued
  const DeviceGuard on(device_);
  check_cuda(cudaStreamSynchronize(raw(*this)), "cudaStreamSynchronize");
}

bool Stream::query() const {
  if (handle() == nullptr && cuda_device_count() == 0) return true;
  const DeviceGuard on(device_);
  const cudaError_t status = cudaStreamQuery(raw(*this));
  if (status == cudaErrorNotReady) return false;
  check_cuda(status, "cudaStreamQuery");
  return true;
}

void Stream::wait(const Event& event) const {
  if (!event.defined()) return;
  const DeviceGuard on(device_);
  check_cuda(cudaStreamWaitEvent(raw(*this), static_cast<cudaEvent_t>(event.handle()), 0), "cudaStreamWaitEvent");
}

Event Event::create(int device) {
  check_cuda_device(device, "Event::create");
  const DeviceGuard on(device);
  cudaEvent_t e = nullptr;
  check_cuda(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreateWithFlags");
  Event event;
  event.handle_ = std::shared_ptr<void>(e, [](void* h) { cudaEventDestroy(static_cast<cudaEvent_t>(h)); });
  event.device_ = device;
  return event;
}

void Event::record(const Stream& stream) {
  if (!defined()) throw Error(ErrorCode::kInvalidInput, "cuda", "cannot record an event that was never created");
  if (stream.device() != device_) {
    throw Error(
        ErrorCode::kInvalidInput, "cuda",
        fmt::format("cannot record an event of CUDA device {} on a stream of device {}", device_, stream.device()));
  }
  const DeviceGuard on(device_);
  check_cuda(cudaEventRecord(static_cast<cudaEvent_t>(handle()), raw(stream)), "cudaEventRecord");
}

void Event::synchronize() const {
  if (!defined()) return;
  check_cuda(cudaEventSynchronize(static_cast<cudaEvent_t>(handle())), "cudaEventSynchronize");
}

bool Event::query() const {
  if (!defined()) return true;
  const cudaError_t status = cudaEventQuery(static_cast<cudaEvent_t>(handle()));
  if (status == cudaErrorNotReady) return false;
  check_cuda(status, "cudaEventQuery");
  return true;
}

DeviceGuard::DeviceGuard(int device) {
  if (cuda_device_count() == 0) return;  // nothing to select; whatever comes next reports the missing device
  int now = 0;
  check_cuda(cudaGetDevice(&now), "cudaGetDevice");
  if (now == device) return;
  check_cuda(cudaSetDevice(device), "cudaSetDevice");
  previous_ = now;
}

DeviceGuard::~DeviceGuard() {
  if (previous_ >= 0) cudaSetDevice(previous_);
}

}  // namespace loom::accel
