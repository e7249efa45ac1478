"""Reference for tests/transforms/resize_parity_test.cc: torch 1.13's interpolate / torchvision 0.14's resize.

Inputs: in<k>.npy images (CHW or HWC, float32 or uint8). params.json: {"cases": [{"input": "in<k>",
"layout": "chw"|"hwc", "size": [h, w], "mode": "nearest"|"nearest-exact"|"bilinear"|"bicubic",
"antialias": bool, "two_pass": bool}, ...]}. Output out_<i>.npy for case i, in the input's layout and dtype:
  float32: torch.nn.functional.interpolate(x[None], size, mode, antialias, align_corners=None/False);
  antialias applies to bilinear and bicubic only (ignored for nearest, as in loom).
  uint8, nearest modes: interpolate on the uint8 tensor itself;
  uint8, bilinear/bicubic: torchvision.transforms.functional.resize on the uint8 tensor (it interpolates
  in float32, clamps bicubic to 0..255 and rounds); with two_pass, as loom's and Pillow's uint8 resize
  runs (a uint8 image between the passes): float interpolate to the new width, clamped to 0..255, then
  to the new height, clamped and rounded.
Runs on one thread.
"""
import numpy as np
import torch
import torch.nn.functional as F
import torchvision.transforms.functional as TF
from torchvision.transforms import InterpolationMode

from refutil import load, params, save

torch.set_num_threads(1)
for i, case in enumerate(params()["cases"]):
    array = load(case["input"])
    hwc = case["layout"] == "hwc"
    x = torch.from_numpy(np.ascontiguousarray(array.transpose(2, 0, 1) if hwc else array))
    mode, size = case["mode"], list(case["size"])
    antialias = case["antialias"] and mode in ("bilinear", "bicubic")  # torch refuses it for the others
    if x.dtype == torch.uint8 and mode in ("bilinear", "bicubic"):
        if case.get("two_pass"):
            f = x.float()[None]
            f = F.interpolate(f, size=[f.shape[2], size[1]], mode=mode, align_corners=False, antialias=antialias)
            f = F.interpolate(f.clamp(0, 255), size=size, mode=mode, align_corners=False, antialias=antialias)
            y = f[0].clamp(0, 255).round().to(torch.uint8)
        else:
            y = TF.resize(x, size, interpolation=InterpolationMode(mode), antialias=antialias)
    else:
        align = False if mode in ("bilinear", "bicubic") else None
        y = F.interpolate(x[None], size=size, mode=mode, align_corners=align, antialias=antialias)[0]
    out = y.numpy()
    save(str(i), out.transpose(1, 2, 0) if hwc else out)
