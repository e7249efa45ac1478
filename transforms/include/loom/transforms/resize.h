// Image resize with torchvision semantics (antialiased: Pillow's; otherwise torch's interpolate).
//
// Layout: the image is C x H x W (CHW) or H x W x C (HWC), uint8, uint16 or float32, 1 to 4 channels, any
// strides, any size ratio up or down per axis; the result is a new contiguous tensor in the same layout
// and dtype. The resize is separable: a horizontal and a vertical pass, each skipped when its size does
// not change (every filter is the identity then). By default the pass that leaves the less work runs
// first (vertical on most downscales); ResizeOptions::pillow_exact runs Pillow's order, horizontal first.
//
// Which input samples and weights an output reads (the same for every dtype):
//  - antialias = true (default), kBilinear / kBicubic / kBox: Pillow's Resample.c filters, widened by the
//    scale factor when downscaling, taps outside the image dropped and the rest renormalized; kBicubic
//    uses a = -0.5. This is Pillow's Image.resize and torch.nn.functional.interpolate(antialias=True,
//    align_corners=False) (torchvision's Resize(antialias=True)) alike, for upscales too.
//  - antialias = false, kBilinear / kBicubic: torch's interpolate(antialias=False, align_corners=False),
//    what torchvision's Resize(antialias=False) runs: src = (dst + 0.5) * in / out - 0.5; bilinear reads
//    floor(src) and the next sample (src clamped at 0), bicubic floor(src) - 1 .. floor(src) + 2 with
//    Keys a = -0.75; indices past the image are clamped to it (border replicated). So a downscale
//    aliases, and bicubic upscales differ from the antialiased (a = -0.5) result.
//  - antialias = false, kBox: Pillow's box filter without widening (each output averages the inputs
//    whose centers fall within half an output step; a plain pick when downscaling).
//  - kNearest / kNearestExact ignore antialias: torch's "nearest" / "nearest-exact" source index,
//    computed in float as torch does, so the same sample is picked for every size pair.
//
// Arithmetic per dtype:
//  - float32: weights and sums in double, stored as float after each pass. Within 1e-4 of torch 1.13's
//    float32 interpolate (every mode above) for values in [0, 1] (relative for larger values).
//  - uint8: Pillow's fixed-point arithmetic (22 fractional bits, rounded and clamped to 0..255 after
//    each pass), SIMD through Highway. With pillow_exact, antialiased bilinear, bicubic and box are
//    within 1 of Pillow's Image.resize for every pixel (equal on the tests' images). By default
//    (pillow_exact = false) the passes may run in the other order, and a vertical pass with weights in
//    [0, 1] (every filter but bicubic) multiplies in 16 bits (samples with 7 fraction bits, weights
//    with 15; each product off by at most 1/256 of a level): on the tests' images and noise the
//    antialiased results stay within 1 of the pillow_exact ones and of Pillow's. Without antialias both
//    paths stay within 1 of torchvision's result (below), so they may differ from each other by 2
//    (random 8-bit noise, bilinear, in the other pass order). uint8 bicubic keeps Pillow's order
//    and arithmetic, as its overshoot is clamped between the passes. Nearest and nearest-exact equal
//    torch's exactly. antialias = false is within 1 of torchvision's uint8 result (the float interpolate, rounded and
//    clamped) except where a bicubic horizontal pass overshoots 0..255 (sharp edges), as the clamp between passes
//    (Pillow's) then differs from torchvision's single rounding at the end.
//  - uint16: as float32, rounded and clamped to 0..65535 after each pass.
// Thread safety: reentrant.
#pragma once

#include <cstdint>

#include "loom/codec/api.h"
#include "loom/codec/layout.h"
#include "loom/codec/size.h"
#include "loom/codec/tensor.h"

LOOM_API_BEGIN

namespace loom::transforms {

enum class Interpolation {
  kNearest,       // torch "nearest": source index min(floor(dst * in / out), in - 1)
  kNearestExact,  // torch "nearest-exact": min(floor((dst + 0.5) * in / out), in - 1)
  kBilinear,      // triangle filter, support 1
  kBicubic,       // Keys cubic, support 2: a = -0.5 antialiased (Pillow's), -0.75 without (torch's)
  kBox,           // Pillow's box filter, support 0.5; antialiased downscaling by an integer factor
                  // averages each block (torch's "area" then)
};

struct ResizeOptions {
  Interpolation interpolation = Interpolation::kBilinear;
  bool antialias = true;  // Pillow's widened filters (see above); ignored by kNearest/kNearestExact
  Layout layout = Layout::kCHW;
  // Pillow's order (horizontal first, over only the rows the vertical pass reads) and, for uint8,
  // Pillow's 22-bit arithmetic in both passes: Image.resize step for step. Slower (see above).
  bool pillow_exact = false;
};

// Devices: the CPU, or with a CUDA build a CUDA device this process can use: the result is then on that
// device, made by the CUDA twin of the same passes on the device's current stream (accel::StreamGuard;
// the call returns once the work is queued), bit-equal with the CPU result for the same options.
// Throws loom::Error(kInvalidInput) for a tensor that is not 3-D, an empty image or target or a channel
// count outside 1 to 4, and Error(kUnsupported) for another dtype or a tensor on a device loom cannot
// use here.
Tensor resize(const Tensor& image, Size size, const ResizeOptions& options = {});

// torchvision's Resize(size) with one number: the shorter side becomes `shorter`, the longer one
// keeps the aspect ratio (truncated to an integer, at least 1).
Size size_for_shorter_side(Size input, int64_t shorter);

}  // namespace loom::transforms

LOOM_API_END
