#include <fmt/format.h>

#include "decode_backend.h"
#include "loom/codec/error.h"

namespace loom::video::detail {

std::unique_ptr<DecodeBackend> make_decode_backend(const DecoderOptions& options, const std::string& name) {
  if (options.device.is_cpu()) return make_cpu_backend();
  if (options.device.index < 0) {
    throw Error(ErrorCode::kInvalidInput, name,
                fmt::format("device cuda:{}: a CUDA device index is >= 0", options.device.index));
  }
#if defined(LOOM_WITH_CUDA)
  return make_cuda_backend(options, name);
#else
  if (options.cpu_fallback) return make_cpu_backend();
  throw Error(ErrorCode::kUnsupported, name,
              fmt::format("device cuda:{}: this build of loom has no CUDA support (LOOM_CUDA=OFF); decode on the "
                          "CPU, or set DecoderOptions::cpu_fallback to fall back to it",
                          options.device.index));
#endif
}

}  // namespace loom::video::detail
