"""torchvision.utils.draw_bounding_boxes on image.npy (C, H, W uint8), once per case.

params: cases, a list of {colors (list of [r, g, b] or null), fill (bool), width (int)}; case i draws
boxes_<i>.npy ([N, 4] or [N, 8]) and writes out_image_<i>.npy.
Rotated [N, 8] boxes need torchvision >= 0.23 (run under such an interpreter); with an older torchvision
the script draws them the way torchvision 0.23+ does, with Pillow's ImageDraw directly.
"""
import math
import warnings

import torch
import torchvision
import torchvision.utils as U
from PIL import Image, ImageDraw
import numpy as np

from refutil import load, params, save

warnings.filterwarnings("ignore")
image = torch.from_numpy(load("image"))


def rotated_with_pillow(image, boxes, colors, fill, width):
    """torchvision 0.23+'s _ImageDrawTV.oriented_rectangle, for interpreters with an older torchvision."""
    if image.size(0) == 1:
        image = torch.tile(image, (3, 1, 1))
    img = Image.fromarray(image.permute(1, 2, 0).numpy())
    draw = ImageDraw.Draw(img, "RGBA" if fill else None)
    n = boxes.shape[0]
    if colors is None:
        palette = torch.tensor([2**25 - 1, 2**15 - 1, 2**21 - 1])
        colors = [tuple(int(v) for v in (i * palette) % 255) for i in range(n)]
    for xy, color in zip(boxes.to(torch.int64).tolist(), colors):
        x1, y1, x2, y2 = xy[0], xy[1], xy[2], xy[3]
        if width == 0:  # Pillow >= 10, which torchvision 0.23+ runs on, draws no line of width 0
            draw.polygon(xy, fill=color + (100,) if fill else None, outline=None, width=0)
            continue
        remaining = math.hypot(x2 - x1, y2 - y1)
        dash = True
        while remaining > 0:
            step = min(remaining, 5)
            angle = math.atan2(y2 - y1, x2 - x1)
            ex, ey = x1 + math.cos(angle) * step, y1 + math.sin(angle) * step
            if dash:
                draw.line([(x1, y1), (ex, ey)], fill=color, width=width)
            remaining -= step
            x1, y1 = ex, ey
            dash = not dash
        for i in range(2, 8, 2):
            draw.line(((xy[i], xy[i + 1]), (xy[(i + 2) % 8], xy[(i + 3) % 8])), width=width, fill=color)
        draw.polygon(xy, fill=color + (100,) if fill else None, outline=None, width=0)
    return torch.from_numpy(np.array(img)).permute(2, 0, 1)


version = tuple(int(v) for v in torchvision.__version__.split("+")[0].split(".")[:2])
for i, case in enumerate(params()["cases"]):
    boxes = torch.from_numpy(load(f"boxes_{i}"))
    colors = [tuple(c) for c in case["colors"]] if case["colors"] is not None else None
    if boxes.shape[-1] == 8 and version < (0, 23):
        out = rotated_with_pillow(image, boxes, colors, case["fill"], case["width"])
    else:
        out = U.draw_bounding_boxes(image, boxes, colors=colors, fill=case["fill"], width=case["width"])
    save(f"image_{i}", out.numpy())
