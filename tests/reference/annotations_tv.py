"""torchvision >= 0.23 reference for tests/transforms/annotations_test.cc (bounding boxes, keypoints).

Inputs: boxes_<FORMAT> ([N, K] per box format), keypoints ([N, 2]) and keypoint_groups ([N, P, 2]).
Params: canvas [height, width], min_size, min_area.
Outputs, per format F (and every G of the same family), as arrays of the input dtype:
  convert_F_G, clamp_F_soft, clamp_F_hard, and the uint8 masks sanitize_F (torchvision's mask with the
  height of a rotated box measured correctly, as loom does) and sanitize_tv_F (torchvision's own mask);
  clamp_keypoints, clamp_keypoint_groups, sanitize_keypoints, sanitize_keypoint_groups.
With params also_float64, the same again computed in float64 on the same values (suffix _f64, floating
results rounded to the input dtype): loom computes in double, so float32 inputs are compared with these
within 1e-4, and with torchvision's own float32 arithmetic within a looser bound.
"""
import sys

import torch
from torchvision import tv_tensors
from torchvision.transforms.v2 import functional as F
from torchvision.transforms.v2.functional._misc import _get_sanitize_bounding_boxes_mask

from refutil import load, params, save

AXIS = ["XYXY", "XYWH", "CXCYWH"]
ROTATED = ["XYWHR", "CXCYWHR", "XYXYXYXY"]


def sanitize_fixed(boxes, fmt, canvas, min_size, min_area):
    """torchvision's _get_sanitize_bounding_boxes_mask, with the rotated height |corner3 - corner2|."""
    if fmt not in ROTATED:
        return _get_sanitize_bounding_boxes_mask(boxes, tv_tensors.BoundingBoxFormat[fmt], canvas, min_size, min_area)
    c = F.convert_bounding_box_format(boxes, old_format=fmt, new_format="XYXYXYXY")
    h, w = canvas
    ws = torch.sqrt((c[:, 0] - c[:, 2]) ** 2 + (c[:, 1] - c[:, 3]) ** 2)
    hs = torch.sqrt((c[:, 2] - c[:, 4]) ** 2 + (c[:, 3] - c[:, 5]) ** 2)
    valid = (ws >= min_size) & (hs >= min_size) & (c >= 0).all(dim=-1) & (ws * hs >= min_area)
    valid &= (c[:, 0::2] <= w).all(dim=-1) & (c[:, 1::2] <= h).all(dim=-1)
    return valid


def run(p, upcast):
    """All outputs; with upcast, torchvision computes on the inputs converted to float64 and the results
    are rounded back to the input dtype (names end in _f64)."""
    canvas = tuple(p["canvas"])
    min_size, min_area = p["min_size"], p["min_area"]
    suffix = "_f64" if upcast else ""

    def out(name, tensor, dtype):
        save(name + suffix, (tensor.to(dtype) if tensor.is_floating_point() else tensor).numpy())

    for family in (AXIS, ROTATED):
        for fmt in family:
            original = torch.from_numpy(load("boxes_" + fmt))
            boxes = original.double() if upcast else original
            for to in family:
                if to != fmt:
                    out(f"convert_{fmt}_{to}", F.convert_bounding_box_format(boxes, old_format=fmt, new_format=to),
                        original.dtype)
            for mode in ("soft", "hard"):
                clamped = F.clamp_bounding_boxes(boxes, format=fmt, canvas_size=canvas, clamping_mode=mode)
                out(f"clamp_{fmt}_{mode}", clamped, original.dtype)
            out("sanitize_" + fmt, sanitize_fixed(boxes, fmt, canvas, min_size, min_area).to(torch.uint8), None)
            tv = _get_sanitize_bounding_boxes_mask(boxes, tv_tensors.BoundingBoxFormat[fmt], canvas, min_size, min_area)
            out("sanitize_tv_" + fmt, tv.to(torch.uint8), None)
    for name in ("keypoints", "keypoint_groups"):
        original = torch.from_numpy(load(name))
        points = original.double() if upcast else original
        out("clamp_" + name, F.clamp_keypoints(points, canvas_size=canvas), original.dtype)
        _, valid = F.sanitize_keypoints(points, canvas_size=canvas)
        out("sanitize_" + name, valid.to(torch.uint8), None)


def main():
    p = params()
    run(p, upcast=False)
    if p.get("also_float64"):
        run(p, upcast=True)


if __name__ == "__main__":
    sys.exit(main())
