#!/usr/bin/python3
"""uint8 RGB geometric transforms, one thread: loom (CHW and HWC) vs torchvision 0.14 and OpenCV 4.6.

Run with Debian's Python: /usr/bin/python3 (python3-opencv, python3-numpy, python3-torch,
python3-torchvision).

    /usr/bin/python3 bench/geometry.py --loom-bench build/bench/loom_bench_geometry [--json out.json]
        [--rounds N] [--loom-before OTHER_BUILD/bench/loom_bench_geometry] [--plot docs/performance_warps.png]

The same synthetic RGB images (1920x1080 and 224x224, benchlib.synthetic_rgb) and the same parameters
go to every tool:
  loom         transforms/geometry.h on a Sample (uint8 CHW and HWC), timed in C++ (loom_bench_geometry)
  torchvision  transforms.functional on a uint8 CHW tensor, torch.set_num_threads(1): hflip, vflip,
               crop (+ .contiguous(): torchvision's crop is a view, loom's a copy), pad (constant and
               padding_mode="reflect"), rotate (NEAREST / BILINEAR, expand False / True), affine,
               perspective (NEAREST / BILINEAR). Its uint8 warps convert to float, grid_sample and round.
  OpenCV       on an HWC numpy array, cv2.setNumThreads(1): cv2.flip, slicing + .copy() for crop,
               cv2.copyMakeBorder (BORDER_CONSTANT; BORDER_REFLECT_101 = torchvision's "reflect"),
               cv2.warpAffine (INTER_NEAREST / INTER_LINEAR, WARP_INVERSE_MAP) with torchvision's own
               inverse matrix for rotate and affine, moved to OpenCV's pixel coordinates (same angle,
               same centre, same expanded size), cv2.warpPerspective with torchvision's perspective
               coefficients likewise.
The "|cv-tv|" column is the mean absolute difference of OpenCV's and torchvision's output pixels: a
check that both got the same geometry (not 0: rounding and edge handling differ).
Each time is the median of enough runs to take 0.2 s after a warm-up; ratios are peer time / loom
time (> 1: loom is faster): torchvision / loom CHW and OpenCV / loom HWC. A second table times loom's
warps on each Highway target this CPU supports (loom_bench_geometry's per-target lines, AVX2 and up)
against OpenCV: its HWC time for loom HWC, and for loom CHW the time of OpenCV's warp on each plane
in turn (OpenCV has no planar layout). --rounds N times every tool N times, round after round, and
reports medians; --loom-before also times another build's loom_bench_geometry (before a change).
"""
import argparse
import json
import math

import cv2
import numpy as np
import torch
import torchvision.transforms.functional as TF
from torchvision.transforms import InterpolationMode

import benchlib

SIZES = [(1920, 1080), (224, 224)]
PAD = 32
ANGLE = 30.0
AFFINE = {"angle": 15.0, "translate": [20, 10], "scale": 1.1, "shear": [5.0, 3.0]}
OPS = ["hflip", "vflip", "crop", "pad_constant", "pad_reflect", "rotate_nearest", "rotate_bilinear",
       "rotate_nearest_expand", "rotate_bilinear_expand", "affine_nearest", "affine_bilinear",
       "perspective_nearest", "perspective_bilinear"]
WARPS = [op for op in OPS if op.startswith(("rotate", "affine", "perspective"))]


def params(w, h):
    """Crop window (top, left, height, width) and perspective end points for a w x h image."""
    crop = (h // 4, w // 4, h // 2, w // 2)
    start = [[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]]
    end = [[round(w * 0.05), round(h * 0.10)], [round(w * 0.90), round(h * 0.05)],
           [round(w * 0.95), round(h * 0.90)], [round(w * 0.10), round(h * 0.95)]]
    return crop, start, end


def loom_times(bench, image, crop, end):
    """{(layout, op): ms} from loom_bench_geometry on `image` (H x W x 3 uint8), with the best SIMD
    target, and {(layout, op, target): ms} for the warps on each target."""
    a = AFFINE
    args = [f"crop={','.join(map(str, crop))}", f"pad={PAD}", f"angle={ANGLE}",
            f"affine={a['angle']},{a['translate'][0]},{a['translate'][1]},{a['scale']},{a['shear'][0]},{a['shear'][1]}",
            "perspective=" + ",".join(str(v) for p in end for v in p)]
    lines = benchlib.run_loom_bench_on_image(bench, image, *args)
    best = {(r["layout"], r["op"]): r["ms"] for r in lines if "target" not in r}
    per_target = {(r["layout"], r["op"], r["target"]): r["ms"] for r in lines if "target" in r}
    return best, per_target


def cv_affine(inverse, in_size, out_size):
    """torchvision's inverse affine matrix (output -> input, about the image centres, pixel centres at
    i + 0.5) as a 2x3 matrix for cv2.warpAffine(..., WARP_INVERSE_MAP) in OpenCV's pixel coordinates."""
    (w, h), (ow, oh) = in_size, out_size
    a = np.array(inverse, dtype=np.float64).reshape(2, 3)
    c_in = np.array([(w - 1) / 2, (h - 1) / 2])
    c_out = np.array([(ow - 1) / 2, (oh - 1) / 2])
    m = a.copy()
    m[:, 2] = a[:, 2] + c_in - a[:, :2] @ c_out
    return m


def cv_perspective(start, end):
    """torchvision's perspective coefficients (output -> input, on i + 0.5) as a 3x3 matrix for
    cv2.warpPerspective(..., WARP_INVERSE_MAP)."""
    c = TF._get_perspective_coeffs(start, end)
    hom = np.array([c[0:3], c[3:6], [c[6], c[7], 1.0]], dtype=np.float64)
    shift = np.array([[1, 0, 0.5], [0, 1, 0.5], [0, 0, 1]], dtype=np.float64)
    return np.linalg.inv(shift) @ hom @ shift


def peer_ops(image, crop, start, end):
    """{op: (torchvision fn, OpenCV fn)}, each a no-argument call on the same pixels."""
    h, w, _ = image.shape
    chw = torch.from_numpy(np.ascontiguousarray(image.transpose(2, 0, 1)))
    top, left, ch, cw = crop
    near, bil = InterpolationMode.NEAREST, InterpolationMode.BILINEAR
    rot_inv = TF._get_inverse_affine_matrix([0.0, 0.0], -ANGLE, [0.0, 0.0], 1.0, [0.0, 0.0])
    a = AFFINE
    aff_inv = TF._get_inverse_affine_matrix([0.0, 0.0], a["angle"], [float(t) for t in a["translate"]], a["scale"],
                                            a["shear"])
    oh, ow = TF.rotate(chw, ANGLE, expand=True).shape[-2:]  # torchvision's expanded size
    rot = cv_affine(rot_inv, (w, h), (w, h))
    rot_expand = cv_affine(rot_inv, (w, h), (ow, oh))
    aff = cv_affine(aff_inv, (w, h), (w, h))
    persp = cv_perspective(start, end)
    inv = cv2.WARP_INVERSE_MAP
    const = dict(borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    return {
        "hflip": (lambda: TF.hflip(chw), lambda: cv2.flip(image, 1)),
        "vflip": (lambda: TF.vflip(chw), lambda: cv2.flip(image, 0)),
        "crop": (lambda: TF.crop(chw, top, left, ch, cw).contiguous(),
                 lambda: image[top:top + ch, left:left + cw].copy()),
        "pad_constant": (lambda: TF.pad(chw, PAD, fill=0, padding_mode="constant"),
                         lambda: cv2.copyMakeBorder(image, PAD, PAD, PAD, PAD, cv2.BORDER_CONSTANT, value=0)),
        "pad_reflect": (lambda: TF.pad(chw, PAD, padding_mode="reflect"),
                        lambda: cv2.copyMakeBorder(image, PAD, PAD, PAD, PAD, cv2.BORDER_REFLECT_101)),
        "rotate_nearest": (lambda: TF.rotate(chw, ANGLE, near),
                           lambda: cv2.warpAffine(image, rot, (w, h), flags=cv2.INTER_NEAREST | inv, **const)),
        "rotate_bilinear": (lambda: TF.rotate(chw, ANGLE, bil),
                            lambda: cv2.warpAffine(image, rot, (w, h), flags=cv2.INTER_LINEAR | inv, **const)),
        "rotate_nearest_expand": (lambda: TF.rotate(chw, ANGLE, near, expand=True),
                                  lambda: cv2.warpAffine(image, rot_expand, (ow, oh), flags=cv2.INTER_NEAREST | inv,
                                                         **const)),
        "rotate_bilinear_expand": (lambda: TF.rotate(chw, ANGLE, bil, expand=True),
                                   lambda: cv2.warpAffine(image, rot_expand, (ow, oh), flags=cv2.INTER_LINEAR | inv,
                                                          **const)),
        "affine_nearest": (lambda: TF.affine(chw, interpolation=near, **AFFINE),
                           lambda: cv2.warpAffine(image, aff, (w, h), flags=cv2.INTER_NEAREST | inv, **const)),
        "affine_bilinear": (lambda: TF.affine(chw, interpolation=bil, **AFFINE),
                            lambda: cv2.warpAffine(image, aff, (w, h), flags=cv2.INTER_LINEAR | inv, **const)),
        "perspective_nearest": (lambda: TF.perspective(chw, start, end, near),
                                lambda: cv2.warpPerspective(image, persp, (w, h), flags=cv2.INTER_NEAREST | inv,
                                                            **const)),
        "perspective_bilinear": (lambda: TF.perspective(chw, start, end, bil),
                                 lambda: cv2.warpPerspective(image, persp, (w, h), flags=cv2.INTER_LINEAR | inv,
                                                             **const)),
    }


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--loom-bench", required=True, help="path of loom_bench_geometry")
    p.add_argument("--loom-before", help="another build's loom_bench_geometry (before a change), timed alongside")
    p.add_argument("--rounds", type=int, default=1, help="rounds, each timing every tool once; medians reported")
    p.add_argument("--json", help="also write the results as JSON here")
    p.add_argument("--plot", help="a PNG of the warps' OpenCV / loom ratio per SIMD target "
                                  "(docs/performance_warps.png)")
    return p.parse_args()


def plot_warps(target_rows, machine, path):
    """Bars of OpenCV time / loom time per warp, size and layout, one colour per Highway target."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    targets = sorted({r["target"] for r in target_rows})
    cases = list(dict.fromkeys((r["op"], r["size"], r["layout"]) for r in target_rows))
    fig, ax = plt.subplots(figsize=(9, 0.3 * len(cases) + 1.4))
    height = 0.8 / len(targets)
    for k, target in enumerate(targets):
        ratios = []
        for op, size, layout in cases:
            r = next(x for x in target_rows
                     if (x["op"], x["size"], x["layout"], x["target"]) == (op, size, layout, target))
            cv = r["opencv_ms"] if layout == "HWC" else r["opencv_planar_ms"]
            ratios.append(cv / r["loom_ms"])
        ax.barh([i + k * height for i in range(len(cases))], ratios, height=height, label=f"loom {target}")
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_yticks([i + 0.4 - height / 2 for i in range(len(cases))], [f"{o} {s} {l}" for o, s, l in cases], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("OpenCV time / loom time (> 1: loom is faster; CHW: OpenCV on each plane)")
    ax.set_title(f"uint8 RGB warps against OpenCV {machine.get('opencv', '')}, one thread\n{machine['cpu']}, "
                 f"{machine['date']}", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def planar(cv_fn_of, image):
    """An OpenCV call on each plane of `image` in turn: OpenCV's cost on a CHW image."""
    planes = [np.ascontiguousarray(image[:, :, c]) for c in range(image.shape[2])]
    fns = [cv_fn_of(p) for p in planes]
    return lambda: [fn() for fn in fns]


def one_round(args, w, h, samples, target_samples, diffs):
    """Times every tool once on the w x h image, appending to samples[(size, op, column)] and
    target_samples[(size, op, layout, target)]."""
    size = f"{w}x{h}"
    image = benchlib.synthetic_rgb(w, h)
    crop, start, end = params(w, h)
    loom, per_target = loom_times(args.loom_bench, image, crop, end)
    before = loom_times(args.loom_before, image, crop, end)[0] if args.loom_before else {}
    for (layout, op, target), ms in per_target.items():
        target_samples.setdefault((size, op, layout, target), []).append(ms)
    ops = peer_ops(image, crop, start, end)
    planar_ops = {op: planar(lambda p, op=op: peer_ops(p[:, :, None], crop, start, end)[op][1], image)
                  for op in WARPS}
    with torch.inference_mode():
        for op, (tv_fn, cv_fn) in ops.items():
            if (size, op) not in diffs:
                tv_out = tv_fn().permute(1, 2, 0).numpy()
                cv_out = cv_fn()
                diffs[(size, op)] = (float(np.abs(tv_out.astype(np.int16) - cv_out.astype(np.int16)).mean())
                                     if tv_out.shape == cv_out.shape else math.nan)
            times = {"loom_chw_ms": loom[("CHW", op)], "loom_hwc_ms": loom[("HWC", op)],
                     "loom_before_chw_ms": before.get(("CHW", op), math.nan),
                     "loom_before_hwc_ms": before.get(("HWC", op), math.nan),
                     "torchvision_ms": benchlib.median_seconds(tv_fn, warmup=0.1) * 1e3,
                     "opencv_ms": benchlib.median_seconds(cv_fn, warmup=0.1) * 1e3,
                     "opencv_planar_ms": (benchlib.median_seconds(planar_ops[op], warmup=0.1) * 1e3
                                          if op in planar_ops else math.nan)}
            for column, ms in times.items():
                samples.setdefault((size, op, column), []).append(ms)


def main():
    args = parse_args()
    cv2.setNumThreads(1)
    torch.set_num_threads(1)
    samples, target_samples, diffs = {}, {}, {}
    for _ in range(args.rounds):
        for w, h in SIZES:
            one_round(args, w, h, samples, target_samples, diffs)
    rows = []
    for w, h in SIZES:
        size = f"{w}x{h}"
        for op in OPS:
            row = {"op": op, "size": size}
            for (s, o, column), values in samples.items():
                if (s, o) == (size, op):
                    row[column] = float(np.median(values))
            row["opencv_torchvision_mean_abs_diff"] = diffs[(size, op)]
            rows.append(row)
    target_rows = [{"op": op, "size": size, "layout": layout, "target": target, "loom_ms": float(np.median(v)),
                    "opencv_ms": next(r["opencv_ms"] for r in rows if (r["size"], r["op"]) == (size, op)),
                    "opencv_planar_ms": next(r["opencv_planar_ms"] for r in rows if (r["size"], r["op"]) == (size, op))}
                   for (size, op, layout, target), v in target_samples.items()]
    print(f"uint8 RGB geometric transforms, one thread (ms, median of {args.rounds} round(s); pad {PAD} px per side, "
          f"rotate {ANGLE:g} deg, affine {AFFINE}; ratio = peer / loom, > 1: loom faster)")
    print(f"{'op':<24}{'size':>11}{'loom CHW':>10}{'loom HWC':>10}{'torchvis':>10}{'OpenCV':>10}"
          f"{'tv/loomCHW':>12}{'cv/loomHWC':>12}{'|cv-tv|':>9}{'before CHW':>12}{'before HWC':>12}")
    for r in rows:
        print(f"{r['op']:<24}{r['size']:>11}{r['loom_chw_ms']:10.3f}{r['loom_hwc_ms']:10.3f}{r['torchvision_ms']:10.3f}"
              f"{r['opencv_ms']:10.3f}{r['torchvision_ms'] / r['loom_chw_ms']:12.2f}"
              f"{r['opencv_ms'] / r['loom_hwc_ms']:12.2f}{r['opencv_torchvision_mean_abs_diff']:9.2f}"
              f"{r['loom_before_chw_ms']:12.3f}{r['loom_before_hwc_ms']:12.3f}")
    print("\nwarps per Highway target (ms; OpenCV on the HWC array, and on each plane in turn for CHW; "
          "ratio = OpenCV / loom)")
    print(f"{'op':<24}{'size':>11}{'layout':>8}{'target':>8}{'loom':>10}{'OpenCV':>10}{'cv/loom':>9}")
    for r in target_rows:
        cv = r["opencv_ms"] if r["layout"] == "HWC" else r["opencv_planar_ms"]
        print(f"{r['op']:<24}{r['size']:>11}{r['layout']:>8}{r['target']:>8}{r['loom_ms']:10.3f}{cv:10.3f}"
              f"{cv / r['loom_ms']:9.2f}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"machine": benchlib.machine_info(), "rounds": args.rounds,
                       "params": {"pad": PAD, "angle": ANGLE, "affine": AFFINE},
                       "geometry": rows, "warp_targets": target_rows}, f, indent=1)
    if args.plot:
        plot_warps(target_rows, benchlib.machine_info(), args.plot)


if __name__ == "__main__":
    main()
