"""Reference for tests/transforms/resize_parity_test.cc: Pillow 9.4's Image.resize (reducing_gap=None).

Inputs: in<k>.npy images, H x W x C (C = 1..4), uint8 or float32. params.json: {"cases": [{"input":
"in<k>", "size": [h, w], "filter": "bilinear"|"bicubic"|"box"}, ...]}. Output out_<i>.npy for case i,
H x W x C in the input's dtype.
uint8 RGB resizes as one "RGB" image. Other channel counts resize channel by channel as "L" images
(Pillow's own LA/RGBA resize premultiplies by alpha, which loom, like torchvision, does not; per
channel it is the same 8-bit algorithm). float32 resizes channel by channel as "F" images (Pillow's
32-bit path, double weights).
"""
import numpy as np
from PIL import Image

from refutil import load, params, save

FILTERS = {"bilinear": Image.BILINEAR, "bicubic": Image.BICUBIC, "box": Image.BOX}

for i, case in enumerate(params()["cases"]):
    array = load(case["input"])
    h, w = case["size"]
    f = FILTERS[case["filter"]]
    if array.dtype == np.uint8 and array.shape[2] == 3:
        out = np.asarray(Image.fromarray(array, "RGB").resize((w, h), f, reducing_gap=None))
    else:
        mode = "L" if array.dtype == np.uint8 else "F"
        planes = [np.asarray(Image.fromarray(np.ascontiguousarray(array[:, :, c]), mode).resize((w, h), f))
                  for c in range(array.shape[2])]
        out = np.stack(planes, axis=2)
    save(str(i), out)
