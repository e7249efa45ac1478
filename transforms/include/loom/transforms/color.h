// Color and dtype operations on image tensors, with torchvision.transforms.v2.functional semantics.
//
// Layout: every image is a 3-D tensor, C x H x W (Layout::kCHW, the default) or H x W x C
// (kHWC), with any strides (a strided input is read through a contiguous copy). Results are new
// contiguous tensors in the input's layout (normalize may change it, see NormalizeOptions); inputs are
// never written.
// Dtypes: uint8 and float32 (float images are expected in [0, 1], as torchvision's); to_dtype also
// handles uint16 and float64. uint8 results are computed in float32 and converted as torchvision
// converts tensors: clamped to [0, 255], then truncated toward zero (gaussian_blur rounds to nearest
// even instead, as torchvision does).
// Channels: 1 or 3 (adjust_saturation and adjust_hue return 1-channel images unchanged, as
// torchvision); normalize and to_dtype accept any channel count.
// Errors: Error(kInvalidInput) for a tensor that is not 3-D, a channel count the op does not accept, or
// a parameter out of its range (each function says which); Error(kUnsupported) for another dtype or a
// tensor that is not on the CPU (normalize and normalize_into also take an image on a usable CUDA
// device: see there).
// Thread safety: reentrant.
#pragma once

#include <array>
#include <vector>

#include "loom/codec/api.h"
#include "loom/codec/layout.h"
#include "loom/codec/tensor.h"

LOOM_API_BEGIN

namespace loom::transforms {

// torchvision.transforms.v2.functional.to_dtype for uint8, uint16, float32 and float64.
// scale = true (ToDtype(scale=True)):
//   integer -> float: x * (1 / max) with max = 255 or 65535, in the output's precision;
//   float -> integer: x * (max + 1 - 0.001), truncated toward zero (torchvision's mapping of [0, 1]
//     to even-sized bins); loom clamps to [0, max] first, where torch leaves out-of-range values
//     undefined;
//   uint8 <-> uint16: x * 256 and x / 256 (truncated); float <-> float: a plain cast.
// scale = false: a plain cast (float -> integer truncates toward zero after clamping to the range).
// The same dtype returns a contiguous copy.
Tensor to_dtype(const Tensor& image, DType dtype, bool scale = true, Layout layout = Layout::kCHW);

struct NormalizeOptions {
  Layout input_layout = Layout::kCHW;
  Layout output_layout = Layout::kCHW;  // e.g. HWC uint8 in, CHW float32 out
};

// (x - mean[c]) / std[c] per channel, as float32. uint8 input is scaled to [0, 1] first (ToDtype(
// float32, scale=True) then Normalize, fused into one pass: ((x * float(1/255)) - mean) / std, the same
// float32 operations as torchvision v2, so results are bit-identical with them). float32 input:
// (x - mean) / std. mean and std hold 1 value (for every channel) or one per channel; any std of 0
// throws Error(kInvalidInput). SIMD (Highway) for 1 and 3 channels, in any input/output layout pair.
// An image on a CUDA device (CUDA builds) gives a result on that device, bit-equal with the CPU's,
// queued on the device's current stream (the call returns once the work is queued).
Tensor normalize(const Tensor& image, const std::vector<float>& mean, const std::vector<float>& std,
                 const NormalizeOptions& options = {});
// The same, written into `out`: a contiguous float32 tensor on the image's device of the output's
// shape ([C, H, W] or [H, W, C] as options.output_layout says), for example one image's slot of a
// batch. Error(kInvalidInput) naming "normalize" for another shape, dtype or device or a tensor that is
// not contiguous.
void normalize_into(const Tensor& image, const Tensor& out, const std::vector<float>& mean,
                    const std::vector<float>& std, const NormalizeOptions& options = {});

// torchvision's rgb_to_grayscale: L = 0.2989 R + 0.587 G + 0.114 B (float32), 1 or 3 output channels
// (3: L repeated). A 1-channel input is copied (or repeated to 3 channels).
Tensor rgb_to_grayscale(const Tensor& image, int num_output_channels = 1, Layout layout = Layout::kCHW);

// x * factor, clamped to the dtype's range (1.0 for float). factor >= 0.
Tensor adjust_brightness(const Tensor& image, double factor, Layout layout = Layout::kCHW);

// Blend with the mean of the grayscale image (floored grayscale for uint8): factor * x + (1 - factor) *
// mean, clamped. factor >= 0.
Tensor adjust_contrast(const Tensor& image, double factor, Layout layout = Layout::kCHW);

// Blend with the grayscale image (floored for uint8): factor * x + (1 - factor) * gray, clamped.
// factor >= 0; 0 gives a gray image, 1 the input.
Tensor adjust_saturation(const Tensor& image, double factor, Layout layout = Layout::kCHW);

// Shifts the hue by hue_factor (in [-0.5, 0.5], a fraction of the hue circle) through torchvision's
// RGB -> HSV -> RGB formulas in float32; uint8 goes through to_dtype(scale=true) both ways.
Tensor adjust_hue(const Tensor& image, double hue_factor, Layout layout = Layout::kCHW);

// gain * x^gamma on the [0, 1] scale, clamped to [0, 1] (uint8 through to_dtype(scale=true) both
// ways). gamma >= 0.
Tensor adjust_gamma(const Tensor& image, double gamma, double gain = 1.0, Layout layout = Layout::kCHW);

// torchvision's gaussian_blur: kernel_size = {kx, ky} (odd, positive), sigma = {sx, sy} (> 0); the
// 1-D kernels are exp(-x^2 / (2 sigma^2)) at x = -(k-1)/2 .. (k-1)/2, normalised to sum 1; borders
// are reflected (torch "reflect": no edge repeat), so each half kernel must be smaller than the image
// side. Any channel count. float32 accumulates in float32 (separable passes: within float rounding of
// torchvision's 2-D convolution); uint8 is rounded to nearest even, as torchvision.
Tensor gaussian_blur(const Tensor& image, std::array<int, 2> kernel_size, std::array<double, 2> sigma,
                     Layout layout = Layout::kCHW);

}  // namespace loom::transforms

LOOM_API_END
