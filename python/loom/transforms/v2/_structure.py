"""What a transform call takes and returns: torchvision.transforms.v2's calling convention for loom.

A call takes one input or several (t(image), t(image, boxes), t({"image": ..., "boxes": ...}), nested
tuples, lists and dicts). The leaves are classified as torchvision classifies them, as far as loom's
Sample holds them:
  - the first plain tensor (torch tensor, numpy array or loom.Tensor) is the image: C x H x W, or a batch
    N x C x H x W (H x W x C and N x H x W x C with layout="HWC"); later plain tensors pass through;
  - one BoundingBoxes and one KeyPoints at most (loom's Sample has one of each; more raise ValueError);
  - the labels: the value of a "labels" key (any case) in the top-level dict, or in the first dict of a
    top-level tuple or list (torchvision's default labels_getter); SanitizeBoundingBoxes filters them;
  - everything else passes through unchanged. PIL images are refused (loom transforms tensors only).
The result has the structure of the input with the transformed leaves in place.
"""

import numpy as np

from ._tv_tensors import BoundingBoxes, KeyPoints, format_name


def is_plain_tensor(x):
    if isinstance(x, (BoundingBoxes, KeyPoints)):
        return False
    return isinstance(x, np.ndarray) or hasattr(x, "__dlpack__")


def _leaves(obj, out):
    if isinstance(obj, dict):
        for value in obj.values():
            _leaves(value, out)
    elif isinstance(obj, (list, tuple)):
        for value in obj:
            _leaves(value, out)
    else:
        out.append(obj)


def _rebuild(obj, leaves):
    if isinstance(obj, dict):
        items = [(key, _rebuild(value, leaves)) for key, value in obj.items()]
        return dict(items) if type(obj) is dict else type(obj)(items)
    if isinstance(obj, tuple):
        values = [_rebuild(value, leaves) for value in obj]
        return type(obj)(*values) if hasattr(obj, "_fields") else type(obj)(values)
    if isinstance(obj, list):
        return [_rebuild(value, leaves) for value in obj]
    return next(leaves)


def _labels_of(structure):
    """The labels object of the default labels_getter, or None."""
    target = structure
    if isinstance(structure, (tuple, list)):
        target = next((item for item in structure if isinstance(item, dict)), None)
    if not isinstance(target, dict):
        return None
    key = next((k for k in target if isinstance(k, str) and k.lower() == "labels"), None)
    return None if key is None else target[key]


class Packed:
    """The leaves of one call, the native Sample made from them, and how to put the results back."""

    def __init__(self, inputs, layout, native):
        self._single = len(inputs) == 1
        self.structure = inputs[0] if self._single else inputs
        leaves = []
        _leaves(self.structure, leaves)
        self.leaves = leaves
        labels = _labels_of(self.structure)
        self.image = self.boxes = self.keypoints = self.labels = None
        for i, leaf in enumerate(leaves):
            if type(leaf).__module__.startswith("PIL."):
                raise TypeError("loom transforms take tensors and arrays, not PIL images "
                                "(loom.io.decode_image gives a tensor)")
            if isinstance(leaf, BoundingBoxes):
                if self.boxes is not None:
                    raise ValueError("loom transforms one BoundingBoxes per call")
                self.boxes = i
            elif isinstance(leaf, KeyPoints):
                if self.keypoints is not None:
                    raise ValueError("loom transforms one KeyPoints per call")
                self.keypoints = i
            elif labels is not None and leaf is labels and self.labels is None and is_plain_tensor(leaf):
                self.labels = i
            elif self.image is None and is_plain_tensor(leaf):
                self.image = i
        self.empty = self.image is None and self.boxes is None and self.keypoints is None
        if self.empty:
            self.sample = None
            return
        boxes = None
        if self.boxes is not None:
            b = leaves[self.boxes]
            boxes = (b.data, format_name(b.format), b.canvas_size, b.clamping_mode)
        keypoints = None
        if self.keypoints is not None:
            k = leaves[self.keypoints]
            keypoints = (k.data, k.canvas_size)
        self.sample = native.Sample(image=None if self.image is None else leaves[self.image], layout=layout,
                                    boxes=boxes, keypoints=keypoints,
                                    labels=None if self.labels is None else leaves[self.labels])

    def unpack(self, out):
        """The input's structure with the leaves of the native Sample `out` in place."""
        if self.empty:
            return self.structure
        leaves = list(self.leaves)
        if self.image is not None:
            leaves[self.image] = out.image
        if self.boxes is not None:
            data, _, canvas, _ = out.boxes
            leaves[self.boxes] = leaves[self.boxes].wrap_like(data, canvas)
        if self.keypoints is not None:
            data, canvas = out.keypoints
            leaves[self.keypoints] = leaves[self.keypoints].wrap_like(data, canvas)
        if self.labels is not None:
            labels = out.labels
            if labels is not None:
                leaves[self.labels] = labels
        result = _rebuild(self.structure, iter(leaves))
        return result if self._single else tuple(result)
