// Tensor storage: 64-byte aligned blocks from malloc, with a process-wide cache of freed large blocks.
//
// A loop that makes tensors of the same sizes over and over (a loader's decode -> crop -> normalize, a
// batch convert) would otherwise get each large block fresh from the system and fault in every page
// again: glibc returns freed memory at the top of its per-thread heaps (madvise) and unmaps blocks
// above its mmap threshold. Blocks of kMinCachedBytes and more are rounded up to a size class (eighths
// of a power of two: at most 12.5% unused) and kept when freed, up to a total of cache_limit() bytes
// (LOOM_TENSOR_CACHE_MB, default 256 MiB; 0 disables); a block that does not fit is freed at once.
// Under AddressSanitizer nothing is cached, so that a use after free is still caught.
// Thread safety: allocate, release and trim may be called from any thread.
#pragma once

#include <cstddef>

namespace loom::detail {

struct Block {
  void* raw = nullptr;   // what malloc returned (pass to release_block)
  void* data = nullptr;  // raw rounded up to kTensorAlignment
  size_t capacity = 0;   // usable bytes from data
};

inline constexpr size_t kMinCachedBytes = size_t{64} << 10;

// At least `bytes` usable bytes, aligned; a cached block of the same class, or of a larger one up to
// twice the size, when there is one. Throws std::bad_alloc.
Block allocate_block(size_t bytes);
void release_block(const Block& block) noexcept;

// Frees every cached block; returns the bytes freed.
size_t trim_block_cache() noexcept;
size_t cache_limit();

}  // namespace loom::detail
