"""Transforms after torchvision.transforms.v2, over loom's C++ transforms (docs/transforms.md).

Classes: Compose, RandomApply, RandomChoice, RandomOrder; Resize, CenterCrop, Pad, RandomHorizontalFlip,
RandomVerticalFlip, RandomResizedCrop, RandomCrop, RandomRotation, RandomAffine, RandomPerspective,
SanitizeBoundingBoxes, ClampBoundingBoxes; ToDtype, Normalize, Grayscale, RandomGrayscale, ColorJitter,
GaussianBlur, GaussianNoise. Types: BoundingBoxes (BoundingBoxFormat XYXY, XYWH, CXCYWH and the rotated
XYWHR, CXCYWHR, XYXYXYXY), KeyPoints, InterpolationMode. The functional API is
loom.transforms.v2.functional.

Calling: t(image), t(image, boxes), t({"image": img, "boxes": boxes, "labels": labels}) and other
nestings of tuples, lists and dicts, as torchvision's; the image is C x H x W or a batch N x C x H x W,
uint8 or float32 (a torch tensor, a numpy array or a loom.Tensor, read without a copy). Results follow
loom.set_output_type. Each call releases the GIL while it works, and one transform object may be
called from many threads at once. Where loom differs from torchvision, the class says so; in general:
transforms are not torch.nn.Modules, PIL images are not accepted, one BoundingBoxes and one KeyPoints
per call, no Mask type (loom's C++ Sample has no masks), fill is one value or one per channel (no dict
per type).

Randomness differs from torch's global RNG. loom's draws come from its own generator (Generator:
xoshiro256**), never from torch's, so torch.manual_seed does not affect them and a seed does not give
torchvision's crops or angles (the distributions and draw order are torchvision's):
  - t(x, generator=g) draws from g (a Generator) and advances it by exactly the draws made, so the same
    generator state gives the same output; g.clone() keeps a state to replay.
  - Generator.for_sample(seed, epoch, sample, field) is the generator loom.loader gives the sample at
    global position `sample` of `epoch` (the key of every random choice in the loader), so a Python call
    can reproduce the loader's augmentation of one sample.
  - t(x) without a generator draws from a fork of the default generator (one fork per call: its
    output depends on how many calls came before, as with torch's global generator, but never on other
    threads' draws in between). manual_seed(seed) restarts the default generator; it starts at seed 0.
"""

from ..._loom import transforms as _native
from . import functional
from ._color import ColorJitter, GaussianBlur, GaussianNoise, Grayscale, Normalize, RandomGrayscale, ToDtype
from ._geometry import (
    CenterCrop,
    ClampBoundingBoxes,
    Pad,
    RandomAffine,
    RandomCrop,
    RandomHorizontalFlip,
    RandomPerspective,
    RandomResizedCrop,
    RandomRotation,
    RandomVerticalFlip,
    Resize,
    SanitizeBoundingBoxes,
)
from ._transform import Compose, RandomApply, RandomChoice, RandomOrder, Transform
from ._tv_tensors import BoundingBoxes, BoundingBoxFormat, InterpolationMode, KeyPoints

Generator = _native.Generator
manual_seed = _native.manual_seed
default_generator = _native.default_generator

__all__ = [
    "BoundingBoxFormat",
    "BoundingBoxes",
    "CenterCrop",
    "ClampBoundingBoxes",
    "ColorJitter",
    "Compose",
    "GaussianBlur",
    "GaussianNoise",
    "Generator",
    "Grayscale",
    "InterpolationMode",
    "KeyPoints",
    "Normalize",
    "Pad",
    "RandomAffine",
    "RandomApply",
    "RandomChoice",
    "RandomCrop",
    "RandomGrayscale",
    "RandomHorizontalFlip",
    "RandomOrder",
    "RandomPerspective",
    "RandomResizedCrop",
    "RandomRotation",
    "RandomVerticalFlip",
    "Resize",
    "SanitizeBoundingBoxes",
    "ToDtype",
    "Transform",
    "default_generator",
    "functional",
    "manual_seed",
]
