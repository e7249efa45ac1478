// CUDA streams and events as RAII types. No CUDA header: handles are passed as void* (cudaStream_t,
// cudaEvent_t), so that code built without the CUDA toolkit can still name them.
//
// Every type here exists in a build without CUDA too: creating a stream or event there (or on a machine
// without a usable device) throws Error(kUnsupported, "cuda"); the default-constructed Stream (CUDA's
// default stream of device 0) can always be named, and waiting on it is a no-op without CUDA.
//
// Ownership: copies share one handle (the last copy destroys what it owns). A wrapped handle
// (Stream::wrap, e.g. torch's current stream) is never destroyed by loom. Thread safety: a Stream or
// Event may be used from several threads at once, as CUDA allows for its handles.
#pragma once

#include <memory>

#include "loom/codec/api.h"

LOOM_API_BEGIN

namespace loom::accel {

class Event;

class Stream {
 public:
  // CUDA's legacy default stream (handle 0) on device 0.
  Stream() = default;

  // A new non-blocking stream on `device` (it does not synchronise with the default stream), destroyed
  // with its last copy. Throws Error(kUnsupported) without CUDA or without that device.
  static Stream create(int device = 0);
  // A stream created by someone else (a cudaStream_t as void*; nullptr is the default stream) on
  // `device`; loom never destroys it.
  static Stream wrap(void* handle, int device);

  void* handle() const { return handle_.get(); }  // the cudaStream_t; nullptr for the default stream
  int device() const { return device_; }

  // Blocks until every piece of work queued on the stream so far has finished.
  void synchronize() const;
  // True when every piece of work queued so far has finished (never blocks).
  bool query() const;
  // Work queued on this stream after this call waits for `event` (its last record()); the host does
  // not wait. An event never recorded is complete: nothing waits.
  void wait(const Event& event) const;

 private:
  std::shared_ptr<void> handle_;
  int device_ = 0;
};

class Event {
 public:
  // No event: query() is true and synchronize() returns at once.
  Event() = default;
  // A new event on `device` (timing disabled). Throws Error(kUnsupported) without CUDA or the device.
  static Event create(int device = 0);

  bool defined() const { return handle_ != nullptr; }
  void* handle() const { return handle_.get(); }  // the cudaEvent_t
  int device() const { return device_; }

  // Captures the work queued on `stream` so far; query/synchronize/Stream::wait then refer to it.
  void record(const Stream& stream);
  // Blocks until the recorded work has finished.
  void synchronize() const;
  // True when the recorded work has finished (never blocks).
  bool query() const;

 private:
  std::shared_ptr<void> handle_;
  int device_ = 0;
};

// Makes `device` CUDA's current device in this thread until destroyed (then the previous one is current
// again), for kernel launches and allocations on a tensor's device. Without CUDA it does nothing.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = -1;
};

// ---- the current stream ----
// The stream on which loom's operations on CUDA tensors (transforms, to_device, device decodes) queue
// their work in this thread, per device: CUDA's default stream unless a StreamGuard chose another.
Stream current_stream(int device = 0);

// Makes `stream` the current stream of its device in this thread until destroyed (then the previous
// one is current again). Guards nest; not movable.
class StreamGuard {
 public:
  explicit StreamGuard(const Stream& stream);
  ~StreamGuard();
  StreamGuard(const StreamGuard&) = delete;
  StreamGuard& operator=(const StreamGuard&) = delete;

 private:
  Stream previous_;
};

}  // namespace loom::accel

LOOM_API_END
