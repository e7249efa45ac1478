// CUDA device runtime: device discovery and host/device copies of tensors.
//
// Every function here works in a build without CUDA (LOOM_WITH_CUDA=OFF) and on machines without a
// GPU or driver: cuda_device_count() is then 0 and copies to a CUDA device throw Error(kUnsupported).
#pragma once

#include "loom/codec/api.h"
#include "loom/codec/tensor.h"

LOOM_API_BEGIN

namespace loom::accel {

// True when loom was built with CUDA support.
bool built_with_cuda();

// Number of usable CUDA devices; 0 without CUDA support, a driver or a device. Never throws.
int cuda_device_count();

// A contiguous copy of `src` on `device` (CPU -> CUDA, CUDA -> CPU, CUDA -> CUDA or CPU -> CPU).
// Synchronous: the copy has finished when the call returns. Throws Error(kUnsupported) when the
// device is a CUDA device this process cannot use.
Tensor to_device(const Tensor& src, Device device);

// ---- fork safety ----
// CUDA's state does not survive fork(): a child forked after its parent initialised CUDA cannot use
// it (the driver's contexts and threads stay in the parent). loom records where CUDA was initialised
// and refuses it in such a child with a clear error instead of the driver's undefined behaviour:
// to_device throws from check_cuda_fork_safety, and cuda_device_count returns 0 there. A child made
// with spawn or forkserver (a fresh process), or forked before CUDA was first used, is unaffected.

// Records that this process has initialised CUDA (installing the fork handler once). Every path that
// calls into the CUDA runtime calls it first, after check_cuda_fork_safety. Thread-safe.
void note_cuda_initialized();

// Error(kUnsupported, "cuda") naming `what` when this process was forked from one that had
// initialised CUDA (directly or through an ancestor); no-op otherwise. Thread-safe, never blocks.
void check_cuda_fork_safety(const char* what);

}  // namespace loom::accel

LOOM_API_END
