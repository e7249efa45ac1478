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

}  // namespace loom::accel

LOOM_API_END
