"""Transforms after torchvision.transforms: loom.transforms.v2 (transform classes, the functional API in
loom.transforms.v2.functional, BoundingBoxes and KeyPoints), over loom's C++ transforms module.

There is no v1 API: torchvision's v2 is the one loom follows (v1's functional names hflip and vflip are
aliases in loom.transforms.v2.functional).
"""

from . import v2

__all__ = ["v2"]
