// The thread's current stream per device and the guard that sets it (loom/accel/stream.h), and
// Stream::wrap: the same in builds with and without CUDA (nothing here calls the CUDA runtime).
#include <vector>

#include "loom/accel/stream.h"
#include "loom/codec/error.h"

namespace loom::accel {
namespace {

// Indexed by device; a default Stream (handle 0 on device 0) where no guard set one. A device's entry
// holds its device number once set, so an unset entry of device d is told apart by its device.
thread_local std::vector<Stream> current;

}  // namespace

Stream Stream::wrap(void* handle, int device) {
  if (device < 0) throw Error(ErrorCode::kInvalidInput, "cuda", "a CUDA device index cannot be negative");
  Stream s;
  s.handle_ = std::shared_ptr<void>(handle, [](void*) {});  // not ours to destroy
  s.device_ = device;
  return s;
}

Stream current_stream(int device) {
  if (device >= 0 && static_cast<size_t>(device) < current.size() && current[device].device() == device) {
    return current[device];
  }
  return Stream::wrap(nullptr, device);
}

StreamGuard::StreamGuard(const Stream& stream) : previous_(current_stream(stream.device())) {
  const auto d = static_cast<size_t>(stream.device());
  if (current.size() <= d) current.resize(d + 1);
  current[d] = stream;
}

StreamGuard::~StreamGuard() {
  current[static_cast<size_t>(previous_.device())] = previous_;
}

}  // namespace loom::accel
