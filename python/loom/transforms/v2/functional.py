"""The functional API after torchvision.transforms.v2.functional, over loom's C++ ops.

Inputs: an image tensor (torch, numpy or loom.Tensor; C x H x W or a batch N x C x H x W, uint8 or
float32, or what each op's C++ side takes), or for the geometric ops also a BoundingBoxes or KeyPoints,
which come back transformed as a new wrapper (on their canvas_size, as torchvision's). Color, dtype and
noise ops return boxes and keypoints unchanged, as torchvision's do. Every op takes a keyword-only
layout="CHW" ("HWC" for H x W x C images, loom only). Results follow loom.set_output_type; the GIL is
released while an op runs.

Differences from torchvision (see docs/transforms.md for the arithmetic and the measured parity):
  - resize: max_size is not supported (None only); an int size resizes the shorter side.
  - perspective: coefficients is not supported (None only).
  - rotate, affine, perspective: interpolation nearest or bilinear only; fill one value or one per channel.
  - to_dtype: uint8, uint16, float32, float64; float -> integer clamps to the range first.
  - gaussian_noise: takes generator= (loom's draws, keyed; see Generator); a batch gets independent
    noise per image, drawn one image after the other.
  - adjust_hue on uint8 rounds as torchvision v2 (x * 255.999), not as 0.14 (x * 255).
"""

import numbers

import numpy as np

from ... import _loom
from ..._loom import transforms as _native
from . import _args
from ._structure import Packed
from ._tv_tensors import BoundingBoxes, InterpolationMode, KeyPoints, format_name, interpolation_name

__all__ = [
    "adjust_brightness", "adjust_contrast", "adjust_gamma", "adjust_hue", "adjust_saturation", "affine",
    "center_crop", "clamp_bounding_boxes", "clamp_keypoints", "convert_bounding_box_format", "crop",
    "gaussian_blur", "gaussian_noise", "hflip", "horizontal_flip", "normalize", "pad", "perspective",
    "resize", "resized_crop", "rgb_to_grayscale", "rotate", "sanitize_bounding_boxes", "sanitize_keypoints",
    "to_dtype", "to_grayscale", "vertical_flip", "vflip",
]


def _geometric(inpt, layout, op, *args):
    packed = Packed((inpt,), layout, _native)
    if packed.empty:
        raise TypeError(f"expected an image tensor, BoundingBoxes or KeyPoints, got {type(inpt).__name__}")
    return packed.unpack(op(packed.sample, *args))


def _passes_through(inpt):
    return isinstance(inpt, (BoundingBoxes, KeyPoints))


# ---- Geometry --------------------------------------------------------------------------------------

def horizontal_flip(inpt, *, layout="CHW"):
    """Mirror left-right (boxes: x -> width - x; keypoints: x -> width - 1 - x)."""
    return _geometric(inpt, layout, _native.horizontal_flip)


def vertical_flip(inpt, *, layout="CHW"):
    """Mirror top-bottom."""
    return _geometric(inpt, layout, _native.vertical_flip)


hflip = horizontal_flip  # torchvision.transforms.functional (v1) names
vflip = vertical_flip


def crop(inpt, top, left, height, width, *, layout="CHW"):
    """The region [top, top + height) x [left, left + width); parts outside the image are zero."""
    return _geometric(inpt, layout, _native.crop, int(top), int(left), int(height), int(width))


def center_crop(inpt, output_size, *, layout="CHW"):
    """A centred crop of output_size (int or (h, w)); larger than the image pads with zeros. Boxes and
    keypoints move with the pixels (torchvision 0.24 moves them by round(excess / 2), so for odd
    excesses its annotations sit a pixel off its image)."""
    height, width = _args.size2(output_size, "output_size")
    return _geometric(inpt, layout, _native.center_crop, height, width)


def pad(inpt, padding, fill=None, padding_mode="constant", *, layout="CHW"):
    """Pads by padding (int, [left/right, top/bottom] or [left, top, right, bottom]); padding_mode
    "constant" (fill, default 0), "edge", "reflect" or "symmetric" (boxes and keypoints: constant only)."""
    return _geometric(inpt, layout, _native.pad, _args.padding4(padding), padding_mode, _args.fill_values(fill))


def resize(inpt, size, interpolation=InterpolationMode.BILINEAR, max_size=None, antialias=True, *, layout="CHW",
           pillow_exact=False):
    """Resize to size ([h, w]; an int or [n] resizes the shorter side to n keeping the aspect ratio).
    antialias=True: Pillow's filters (torchvision's antialias); uint8 is within 1 of Pillow's and of
    torchvision's uint8 result. pillow_exact=True runs Pillow's pass order and (uint8) its 22-bit
    arithmetic: Image.resize step for step, slower. max_size is not supported."""
    if max_size is not None:
        raise ValueError("loom's resize has no max_size")
    height, width = _args.resize_size(size)
    return _geometric(inpt, layout, _native.resize, height, width, interpolation_name(interpolation),
                      bool(antialias), bool(pillow_exact))


def resized_crop(inpt, top, left, height, width, size, interpolation=InterpolationMode.BILINEAR, antialias=True, *,
                 layout="CHW"):
    """crop, then resize to size (int or (h, w))."""
    out_height, out_width = _args.size2(size)
    return _geometric(inpt, layout, _native.resized_crop, int(top), int(left), int(height), int(width), out_height,
                      out_width, interpolation_name(interpolation), bool(antialias))


def rotate(inpt, angle, interpolation=InterpolationMode.NEAREST, expand=False, center=None, fill=None, *,
           layout="CHW"):
    """Rotation by angle degrees counter-clockwise, about center ((x, y) in pixels; default the image
    centre). expand grows the output to hold the whole image. fill=None: bilinear edge pixels fade to
    zero; a fill (even 0) blends by the outside weight, as torchvision's."""
    return _geometric(inpt, layout, _native.rotate, float(angle), interpolation_name(interpolation), bool(expand),
                      _args.point(center, "center"), _args.fill_values(fill))


def affine(inpt, angle, translate, scale, shear, interpolation=InterpolationMode.NEAREST, fill=None, center=None, *,
           layout="CHW"):
    """torchvision's affine: angle in degrees (clockwise, torchvision's convention for affine),
    translate (tx, ty) in pixels, scale > 0, shear a number (x) or (x, y) in degrees."""
    if isinstance(shear, numbers.Number):
        shear = (float(shear), 0.0)
    return _geometric(inpt, layout, _native.affine, float(angle), _args.pair(translate, "translate"), float(scale),
                      _args.pair(shear, "shear"), interpolation_name(interpolation), _args.fill_values(fill),
                      _args.point(center, "center"))


def perspective(inpt, startpoints, endpoints, interpolation=InterpolationMode.BILINEAR, fill=None, coefficients=None,
                *, layout="CHW"):
    """The warp taking the four startpoints (top-left, top-right, bottom-right, bottom-left) to
    endpoints. coefficients is not supported."""
    if coefficients is not None:
        raise ValueError("loom's perspective takes startpoints and endpoints, not coefficients")
    start = [_args.pair(p, "startpoints") for p in startpoints]
    end = [_args.pair(p, "endpoints") for p in endpoints]
    if len(start) != 4 or len(end) != 4:
        raise ValueError("startpoints and endpoints must hold 4 points each")
    return _geometric(inpt, layout, _native.perspective, start, end, interpolation_name(interpolation),
                      _args.fill_values(fill))


# ---- Color, dtype and noise ---------------------------------------------------------------------------

def to_dtype(inpt, dtype="float32", scale=False, *, layout="CHW"):
    """Converts to dtype (uint8, uint16, float32, float64; torch or numpy dtypes or names). scale=True
    maps value ranges (integers to [0, 1] and back). The default dtype is float32, torchvision's
    torch.float."""
    if _passes_through(inpt):
        return inpt
    return _native.to_dtype(inpt, _args.dtype_name(dtype), bool(scale), layout)


def normalize(inpt, mean, std, inplace=False, *, layout="CHW", output_layout=None):
    """(x - mean) / std per channel, float32 out. uint8 input is scaled to [0, 1] first in the same
    pass (torchvision needs to_dtype(scale=True) before). inplace is accepted and ignored (loom always
    returns a new tensor). output_layout ("CHW"/"HWC", default the input's) is loom's."""
    if _passes_through(inpt):
        return inpt
    mean = [float(mean)] if isinstance(mean, numbers.Number) else [float(v) for v in mean]
    std = [float(std)] if isinstance(std, numbers.Number) else [float(v) for v in std]
    return _native.normalize(inpt, mean, std, layout, output_layout or layout)


def rgb_to_grayscale(inpt, num_output_channels=1, *, layout="CHW"):
    """0.2989 R + 0.587 G + 0.114 B, 1 or 3 output channels."""
    if _passes_through(inpt):
        return inpt
    return _native.rgb_to_grayscale(inpt, int(num_output_channels), layout)


to_grayscale = rgb_to_grayscale


def adjust_brightness(inpt, brightness_factor, *, layout="CHW"):
    if _passes_through(inpt):
        return inpt
    return _native.adjust_brightness(inpt, float(brightness_factor), layout)


def adjust_contrast(inpt, contrast_factor, *, layout="CHW"):
    if _passes_through(inpt):
        return inpt
    return _native.adjust_contrast(inpt, float(contrast_factor), layout)


def adjust_saturation(inpt, saturation_factor, *, layout="CHW"):
    if _passes_through(inpt):
        return inpt
    return _native.adjust_saturation(inpt, float(saturation_factor), layout)


def adjust_hue(inpt, hue_factor, *, layout="CHW"):
    """hue_factor in [-0.5, 0.5]; torchvision v2's formulas."""
    if _passes_through(inpt):
        return inpt
    return _native.adjust_hue(inpt, float(hue_factor), layout)


def adjust_gamma(inpt, gamma, gain=1.0, *, layout="CHW"):
    if _passes_through(inpt):
        return inpt
    return _native.adjust_gamma(inpt, float(gamma), float(gain), layout)


def _default_sigma(kernel):
    return 0.3 * ((kernel - 1) * 0.5 - 1) + 0.8  # torchvision's rule for sigma=None


def gaussian_blur(inpt, kernel_size, sigma=None, *, layout="CHW"):
    """kernel_size int or (kx, ky), odd; sigma None (torchvision's rule from the kernel size), a number
    or (sx, sy). Borders reflect."""
    if _passes_through(inpt):
        return inpt
    kx, ky = _args.size2(kernel_size, "kernel_size")
    if sigma is None:
        sx, sy = _default_sigma(kx), _default_sigma(ky)
    elif isinstance(sigma, numbers.Number):
        sx = sy = float(sigma)
    else:
        values = [float(v) for v in sigma]
        sx, sy = (values[0], values[0]) if len(values) == 1 else _args.pair(values, "sigma")
    return _native.gaussian_blur(inpt, [kx, ky], [sx, sy], layout)


def gaussian_noise(inpt, mean=0.0, sigma=0.1, clip=True, *, generator=None, layout="CHW"):
    """x + N(mean, sigma) (uint8: on the [0, 1] scale, truncated, as torchvision 0.24), clamped when clip.
    generator: a loom Generator (advanced by one step per image), else a fork of the default one."""
    if _passes_through(inpt):
        return inpt
    return _native.gaussian_noise(inpt, float(mean), float(sigma), bool(clip), generator, layout)


# ---- Boxes and keypoints --------------------------------------------------------------------------

def convert_bounding_box_format(inpt, old_format=None, new_format=None, inplace=False):
    """BoundingBoxes in new_format, or for a plain [N, K] tensor its conversion from old_format.
    Axis-aligned and rotated formats do not convert into each other. inplace is ignored."""
    if new_format is None:
        raise TypeError("convert_bounding_box_format needs new_format")
    if isinstance(inpt, BoundingBoxes):
        data = _native.convert_bounding_box_format(inpt.data, format_name(inpt.format), format_name(new_format))
        return BoundingBoxes(data, format=new_format, canvas_size=inpt.canvas_size, clamping_mode=inpt.clamping_mode)
    if old_format is None:
        raise ValueError("old_format is required for a plain tensor")
    return _native.convert_bounding_box_format(inpt, format_name(old_format), format_name(new_format))


def clamp_bounding_boxes(inpt, format=None, canvas_size=None, clamping_mode="soft"):
    """Boxes clamped to the canvas (soft/hard, as torchvision 0.24). A BoundingBoxes uses its own
    format, canvas and clamping mode; a plain tensor needs format and canvas_size."""
    if isinstance(inpt, BoundingBoxes):
        data = _native.clamp_bounding_boxes(inpt.data, format_name(inpt.format), inpt.canvas_size, inpt.clamping_mode)
        return inpt.wrap_like(data)
    if format is None or canvas_size is None:
        raise ValueError("format and canvas_size are required for a plain tensor")
    return _native.clamp_bounding_boxes(inpt, format_name(format), tuple(canvas_size), clamping_mode)


def clamp_keypoints(inpt, canvas_size=None):
    """Keypoints into [0, width - 1] x [0, height - 1]."""
    if isinstance(inpt, KeyPoints):
        return inpt.wrap_like(_native.clamp_keypoints(inpt.data, inpt.canvas_size))
    if canvas_size is None:
        raise ValueError("canvas_size is required for a plain tensor")
    return _native.clamp_keypoints(inpt, tuple(canvas_size))


def _mask(indices, n):
    """A bool mask of the kept rows: a torch tensor or a numpy array as loom.set_output_type says (loom
    tensors have no bool dtype, so "loom" gives numpy)."""
    valid = np.zeros(n, dtype=bool)
    valid[list(indices)] = True
    if _loom.get_output_type() == "torch":
        import torch

        return torch.from_numpy(valid)
    return valid


def sanitize_bounding_boxes(bounding_boxes, format=None, canvas_size=None, min_size=1.0, min_area=1.0):
    """(kept boxes, valid) as torchvision 0.24: a box is kept when its sides are >= min_size, its area
    >= min_area and every corner is inside the canvas. valid is a bool numpy array, one per box."""
    if isinstance(bounding_boxes, BoundingBoxes):
        data, fmt, canvas = bounding_boxes.data, format_name(bounding_boxes.format), bounding_boxes.canvas_size
    else:
        if format is None or canvas_size is None:
            raise ValueError("format and canvas_size are required for a plain tensor")
        data, fmt, canvas = bounding_boxes, format_name(format), tuple(canvas_size)
    keep = _native.valid_box_indices(data, fmt, canvas, float(min_size), float(min_area))
    kept = _native.select_rows(data, keep)
    if isinstance(bounding_boxes, BoundingBoxes):
        kept = bounding_boxes.wrap_like(kept)
    return kept, _mask(keep, data.shape[0])


def sanitize_keypoints(key_points, canvas_size=None):
    """(kept rows, valid): rows whose every point lies in [0, width) x [0, height)."""
    if isinstance(key_points, KeyPoints):
        data, canvas = key_points.data, key_points.canvas_size
    else:
        if canvas_size is None:
            raise ValueError("canvas_size is required for a plain tensor")
        data, canvas = key_points, tuple(canvas_size)
    keep = _native.valid_keypoint_indices(data, canvas)
    kept = _native.select_rows(data, keep)
    if isinstance(key_points, KeyPoints):
        kept = key_points.wrap_like(kept)
    return kept, _mask(keep, data.shape[0])
