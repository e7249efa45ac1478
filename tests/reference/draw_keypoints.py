"""torchvision.utils.draw_keypoints on image.npy (3, H, W uint8), once per case.

params: cases, a list of {connectivity (list of [i, j]), color ([r, g, b]), radius, width}; case i draws
keypoints_<i>.npy ([N, K, 2]) and writes out_image_<i>.npy.
"""
import torch
import torchvision.utils as U

from refutil import load, params, save

image = torch.from_numpy(load("image"))
for i, case in enumerate(params()["cases"]):
    out = U.draw_keypoints(image, torch.from_numpy(load(f"keypoints_{i}")),
                           connectivity=[tuple(c) for c in case["connectivity"]] or None, colors=tuple(case["color"]),
                           radius=case["radius"], width=case["width"])
    save(f"image_{i}", out.numpy())
