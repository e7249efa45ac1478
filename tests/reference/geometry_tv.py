"""torchvision's geometric transforms on the inputs of tests/transforms/geometry_parity_test.cc.

params: {"op": name, ...op arguments..., "formats": [box formats], "canvas": [h, w]}
inputs: image (C x H x W), optional boxes_<FORMAT> ([N, K]) and keypoints ([N, 2]).
With torchvision >= 0.23 (tv_tensors.KeyPoints) the v2 functional API transforms image, boxes and
keypoints; with older releases (Debian's 0.14) only the image, through the v1 functional API.
Writes out_image, out_boxes_<FORMAT>, out_keypoints and out_canvas ([h, w] of the boxes).
"""
import os

import numpy as np
import torch
import torchvision
from refutil import FOLDER, load, params, save

from torchvision.transforms import InterpolationMode

p = params()
image = torch.from_numpy(load("image"))
try:
    from torchvision import tv_tensors
    from torchvision.transforms.v2 import functional as F

    modern = hasattr(tv_tensors, "KeyPoints")
except ImportError:
    modern = False
if not modern:
    from torchvision.transforms import functional as F

interp = {"nearest": InterpolationMode.NEAREST, "bilinear": InterpolationMode.BILINEAR}


def run(x):
    op = p["op"]
    if op == "hflip":
        return F.horizontal_flip(x) if modern else F.hflip(x)
    if op == "vflip":
        return F.vertical_flip(x) if modern else F.vflip(x)
    if op == "crop":
        return F.crop(x, p["top"], p["left"], p["height"], p["width"])
    if op == "center_crop":
        return F.center_crop(x, [p["height"], p["width"]])
    if op == "pad":
        return F.pad(x, p["padding"], fill=p.get("fill", 0), padding_mode=p.get("mode", "constant"))
    if op == "resize":
        return F.resize(x, [p["height"], p["width"]], antialias=True)
    if op == "rotate":
        return F.rotate(x, p["angle"], interpolation=interp[p["interpolation"]], expand=p["expand"],
                        center=p.get("center"), fill=p.get("fill"))
    if op == "affine":
        return F.affine(x, angle=p["angle"], translate=p["translate"], scale=p["scale"], shear=p["shear"],
                        interpolation=interp[p["interpolation"]], fill=p.get("fill"), center=p.get("center"))
    if op == "perspective":
        return F.perspective(x, p["startpoints"], p["endpoints"], interpolation=interp[p["interpolation"]],
                             fill=p.get("fill"))
    raise ValueError(op)


save("image", run(tv_tensors.Image(image) if modern else image).numpy())
if modern:
    h, w = p["canvas"]
    for fmt in p.get("formats", []):
        boxes = tv_tensors.BoundingBoxes(torch.from_numpy(load("boxes_" + fmt)), format=fmt, canvas_size=(h, w),
                                         clamping_mode=p.get("clamping", "soft"))
        out = run(boxes)
        save("boxes_" + fmt, out.numpy())
        save("canvas", np.array(out.canvas_size, dtype=np.int64))
    if os.path.exists(os.path.join(FOLDER, "keypoints.npy")):
        kp = tv_tensors.KeyPoints(torch.from_numpy(load("keypoints")), canvas_size=(h, w))
        out = run(kp)
        save("keypoints", out.numpy())
        save("canvas", np.array(out.canvas_size, dtype=np.int64))
