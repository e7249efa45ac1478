"""The base of loom.transforms.v2's classes and the containers Compose, RandomApply, RandomChoice and
RandomOrder.

Every class holds an immutable native transform object (`native`, loom::transforms::Transform); a call
packs its inputs into a native Sample, runs the transform on it with the GIL released, and puts the
results back into the input's structure (see _structure). One object may be called from many threads.

Randomness: a call draws from `generator` when given (a loom Generator, advanced by the draws made) or
else from a fresh fork of loom's default generator (loom.transforms.v2.manual_seed seeds it). Each call
on a batch (N x C x H x W) draws once, and every image of the batch gets the same parameters, as in
torchvision.transforms.v2 (GaussianNoise too: the same noise for each image of the batch; call it per
image, or use functional.gaussian_noise, for independent noise).
"""

from ..._loom import transforms as _native
from ._structure import Packed


class Transform:
    """The base class: subclasses set self.native in __init__. Not a torch.nn.Module."""

    native = None

    def __call__(self, *inputs, generator=None, layout="CHW"):
        """Transforms an image, a batch, or a structure of image, BoundingBoxes, KeyPoints and labels
        (t(image), t(image, boxes), t({"image": ..., "boxes": ..., "labels": ...})). layout is loom's:
        "HWC" for H x W x C images."""
        if not inputs:
            raise TypeError(f"{type(self).__name__} needs an input")
        packed = Packed(inputs, layout, _native)
        if packed.empty:
            return packed.structure
        return packed.unpack(_native.apply(self.native, packed.sample, generator))

    def __repr__(self):
        return self.native.describe()


def _natives(transforms, who):
    transforms = list(transforms)
    for t in transforms:
        if not isinstance(t, Transform):
            raise TypeError(f"{who} takes loom.transforms.v2 transforms, not {type(t).__name__}")
    return transforms, [t.native for t in transforms]


class Compose(Transform):
    """Applies the transforms in order. With loom transforms only, the whole pipeline runs natively in
    one call (the draws are those of loom's C++ Compose, the loader's). Other callables may be mixed in,
    as torchvision allows: the list then runs step by step in Python, the loom steps drawing from the
    same generator (or each from a fork of the default one)."""

    def __init__(self, transforms):
        self.transforms = list(transforms)
        if all(isinstance(t, Transform) for t in self.transforms):
            self.native = _native.Compose([t.native for t in self.transforms])
        else:
            self.native = None

    def __call__(self, *inputs, generator=None, layout="CHW"):
        if self.native is not None:
            return super().__call__(*inputs, generator=generator, layout=layout)
        unpack = len(inputs) > 1
        outputs = inputs if unpack else inputs[0]
        for t in self.transforms:
            args = outputs if unpack else (outputs,)
            outputs = t(*args, generator=generator, layout=layout) if isinstance(t, Transform) else t(*args)
        return outputs

    def __repr__(self):
        if self.native is not None:
            return self.native.describe()
        return "Compose([" + ", ".join(repr(t) for t in self.transforms) + "])"


class RandomApply(Transform):
    """All the transforms in order with probability p (one bernoulli(p) draw), or none of them."""

    def __init__(self, transforms, p=0.5):
        self.transforms, natives = _natives(transforms, "RandomApply")
        self.p = p
        self.native = _native.RandomApply(natives, float(p))


class RandomChoice(Transform):
    """One of the transforms, picked by one uniform draw with probabilities p (default equal; they are
    normalised to sum to 1)."""

    def __init__(self, transforms, p=None):
        self.transforms, natives = _natives(transforms, "RandomChoice")
        self.p = p
        self.native = _native.RandomChoice(natives, [] if p is None else [float(v) for v in p])


class RandomOrder(Transform):
    """All the transforms, in a random order (Generator.permutation's draws)."""

    def __init__(self, transforms):
        self.transforms, natives = _natives(transforms, "RandomOrder")
        self.native = _native.RandomOrder(natives)
