"""torchvision.utils.draw_segmentation_masks on image.npy (3, H, W uint8), once per case.

params: cases, a list of {alpha, colors (list of [r, g, b] or null)}; case i draws masks_<i>.npy (uint8 0/1,
[N, H, W] or [H, W], passed as bool) and writes out_image_<i>.npy.
"""
import warnings

import torch
import torchvision.utils as U

from refutil import load, params, save

warnings.filterwarnings("ignore")
image = torch.from_numpy(load("image"))
for i, case in enumerate(params()["cases"]):
    colors = [tuple(c) for c in case["colors"]] if case["colors"] is not None else None
    out = U.draw_segmentation_masks(image, torch.from_numpy(load(f"masks_{i}")).bool(), alpha=case["alpha"],
                                    colors=colors)
    save(f"image_{i}", out.numpy())
