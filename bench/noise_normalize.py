#!/usr/bin/python3
"""GaussianNoise (uint8) and normalize (uint8 HWC -> float32 CHW), one thread: loom (per SIMD target) vs
torch 1.13, NumPy 1.24 and OpenCV 4.6.

Run with Debian's Python: /usr/bin/python3 (python3-opencv, python3-numpy, python3-torch).

    /usr/bin/python3 bench/noise_normalize.py --loom-bench build/bench/loom_bench_color [--json out.json]

The same synthetic RGB images (benchlib.synthetic_rgb, 1920x1080 and 224x224) go to every tool:
  loom     loom_bench_color (C++), each Highway target of this CPU; the ratios use the best target.
           gaussian_noise(uint8 HWC, mean 0, sigma 0.1); normalize(uint8 HWC in, float32 CHW out, ImageNet
           mean/std), one fused pass.
  torch    torch.set_num_threads(1), inference mode.
           noise: torchvision 0.24's uint8 formula in torch 1.13 ops, on the CHW tensor (a view of the
             HWC array, as torchvision users get from a decoder):
             noise = (mean*255 + torch.randn_like(img, dtype=float32) * (sigma*255)).to(int16);
             (img + noise).clamp(0, 255).to(uint8)
           normalize: torch.from_numpy(hwc).permute(2, 0, 1).float().div(255).sub(mean).div(std)
             (what ToTensor/ToDtype + Normalize do; 3 passes and the permute copy).
  NumPy    noise: default_rng().standard_normal(float32) with the same formula; normalize: transpose,
           astype(float32) / 255, (x - mean) / std.
  OpenCV   normalize only: cv2.dnn.blobFromImage(img, 1/255, mean=255*mean, swapRB=False) / std
           (blobFromImage has no per-channel std: one more pass).
Each time is the median of enough runs to take 0.2 s after a warm-up; ratios are peer time / loom time
(> 1: loom is faster).
"""
import json

import cv2
import numpy as np
import torch

import benchlib

SIZES = [(1920, 1080), (224, 224)]
MEAN = np.array([0.485, 0.456, 0.406], dtype=np.float32)
STD = np.array([0.229, 0.224, 0.225], dtype=np.float32)


def loom_times(bench, image):
    """{op: {target: ms}} from loom_bench_color on `image` (H x W x 3 uint8)."""
    times = {}
    for r in benchlib.run_loom_bench_on_image(bench, image):
        times.setdefault(r["op"], {})[r["target"]] = r["ms"]
    return times


def peer_times(image):
    ms = lambda fn: benchlib.median_seconds(fn, warmup=0.1) * 1e3  # noqa: E731
    chw = torch.from_numpy(image).permute(2, 0, 1)
    mean_t = torch.from_numpy(MEAN).view(3, 1, 1)
    std_t = torch.from_numpy(STD).view(3, 1, 1)
    rng = np.random.default_rng(0)

    def torch_noise(mean=0.0, sigma=0.1):
        noise = ((mean * 255) + torch.randn_like(chw, dtype=torch.float32) * (sigma * 255)).to(torch.int16)
        return (chw + noise).clamp(0, 255).to(torch.uint8)

    def numpy_noise(mean=0.0, sigma=0.1):
        noise = ((mean * 255) + rng.standard_normal(image.shape, dtype=np.float32) * np.float32(sigma * 255))
        return np.clip(image + noise.astype(np.int16), 0, 255).astype(np.uint8)

    def numpy_normalize():
        x = image.transpose(2, 0, 1).astype(np.float32) / np.float32(255)
        return (x - MEAN[:, None, None]) / STD[:, None, None]

    def opencv_normalize():
        blob = cv2.dnn.blobFromImage(image, scalefactor=1.0 / 255, mean=tuple(float(m) * 255 for m in MEAN), swapRB=False)
        return blob / STD[None, :, None, None]

    with torch.inference_mode():
        return {
            "noise": {"torch": ms(torch_noise), "numpy": ms(numpy_noise)},
            "normalize": {
                "torch": ms(lambda: chw.float().div(255).sub(mean_t).div(std_t)),
                "numpy": ms(numpy_normalize),
                "opencv": ms(opencv_normalize),
            },
        }


def main():
    args = benchlib.loom_bench_args(__doc__, "loom_bench_color")
    cv2.setNumThreads(1)
    torch.set_num_threads(1)
    rows = []
    for w, h in SIZES:
        image = benchlib.synthetic_rgb(w, h)
        loom = loom_times(args.loom_bench, image)
        peers = peer_times(image)
        rows.append({"size": f"{w}x{h}", "loom_ms": loom, "peers_ms": peers})
    for op, loom_op, peers in [("uint8 GaussianNoise (sigma 0.1)", "gaussian_noise_u8", ["torch", "numpy"]),
                               ("normalize uint8 HWC -> float32 CHW", "normalize_u8_hwc_to_chw",
                                ["torch", "numpy", "opencv"])]:
        kind = "noise" if "noise" in loom_op else "normalize"
        targets = list(rows[0]["loom_ms"][loom_op])
        print(f"{op}, one thread (ms; ratio = peer / loom best target)")
        print(f"{'size':<11}" + "".join(f"{'loom ' + t:>13}" for t in targets) +
              "".join(f"{p:>9}" for p in peers) + "".join(f"{p + '/loom':>13}" for p in peers))
        for r in rows:
            lt = r["loom_ms"][loom_op]
            best = min(lt.values())
            print(f"{r['size']:<11}" + "".join(f"{lt[t]:13.3f}" for t in targets) +
                  "".join(f"{r['peers_ms'][kind][p]:9.3f}" for p in peers) +
                  "".join(f"{r['peers_ms'][kind][p] / best:13.2f}" for p in peers))
        print()
    print("other loom ops, best target (ms)")
    ops = [op for op in rows[0]["loom_ms"] if op not in ("gaussian_noise_u8", "normalize_u8_hwc_to_chw")]
    print(f"{'op':<26}" + "".join(f"{r['size']:>12}" for r in rows))
    for op in ops:
        print(f"{op:<26}" + "".join(f"{min(r['loom_ms'][op].values()):12.3f}" for r in rows))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"machine": benchlib.machine_info(), "noise_normalize": rows}, f, indent=1)


if __name__ == "__main__":
    main()
