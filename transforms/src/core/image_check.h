// The one image check of loom::transforms (private): every op that takes an image tensor starts with
// check_image, so that a bad image gets the same error, named after the op, in every family:
//   Error(kInvalidInput, op, ...) for a tensor that is not a 3-D image or has a channel count the op
//     does not accept (the input is malformed for the op);
//   Error(kUnsupported, op, ...) for an image on a device the op does not run on (the CPU only, or
//     also a CUDA device this process can use when the op has a CUDA twin and loom was built with
//     CUDA) or of a dtype the op does not handle (well-formed, but not handled here).
// Messages read "expected <what>, got <what it was>".
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>

#include "loom/codec/layout.h"
#include "loom/codec/tensor.h"

namespace loom::transforms {

// The dimensions of a 3-D image in `layout`.
struct ImageShape {
  int64_t channels = 0;
  int64_t height = 0;
  int64_t width = 0;
};

// The channel counts an op accepts: any, 0 included (the default), exactly the listed counts (each
// 0..63), or at least n.
class Channels {
 public:
  constexpr Channels() = default;
  Channels(std::initializer_list<int> counts);
  static constexpr Channels at_least(int64_t n) {
    Channels c;
    c.min_ = n;
    return c;
  }
  bool accepts(int64_t count) const;
  std::string describe() const;  // "1 or 3", "1, 2, 3 or 4", "at least 1"

 private:
  uint64_t listed_ = 0;  // bit c: count c accepted; 0: no list (min_ decides)
  int64_t min_ = 0;
};

// The devices an op runs on: the CPU only, or also CUDA devices (ops with a CUDA twin, `<family>.cu`).
enum class Devices { kCpu, kCpuOrCuda };

// The rank check alone (no device, dtype or channel check): Error(kInvalidInput, op) unless `image` is
// a defined 3-D tensor; its shape in `layout`.
ImageShape image_shape(const Tensor& image, Layout layout, const char* op);

// Checks, in this order: a defined 3-D tensor, on a device of `devices` (kCpuOrCuda: a CUDA tensor
// needs a build with CUDA and a device index below accel::cuda_device_count()), of one of `dtypes`
// (empty: any dtype), with a channel count (in `layout`) that `channels` accepts. Throws as the
// header comment says; returns the image's shape.
ImageShape check_image(const Tensor& image, Layout layout, const char* op, std::initializer_list<DType> dtypes = {},
                       Channels channels = {}, Devices devices = Devices::kCpu);

// Error(kUnsupported, op) unless `device` is the CPU or (kCpuOrCuda) a CUDA device this process can
// use (accel::check_cuda_device says why not); `what` names the tensor in the CPU-only message ("an
// image", "the output").
void check_device(Device device, Devices devices, const char* op, const char* what);

}  // namespace loom::transforms
