"""BoundingBoxes and KeyPoints (after torchvision.tv_tensors) and InterpolationMode.

torchvision's tv_tensors are torch.Tensor subclasses; loom's are thin wrappers: `.data` holds the tensor
as given (a torch tensor, a numpy array or a loom.Tensor, never copied) and the wrapper adds the
metadata. They export the data through __dlpack__ and __array__, so torch.from_dlpack(boxes) and
np.asarray(boxes) see the same memory. Transforms return new wrappers whose data follows
loom.set_output_type.
"""

import enum

import numpy as np


class InterpolationMode(str, enum.Enum):
    """The interpolations loom implements, with torchvision.transforms.InterpolationMode's values (loom
    also accepts torchvision's enum and these strings). HAMMING and LANCZOS are not in loom."""

    NEAREST = "nearest"
    NEAREST_EXACT = "nearest-exact"
    BILINEAR = "bilinear"
    BICUBIC = "bicubic"
    BOX = "box"


def interpolation_name(mode):
    """The loom name of an InterpolationMode (loom's or torchvision's) or of its string value."""
    value = getattr(mode, "value", mode)
    if not isinstance(value, str):
        raise TypeError(f"interpolation must be an InterpolationMode or its name, not {mode!r}")
    return value


class BoundingBoxFormat(str, enum.Enum):
    """Box formats, as torchvision.tv_tensors.BoundingBoxFormat (0.24, with the rotated ones)."""

    XYXY = "XYXY"          # x1, y1, x2, y2
    XYWH = "XYWH"          # x1, y1, width, height
    CXCYWH = "CXCYWH"      # centre x, centre y, width, height
    XYWHR = "XYWHR"        # first corner x1, y1, width, height, angle (degrees, counter-clockwise)
    CXCYWHR = "CXCYWHR"    # centre x, centre y, width, height, angle
    XYXYXYXY = "XYXYXYXY"  # the four corners in order (rotated)


VALUES_PER_BOX = {BoundingBoxFormat.XYXY: 4, BoundingBoxFormat.XYWH: 4, BoundingBoxFormat.CXCYWH: 4,
                  BoundingBoxFormat.XYWHR: 5, BoundingBoxFormat.CXCYWHR: 5, BoundingBoxFormat.XYXYXYXY: 8}


def format_name(fmt):
    """The name of a box format: loom's or torchvision's BoundingBoxFormat, or a string (any case)."""
    if isinstance(fmt, str):
        name = fmt.upper()
    elif hasattr(fmt, "name"):
        name = str(fmt.name).upper()
    else:
        raise TypeError(f"format must be a BoundingBoxFormat or its name, not {fmt!r}")
    try:
        return BoundingBoxFormat(name).value
    except ValueError:
        raise ValueError(f"unknown bounding box format {fmt!r}") from None


def _canvas(canvas_size):
    height, width = (int(v) for v in canvas_size)
    return (height, width)


def _tensor_data(data, rows_of):
    """`data` as given when it is a tensor or array; a list becomes a float32 numpy array. 1-D data
    becomes one row (torchvision's tv_tensors do the same)."""
    if not (hasattr(data, "__dlpack__") or isinstance(data, np.ndarray) or hasattr(data, "__array_interface__")):
        data = np.asarray(data, dtype=np.float32)
    if len(data.shape) == 1 and hasattr(data, "reshape"):
        data = data.reshape(1, rows_of)
    return data


class _Wrapper:
    __slots__ = ()

    @property
    def shape(self):
        return tuple(self.data.shape)

    @property
    def dtype(self):
        return self.data.dtype

    def __len__(self):
        return self.shape[0]

    def __dlpack__(self, *args, **kwargs):
        return self.data.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return self.data.__dlpack_device__()

    def __array__(self, dtype=None):
        return np.asarray(self.data, dtype=dtype)


class BoundingBoxes(_Wrapper):
    """Boxes of one image: `data` [N, K] (K = 4, 5 or 8 by format), float32 or float64.

    BoundingBoxes(data, *, format, canvas_size, clamping_mode="soft"), as torchvision 0.24's:
    format is a BoundingBoxFormat or its name, canvas_size (height, width) of the image the boxes are
    on, clamping_mode "soft", "hard" or None (how transforms keep boxes inside the image; see
    docs/transforms.md). Unlike torchvision's, this is not a torch.Tensor subclass: use `.data`.
    """

    __slots__ = ("data", "format", "canvas_size", "clamping_mode")

    def __init__(self, data, *, format, canvas_size, clamping_mode="soft"):
        self.format = BoundingBoxFormat(format_name(format))
        self.data = _tensor_data(data, VALUES_PER_BOX[self.format])
        self.canvas_size = _canvas(canvas_size)
        if clamping_mode not in (None, "soft", "hard"):
            raise ValueError(f"clamping_mode must be None, 'soft' or 'hard', not {clamping_mode!r}")
        self.clamping_mode = clamping_mode

    def wrap_like(self, data, canvas_size=None):
        """New boxes with this format and clamping mode around `data`."""
        return BoundingBoxes(data, format=self.format, canvas_size=canvas_size or self.canvas_size,
                             clamping_mode=self.clamping_mode)

    def __repr__(self):
        return (f"BoundingBoxes({self.data!r}, format={self.format.value}, canvas_size={self.canvas_size}, "
                f"clamping_mode={self.clamping_mode!r})")


class KeyPoints(_Wrapper):
    """Points of one image: `data` [..., 2] (x, y), float32 or float64, e.g. [N, 2] or [N, P, 2].

    KeyPoints(data, *, canvas_size), as torchvision 0.24's tv_tensors.KeyPoints (pixel-index
    convention: a horizontal flip maps x to width - 1 - x). Not a torch.Tensor subclass: use `.data`.
    """

    __slots__ = ("data", "canvas_size")

    def __init__(self, data, *, canvas_size):
        self.data = _tensor_data(data, 2)
        self.canvas_size = _canvas(canvas_size)

    def wrap_like(self, data, canvas_size=None):
        return KeyPoints(data, canvas_size=canvas_size or self.canvas_size)

    def __repr__(self):
        return f"KeyPoints({self.data!r}, canvas_size={self.canvas_size})"
