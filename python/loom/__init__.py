"""loom: media decode and encode, SIMD transforms and a prefetching loader, zero-copy into torch.

Functions return torch tensors when torch can be imported, else numpy arrays; loom.set_output_type
chooses ("torch", "numpy", "loom" or "auto"). Tensors cross without a copy, through DLPack or the buffer
protocol. Errors are loom.Error and its subclasses (RuntimeError, as torchvision raises).
"""

from ._loom import (
    Error,
    InternalError,
    InvalidInputError,
    IoError,
    LimitExceededError,
    Tensor,
    UnsupportedError,
    from_dlpack,
    get_output_type,
    set_output_type,
)
from . import audio, cuda, data, decoders, encoders, io, pack, samplers, transforms

__version__ = "0.1.0"

__all__ = [
    "Error",
    "InternalError",
    "InvalidInputError",
    "IoError",
    "LimitExceededError",
    "Tensor",
    "UnsupportedError",
    "audio",
    "cuda",
    "data",
    "decoders",
    "encoders",
    "from_dlpack",
    "get_output_type",
    "io",
    "pack",
    "samplers",
    "set_output_type",
    "transforms",
]
