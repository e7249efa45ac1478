"""CUDA devices, copies and loom's device memory (after torch.cuda).

Every function works without CUDA or a GPU: device_count() is then 0, is_available() False, and a copy
to a CUDA device raises loom.UnsupportedError.

    if loom.cuda.is_available():
        x = loom.cuda.to_device(image, "cuda")   # finished when it returns
        loader = loom.data.Loader(dataset, batch_size=256, device="cuda")

loom keeps freed device and pinned host blocks for reuse (LOOM_CUDA_CACHE_MB, LOOM_PINNED_CACHE_MB);
memory_stats() and pinned_memory_stats() report them, empty_cache() frees what is kept.
"""

from ._loom.cuda import (
    device_count,
    empty_cache,
    is_available,
    is_built,
    memory_stats,
    pinned_memory_stats,
    to_device,
)

__all__ = ["device_count", "empty_cache", "is_available", "is_built", "memory_stats", "pinned_memory_stats",
           "to_device"]
