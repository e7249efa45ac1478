"""Color, dtype and noise transform classes (torchvision.transforms.v2's names and arguments) over
loom/transforms/color_transforms.h. They change the image only; boxes, keypoints and labels pass
through.
"""

import numbers

from ..._loom import transforms as _native
from . import _args
from ._transform import Transform


class ToDtype(Transform):
    """Converts the image to dtype (uint8, uint16, float32, float64: torch or numpy dtypes or names);
    scale=True maps value ranges, as torchvision's (default False, as torchvision's). A dict of dtypes
    per type is not supported (boxes and keypoints keep their dtype)."""

    def __init__(self, dtype, scale=False):
        if isinstance(dtype, dict):
            raise TypeError("loom's ToDtype converts the image only; pass one dtype")
        self.dtype, self.scale = dtype, scale
        self.native = _native.ToDtype(_args.dtype_name(dtype), bool(scale))


class Normalize(Transform):
    """(x - mean) / std per channel, float32 out; uint8 is scaled to [0, 1] in the same pass (torchvision
    needs ToDtype(float32, scale=True) first; the result is bit-identical to that pair). inplace is
    accepted and ignored. output_layout ("CHW"/"HWC") is loom's: normalize into another layout."""

    def __init__(self, mean, std, inplace=False, *, output_layout=None):
        self.mean = [float(mean)] if isinstance(mean, numbers.Number) else [float(v) for v in mean]
        self.std = [float(std)] if isinstance(std, numbers.Number) else [float(v) for v in std]
        self.inplace = inplace
        self.native = _native.Normalize(self.mean, self.std, output_layout)


class Grayscale(Transform):
    """0.2989 R + 0.587 G + 0.114 B, with 1 or 3 output channels."""

    def __init__(self, num_output_channels=1):
        self.num_output_channels = num_output_channels
        self.native = _native.Grayscale(int(num_output_channels))


class RandomGrayscale(Transform):
    """Grayscale (keeping the channel count) with probability p (one uniform draw)."""

    def __init__(self, p=0.1):
        self.p = p
        self.native = _native.RandomGrayscale(float(p))


def _jitter_range(value, name, center, bound=None):
    """torchvision's ColorJitter._check_input: None or 0 leaves the adjustment out; a number v gives
    [max(0, center - v), center + v] (hue: [-v, v]); a pair is taken as (min, max)."""
    if value is None:
        return (center, center)
    if isinstance(value, numbers.Number):
        if value < 0:
            raise ValueError(f"{name} must be non-negative, got {value}")
        lo, hi = center - float(value), center + float(value)
        if bound is None:
            lo = max(lo, 0.0)
        return (lo, hi)
    return _args.pair(value, name)


class ColorJitter(Transform):
    """Brightness, contrast, saturation and hue jitter in a random order, as torchvision's: the order
    (a permutation of 4), then each factor in use, drawn from the call's generator."""

    def __init__(self, brightness=None, contrast=None, saturation=None, hue=None):
        self.brightness = _jitter_range(brightness, "brightness", 1.0)
        self.contrast = _jitter_range(contrast, "contrast", 1.0)
        self.saturation = _jitter_range(saturation, "saturation", 1.0)
        self.hue = _jitter_range(hue, "hue", 0.0, bound=0.5)
        self.native = _native.ColorJitter(self.brightness, self.contrast, self.saturation, self.hue)


class GaussianBlur(Transform):
    """Gaussian blur with kernel_size (int or (kx, ky), odd) and sigma uniform in sigma (a number s is
    (s, s); one draw for both axes)."""

    def __init__(self, kernel_size, sigma=(0.1, 2.0)):
        self.kernel_size = _args.size2(kernel_size, "kernel_size")
        self.sigma = (float(sigma), float(sigma)) if isinstance(sigma, numbers.Number) else _args.pair(sigma, "sigma")
        self.native = _native.GaussianBlur(list(self.kernel_size), self.sigma)


class GaussianNoise(Transform):
    """Adds N(mean, sigma) noise (uint8: on the [0, 1] scale, as torchvision 0.24), clamped when clip.
    The normals are loom's counter-based generator's (one key drawn per call): the distribution is
    torchvision's, the values are not. On a batch every image gets the same noise (one draw per call,
    see Transform); functional.gaussian_noise draws per image."""

    def __init__(self, mean=0.0, sigma=0.1, clip=True):
        self.mean, self.sigma, self.clip = mean, sigma, clip
        self.native = _native.GaussianNoise(float(mean), float(sigma), bool(clip))
