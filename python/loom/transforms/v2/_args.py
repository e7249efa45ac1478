"""torchvision.transforms.v2's argument forms turned into the plain values loom's native half takes."""

import numbers

import numpy as np


def pair(value, name):
    """A 2-sequence of numbers as a float tuple."""
    values = tuple(float(v) for v in value)
    if len(values) != 2:
        raise ValueError(f"{name} must have 2 values, got {len(values)}")
    return values


def symmetric_range(value, name, center=0.0):
    """torchvision's `_setup_number_or_seq`: a number d gives (center - d, center + d) (d >= 0); a
    2-sequence is taken as (lo, hi)."""
    if isinstance(value, numbers.Number):
        if value < 0:
            raise ValueError(f"{name} must be non-negative when it is a single number, got {value}")
        return (center - float(value), center + float(value))
    return pair(value, name)


def size2(size, name="size"):
    """An int n as (n, n), [n] as (n, n), [h, w] as (h, w)."""
    if isinstance(size, numbers.Integral):
        return (int(size), int(size))
    values = tuple(int(v) for v in size)
    if len(values) == 1:
        return (values[0], values[0])
    if len(values) != 2:
        raise ValueError(f"{name} must be an int or a sequence of 1 or 2 ints, got {size!r}")
    return values


def padding4(padding):
    """torchvision's padding forms as (left, top, right, bottom): p; [p]; [left/right, top/bottom];
    [left, top, right, bottom]."""
    if isinstance(padding, numbers.Integral):
        p = int(padding)
        return (p, p, p, p)
    values = tuple(int(v) for v in padding)
    if len(values) == 1:
        return values * 4
    if len(values) == 2:
        return (values[0], values[1], values[0], values[1])
    if len(values) == 4:
        return values
    raise ValueError(f"padding must be an int or a sequence of 1, 2 or 4 ints, got {padding!r}")


def fill_values(fill):
    """None -> [] (torchvision's fill=None); a number -> [v]; a sequence -> its values (one per channel).
    torchvision's per-type dict of fills is not supported."""
    if fill is None:
        return []
    if isinstance(fill, dict):
        raise TypeError("loom takes one fill for the image (a number or one per channel), not a dict per type")
    if isinstance(fill, numbers.Number):
        return [float(fill)]
    return [float(v) for v in fill]


def point(value, name):
    return None if value is None else pair(value, name)


def dtype_name(dtype):
    """torch.float32, np.float32, np.dtype('float32') or "float32" -> "float32"."""
    if isinstance(dtype, str):
        return dtype.replace("torch.", "")
    text = str(dtype)
    if text.startswith("torch."):
        return text[len("torch."):]
    return np.dtype(dtype).name


def resize_size(size):
    """(height, width) from Resize's size: an int (or [n]) is (n, 0), the shorter side."""
    if isinstance(size, numbers.Integral):
        return (int(size), 0)
    values = [int(v) for v in size]
    if len(values) == 1:
        return (values[0], 0)
    if len(values) != 2:
        raise ValueError(f"size must be an int or a sequence of 1 or 2 ints, got {size!r}")
    return tuple(values)
