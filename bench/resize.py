#!/usr/bin/python3
"""Antialiased RGB resize, one thread: loom (per SIMD target) vs Pillow 9.4, OpenCV 4.6 and torch 1.13.

Run with Debian's Python: /usr/bin/python3 (python3-pil, python3-opencv, python3-numpy, python3-torch,
python3-torchvision).

    /usr/bin/python3 bench/resize.py --loom-bench build/bench/loom_bench_resize [--json out.json]

The same synthetic RGB image (smooth pattern plus noise, benchlib.synthetic_rgb) goes to every tool:
  loom     transforms::resize, antialiased bilinear, HWC, timed in C++ (loom_bench_resize) for each
           Highway target of this CPU (AVX3 = AVX-512, AVX2, SSE4, SSSE3, SCALAR = scalar reference)
  Pillow   Image.resize(size, Image.BILINEAR) (always antialiased; loom's reference, within 1)
  OpenCV   cv2.resize with INTER_AREA for downscales and INTER_LINEAR for upscales,
           cv2.setNumThreads(1)
  torch    torch.set_num_threads(1). uint8: torchvision 0.14's resize(CHW uint8 tensor, antialias=True),
           which converts to float32, interpolates and rounds (torch 1.13's antialiased interpolate has no
           uint8 kernel). float32: interpolate(NCHW float32 in [0, 1], mode="bilinear", antialias=True),
           against loom's float32 CHW resize (a second table; loom's float path is scalar).
Each time is the median of enough runs to take 0.2 s after a warm-up; ratios are peer time / loom
time on the best target (> 1: loom is faster).
"""
import json

import cv2
import numpy as np
import torch
import torch.nn.functional as F
import torchvision.transforms.functional as TF
from PIL import Image

import benchlib

CASES = [((1920, 1080), (224, 224)), ((512, 512), (224, 224)), ((1920, 1080), (640, 360)),
         ((224, 224), (512, 512))]


def loom_times(bench, image, out_sizes):
    """({(target, out): ms} for uint8 HWC, {out: ms} for float32 CHW) from loom_bench_resize on `image`
    (H x W x 3 uint8)."""
    lines = benchlib.run_loom_bench_on_image(bench, image, *[f"{ow}x{oh}" for ow, oh in out_sizes])
    return ({(r["target"], r["out"]): r["ms"] for r in lines
             if r.get("layout") == "HWC" and r.get("mode") == "default"},
            {r["out"]: r["ms"] for r in lines if r.get("dtype") == "float32"})


def main():
    args = benchlib.loom_bench_args(__doc__, "loom_bench_resize")
    cv2.setNumThreads(1)
    torch.set_num_threads(1)
    rows = []
    for (w, h), (ow, oh) in CASES:
        image = benchlib.synthetic_rgb(w, h)
        pil = Image.fromarray(image)
        interp = cv2.INTER_AREA if ow < w else cv2.INTER_LINEAR
        pillow_ms = benchlib.median_seconds(lambda: pil.resize((ow, oh), Image.BILINEAR), warmup=0.1) * 1e3
        opencv_ms = benchlib.median_seconds(lambda: cv2.resize(image, (ow, oh), interpolation=interp), warmup=0.1) * 1e3
        chw_u8 = torch.from_numpy(np.ascontiguousarray(image.transpose(2, 0, 1)))
        nchw_f32 = (chw_u8.float() / 255.0)[None]
        with torch.inference_mode():
            torch_u8_ms = benchlib.median_seconds(
                lambda: TF.resize(chw_u8, [oh, ow], antialias=True), warmup=0.1) * 1e3
            torch_f32_ms = benchlib.median_seconds(
                lambda: F.interpolate(nchw_f32, size=(oh, ow), mode="bilinear", antialias=True, align_corners=False),
                warmup=0.1) * 1e3
        loom, loom_f32 = loom_times(args.loom_bench, image, [(ow, oh)])
        targets = {t: ms for (t, _), ms in loom.items()}
        best_target = min(targets, key=targets.get)
        rows.append({"in": f"{w}x{h}", "out": f"{ow}x{oh}", "loom_ms": targets, "best_target": best_target,
                     "pillow_ms": pillow_ms, "opencv_ms": opencv_ms, "torch_u8_ms": torch_u8_ms,
                     "loom_f32_ms": loom_f32[f"{ow}x{oh}"], "torch_f32_ms": torch_f32_ms,
                     "opencv_mode": "INTER_AREA" if interp == cv2.INTER_AREA else "INTER_LINEAR"})
    targets = list(rows[0]["loom_ms"])
    print("uint8 RGB antialiased bilinear resize, one thread (ms; ratio = peer / loom best target)")
    print(f"{'case':<22}" + "".join(f"{'loom ' + t:>12}" for t in targets) +
          f"{'Pillow':>10}{'OpenCV':>10}{'torch':>10}{'Pillow/loom':>13}{'OpenCV/loom':>13}{'torch/loom':>12}")
    for r in rows:
        best = r["loom_ms"][r["best_target"]]
        print(f"{r['in'] + ' -> ' + r['out']:<22}" + "".join(f"{r['loom_ms'][t]:12.3f}" for t in targets) +
              f"{r['pillow_ms']:10.3f}{r['opencv_ms']:10.3f}{r['torch_u8_ms']:10.3f}{r['pillow_ms'] / best:13.2f}"
              f"{r['opencv_ms'] / best:13.2f}{r['torch_u8_ms'] / best:12.2f}  ({r['opencv_mode']})")
    print()
    print("float32 CHW RGB antialiased bilinear resize, one thread (ms; ratio = torch / loom)")
    print(f"{'case':<22}{'loom':>10}{'torch':>10}{'torch/loom':>12}")
    for r in rows:
        print(f"{r['in'] + ' -> ' + r['out']:<22}{r['loom_f32_ms']:10.3f}{r['torch_f32_ms']:10.3f}"
              f"{r['torch_f32_ms'] / r['loom_f32_ms']:12.2f}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"machine": benchlib.machine_info(), "resize": rows}, f, indent=1)


if __name__ == "__main__":
    main()
