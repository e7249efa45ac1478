// Where the channels of an image-like tensor are: the one layout word of loom, for images, video
// frames, clips, spectrograms and loader batches alike.
//
// kCHW: channels first, C x H x W (torchvision's and TorchCodec's default); kHWC: channels last,
// H x W x C (Pillow's, OpenCV's and the decoders' native order). A batch or a clip puts N in front:
// N x C x H x W (NCHW) or N x H x W x C (NHWC).
#pragma once

#include "loom/codec/api.h"

LOOM_API_BEGIN

namespace loom {

enum class Layout { kCHW, kHWC };

}  // namespace loom

LOOM_API_END
