// The layout of batches of RGB frames, shared by VideoDecoder (what it returns) and VideoEncoder (what
// it takes): channels first, N x 3 x H x W (NCHW, torchvision's and TorchCodec's default), or channels
// last, N x H x W x 3 (NHWC).
#pragma once

namespace loom::video {

enum class Layout { kNCHW, kNHWC };

}  // namespace loom::video
