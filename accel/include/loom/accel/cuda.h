// CUDA device runtime: device discovery and host/device copies of tensors.
//
// Every function here works in a build without CUDA (LOOM_WITH_CUDA=OFF) and on machines without a
// GPU or driver: cuda_device_count() is then 0 and copies to a CUDA device throw Error(kUnsupported).
#pragma once

#include "loom/accel/stream.h"
#include "loom/codec/api.h"
#include "loom/codec/tensor.h"

LOOM_API_BEGIN

namespace loom::accel {

// True when loom was built with CUDA support.
bool built_with_cuda();

// Number of usable CUDA devices; 0 without CUDA support, a driver or a device. Never throws.
int cuda_device_count();

// The one check that CUDA device `index` can be used here, for every API that takes a CUDA device:
// Error(kUnsupported) naming `input` otherwise, saying why: "device cuda:N is not usable: loom was
// built without CUDA support" / "...: no CUDA device (no GPU, or no driver)", "device cuda:N does
// not exist (M CUDA devices)", or check_cuda_fork_safety's error in a forked child.
void check_cuda_device(int index, const char* input);

// A contiguous copy of `src` on `device` (CPU -> CUDA, CUDA -> CPU, CUDA -> CUDA or CPU -> CPU).
// Synchronous: the copy is queued on the current stream (stream.h) after the work already there, and
// has finished when the call returns. Throws Error(kUnsupported) when the device is a CUDA device this
// process cannot use.
Tensor to_device(const Tensor& src, Device device);

// The same copy, asynchronous: queued on `stream` (whose device must be the CUDA side of the copy; for
// CUDA -> CUDA, either), and the call returns at once. The result's device memory comes from the
// caching allocator for `stream` (device_memory.h); a CPU result is pinned memory, so that the copy
// really overlaps. `src` must stay alive and unchanged until the stream has passed the copy
// (Stream::synchronize, or an Event recorded after it), as with cudaMemcpyAsync. A pageable CPU
// source is copied by CUDA through a staging buffer and the call returns once it may be changed.
// A non-contiguous source throws Error(kUnsupported) (make it contiguous on the CPU first).
Tensor copy(const Tensor& src, Device device, const Stream& stream);
// Copies `src` into `dst` (same shape and dtype, both contiguous, any devices) on `stream`,
// asynchronously, under the same rules.
void copy_into(const Tensor& src, const Tensor& dst, const Stream& stream);

// The one place where a CUDA runtime status becomes a loom::Error: returns for cudaSuccess (0), and
// otherwise clears the status and throws Error(kLimitExceeded) for an out-of-memory status,
// Error(kUnsupported) for "no device / no driver / no kernel image for this GPU", and Error(kIo) for
// every other failure (a launch failure, an illegal address, ...), each naming `what` and CUDA's own
// name and text for the status. `status` is a cudaError_t.
void check_cuda(int status, const char* what);

// ---- fork safety ----
// CUDA's state does not survive fork(): a child forked after its parent initialised CUDA cannot use
// it (the driver's contexts and threads stay in the parent). loom records where CUDA was initialised
// and refuses it in such a child with a clear error instead of the driver's undefined behaviour:
// to_device throws from check_cuda_fork_safety, and cuda_device_count returns 0 there. A child made
// with spawn or forkserver (a fresh process), or forked before CUDA was first used, is unaffected.

// Records that this process has initialised CUDA (installing the fork handler once). Every path that
// calls into the CUDA runtime calls it first, after check_cuda_fork_safety. Thread-safe.
void note_cuda_initialized();

// True in a process forked from one that had initialised CUDA (directly or through an ancestor): CUDA
// must not be called there, not even to free memory. Never throws, never blocks.
bool forked_after_cuda_init() noexcept;

// Error(kUnsupported, "cuda") naming `what` when this process was forked from one that had
// initialised CUDA (directly or through an ancestor); no-op otherwise. Thread-safe, never blocks.
void check_cuda_fork_safety(const char* what);

}  // namespace loom::accel

LOOM_API_END
