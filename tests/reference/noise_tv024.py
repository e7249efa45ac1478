"""torchvision 0.24's gaussian_noise (transforms.v2.functional) for tests/transforms/noise_test.cc.

Run with a Python that has torchvision >= 0.19 (the test uses /work/venv-tv/bin/python when present).
Inputs: image (C x H x W uint8 or float32). params: mean, sigma, clip, seed. Writes out_image.
"""
import torch
import torchvision.transforms.v2.functional as F

from refutil import load, params, save

p = params()
torch.manual_seed(p["seed"])
save("image", F.gaussian_noise(torch.from_numpy(load("image")), mean=p["mean"], sigma=p["sigma"], clip=p["clip"]).numpy())
