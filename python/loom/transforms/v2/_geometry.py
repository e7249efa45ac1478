"""Geometric transform classes (torchvision.transforms.v2's names and arguments) over
loom/transforms/geometry_transforms.h: the image, boxes and keypoints move together.

The random ones draw from the call's generator, in the order docs/transforms.md lists (torchvision's
order, with loom's generator: a seed does not give torchvision's crops or angles).
"""

import numbers

from ..._loom import transforms as _native
from . import _args
from ._transform import Transform
from ._tv_tensors import InterpolationMode, interpolation_name


class Resize(Transform):
    """Resize to size ([h, w]); an int (or [n]) resizes the shorter side to n, keeping the aspect ratio.
    pillow_exact=True: Pillow's pass order and arithmetic (see functional.resize). max_size is not
    supported (None only)."""

    def __init__(self, size, interpolation=InterpolationMode.BILINEAR, max_size=None, antialias=True, *,
                 pillow_exact=False):
        if max_size is not None:
            raise ValueError("loom's Resize has no max_size")
        self.size, self.interpolation, self.antialias, self.pillow_exact = size, interpolation, antialias, pillow_exact
        height, width = _args.resize_size(size)
        self.native = _native.Resize(height, width, interpolation_name(interpolation), bool(antialias),
                                     bool(pillow_exact))


class CenterCrop(Transform):
    """A centred crop of size (int or (h, w)); a larger size pads with zeros."""

    def __init__(self, size):
        self.size = _args.size2(size)
        self.native = _native.CenterCrop(*self.size)


class Pad(Transform):
    """Pads by padding (int, [left/right, top/bottom] or [left, top, right, bottom]) with fill (a number
    or one per channel) or by padding_mode "edge", "reflect", "symmetric"."""

    def __init__(self, padding, fill=0, padding_mode="constant"):
        self.padding, self.fill, self.padding_mode = padding, fill, padding_mode
        self.native = _native.Pad(_args.padding4(padding), padding_mode, _args.fill_values(fill))


class RandomHorizontalFlip(Transform):
    """Mirror left-right with probability p (one bernoulli(p) draw)."""

    def __init__(self, p=0.5):
        self.p = p
        self.native = _native.RandomHorizontalFlip(float(p))


class RandomVerticalFlip(Transform):
    """Mirror top-bottom with probability p (one bernoulli(p) draw)."""

    def __init__(self, p=0.5):
        self.p = p
        self.native = _native.RandomVerticalFlip(float(p))


class RandomResizedCrop(Transform):
    """A crop of random area (a fraction in scale) and aspect ratio (log-uniform in ratio), resized to
    size (int or (h, w)); torchvision's 10 tries, then the largest centred crop within ratio."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0), interpolation=InterpolationMode.BILINEAR,
                 antialias=True):
        self.size = _args.size2(size)
        self.scale, self.ratio = _args.pair(scale, "scale"), _args.pair(ratio, "ratio")
        self.interpolation, self.antialias = interpolation, antialias
        self.native = _native.RandomResizedCrop(*self.size, self.scale, self.ratio, interpolation_name(interpolation),
                                                bool(antialias))

    @staticmethod
    def get_params(img, scale, ratio, generator=None, layout="CHW"):
        """The (top, left, height, width) crop a call would make on img (whose height and width are
        read from its shape), drawing from generator (advanced) or a fork of the default one. The same
        generator state gives the same crop as the call."""
        shape = tuple(img.shape)
        height, width = (shape[-2], shape[-1]) if layout == "CHW" else (shape[-3], shape[-2])
        return tuple(_native.random_resized_crop_params(_args.pair(scale, "scale"), _args.pair(ratio, "ratio"),
                                                        int(height), int(width), generator))


class RandomCrop(Transform):
    """A crop of size at a uniformly random position, after optional padding (as Pad) and, with
    pad_if_needed, padding an image smaller than size on both sides."""

    def __init__(self, size, padding=None, pad_if_needed=False, fill=0, padding_mode="constant"):
        self.size = _args.size2(size)
        self.padding, self.pad_if_needed, self.fill, self.padding_mode = padding, pad_if_needed, fill, padding_mode
        self.native = _native.RandomCrop(*self.size, None if padding is None else _args.padding4(padding),
                                         bool(pad_if_needed), padding_mode, _args.fill_values(fill))


class RandomRotation(Transform):
    """Rotation by an angle uniform in degrees (d: (-d, d); or (lo, hi)), counter-clockwise, about
    center ((x, y) pixels, default the image centre); expand grows the canvas. fill as torchvision's
    (default 0: bilinear edges blend with 0 by the outside weight; None: they fade to zero)."""

    def __init__(self, degrees, interpolation=InterpolationMode.NEAREST, expand=False, center=None, fill=0):
        self.degrees = _args.symmetric_range(degrees, "degrees")
        self.interpolation, self.expand, self.center, self.fill = interpolation, expand, center, fill
        self.native = _native.RandomRotation(self.degrees, interpolation_name(interpolation), bool(expand),
                                             _args.point(center, "center"), _args.fill_values(fill))


def _shear_ranges(shear):
    """torchvision's shear forms: s -> x in (-s, s); (a, b) -> x; (a, b, c, d) -> x (a, b), y (c, d)."""
    if shear is None:
        return None, None
    if isinstance(shear, numbers.Number):
        return _args.symmetric_range(shear, "shear"), None
    values = [float(v) for v in shear]
    if len(values) == 2:
        return (values[0], values[1]), None
    if len(values) == 4:
        return (values[0], values[1]), (values[2], values[3])
    raise ValueError(f"shear must be a number or a sequence of 2 or 4 numbers, got {shear!r}")


class RandomAffine(Transform):
    """An affine map with angle uniform in degrees (clockwise, torchvision's affine convention),
    translation uniform in +-translate * (width, height) (fractions; rounded to whole pixels), scale
    uniform in scale and shear per torchvision's forms."""

    def __init__(self, degrees, translate=None, scale=None, shear=None, interpolation=InterpolationMode.NEAREST,
                 fill=0, center=None):
        self.degrees = _args.symmetric_range(degrees, "degrees")
        self.translate = _args.point(translate, "translate")
        self.scale = _args.point(scale, "scale")
        self.shear = shear
        self.interpolation, self.fill, self.center = interpolation, fill, center
        shear_x, shear_y = _shear_ranges(shear)
        self.native = _native.RandomAffine(self.degrees, self.translate, self.scale, shear_x, shear_y,
                                           _args.point(center, "center"), interpolation_name(interpolation),
                                           _args.fill_values(fill))


class RandomPerspective(Transform):
    """With probability p, a perspective warp moving each corner inward by up to distortion_scale / 2 of
    the image side."""

    def __init__(self, distortion_scale=0.5, p=0.5, interpolation=InterpolationMode.BILINEAR, fill=0):
        self.distortion_scale, self.p, self.interpolation, self.fill = distortion_scale, p, interpolation, fill
        self.native = _native.RandomPerspective(float(distortion_scale), float(p), interpolation_name(interpolation),
                                                _args.fill_values(fill))


class SanitizeBoundingBoxes(Transform):
    """Drops boxes whose sides are under min_size, whose area is under min_area or with a corner
    outside the image, with their labels (the "labels" entry, torchvision's default labels_getter; the
    only one loom supports), and keypoint rows outside the image (torchvision's SanitizeKeyPoints)."""

    def __init__(self, min_size=1.0, min_area=1.0, labels_getter="default"):
        if labels_getter != "default":
            raise ValueError("loom's SanitizeBoundingBoxes finds labels by the default rule only "
                             "(a 'labels' key); labels_getter must be 'default'")
        self.min_size, self.min_area = min_size, min_area
        self.native = _native.SanitizeBoundingBoxes(float(min_size), float(min_area))


class ClampBoundingBoxes(Transform):
    """Clamps boxes to the image with their own clamping_mode, and keypoints into the image
    (torchvision's ClampBoundingBoxes and ClampKeyPoints together). clamping_mode must be None (each
    BoundingBoxes' own mode)."""

    def __init__(self, clamping_mode=None):
        if clamping_mode is not None:
            raise ValueError("loom's ClampBoundingBoxes uses each BoundingBoxes' own clamping_mode; "
                             "set it on the BoundingBoxes")
        self.native = _native.ClampBoundingBoxes()
