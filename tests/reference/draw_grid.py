"""torchvision.utils.make_grid, once per case.

params: cases, a list of {nrow, padding, pad_value}; case i lays out images_<i>.npy (N, C, H, W) and writes
out_grid_<i>.npy.
"""
import torch
import torchvision.utils as U

from refutil import load, params, save

for i, case in enumerate(params()["cases"]):
    out = U.make_grid(torch.from_numpy(load(f"images_{i}")), nrow=case["nrow"], padding=case["padding"],
                      pad_value=case["pad_value"])
    save(f"grid_{i}", out.numpy())
