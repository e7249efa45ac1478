"""uint8 RGB antialiased bilinear resize, one thread: loom (per SIMD target, HWC and CHW) against the
newest PyPI peers: torchvision's uint8 kernels (channels_last and contiguous CHW), Pillow and
Pillow-SIMD.

Benchmarks only (CI never runs it). Run it with the benchmark venv's Python (torch, torchvision,
Pillow, opencv-python-headless, matplotlib: bench/setup_loader_peers.sh) and name a second venv
holding Pillow-SIMD (`CC="cc -mavx2" pip install pillow-simd`; it replaces Pillow, so it lives apart):

    /tmp/bench-venv/bin/python bench/resize_peers.py --loom-bench build/bench/loom_bench_resize \\
        [--simd-python /tmp/simd-venv/bin/python] [--rounds 3] [--json out.json] [--plot out.png]

Every tool resizes the same pixels (benchlib.synthetic_rgb) to the same sizes:
  loom         transforms::resize, timed in C++ (loom_bench_resize) on each Highway target of this CPU:
               HWC by default and with pillow_exact (Pillow's order and arithmetic), CHW by default
  torchvision  torchvision.transforms.v2.functional.resize(x, size, antialias=True) on a uint8
               1x3xHxW tensor, channels_last and contiguous, torch.set_num_threads(1)
  Pillow       Image.resize(size, Image.BILINEAR), in this venv, and Pillow-SIMD's in --simd-python
Each time is the median of enough runs to take 0.2 s; each case takes the best of --rounds rounds.
Ratio = peer time / loom time (> 1: loom is faster): loom HWC against Pillow, Pillow-SIMD and
torchvision channels_last, loom CHW against torchvision contiguous.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import PIL
import torch
import torchvision
import torchvision.transforms.v2.functional as TF
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

CASES = [((1920, 1080), (224, 224)), ((1920, 1080), (512, 288)), ((512, 512), (224, 224)),
         ((1920, 1080), (640, 360))]

# Pillow-SIMD times, run in its own interpreter: argv = raw file, width, height, then WxH sizes.
PILLOW_SIMD_TIMER = """
import json, sys
sys.path.insert(0, sys.argv[1])
import benchlib, numpy as np, PIL
from PIL import Image
w, h = int(sys.argv[3]), int(sys.argv[4])
pil = Image.fromarray(np.fromfile(sys.argv[2], np.uint8).reshape(h, w, 3))
times = {s: benchlib.median_seconds(lambda: pil.resize(tuple(map(int, s.split("x"))), Image.BILINEAR),
                                    warmup=0.1) * 1e3 for s in sys.argv[5:]}
print(json.dumps({"version": PIL.__version__, "ms": times}))
"""


def pillow_simd_times(python, image, sizes):
    with tempfile.NamedTemporaryFile(suffix=".rgb") as raw:
        image.tofile(raw.name)
        out = subprocess.run([python, "-c", PILLOW_SIMD_TIMER, os.path.dirname(os.path.abspath(__file__)), raw.name,
                              str(image.shape[1]), str(image.shape[0]), *sizes],
                             check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def one_round(args, image, sizes):
    """{out: {name: ms}} for one image and its output sizes."""
    h, w = image.shape[:2]
    times = {s: {} for s in sizes}
    for r in benchlib.run_loom_bench_on_image(args.loom_bench, image, *sizes):
        if "target" in r:
            times[r["out"]][f"loom {r['target']} {r['layout']} {r['mode']}"] = r["ms"]
    pil = Image.fromarray(image)
    nchw = torch.from_numpy(np.ascontiguousarray(image.transpose(2, 0, 1)))[None]
    channels_last = nchw.contiguous(memory_format=torch.channels_last)
    for s in sizes:
        ow, oh = map(int, s.split("x"))
        times[s]["Pillow"] = benchlib.median_seconds(lambda: pil.resize((ow, oh), Image.BILINEAR), warmup=0.1) * 1e3
        with torch.inference_mode():
            for name, x in (("torchvision channels_last", channels_last), ("torchvision CHW", nchw)):
                times[s][name] = benchlib.median_seconds(lambda: TF.resize(x, [oh, ow], antialias=True),
                                                         warmup=0.1) * 1e3
    if args.simd_python:
        simd = pillow_simd_times(args.simd_python, image, sizes)
        args.simd_version = simd["version"]
        for s in sizes:
            times[s]["Pillow-SIMD"] = simd["ms"][s]
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--loom-bench", required=True, help="build/bench/loom_bench_resize")
    parser.add_argument("--simd-python", help="the Python of a venv with Pillow-SIMD")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json")
    parser.add_argument("--plot")
    args = parser.parse_args()
    torch.set_num_threads(1)
    rows = []
    for (w, h), (ow, oh) in CASES:
        image = benchlib.synthetic_rgb(w, h)
        best = {}
        for _ in range(args.rounds):
            for name, ms in one_round(args, image, [f"{ow}x{oh}"])[f"{ow}x{oh}"].items():
                best[name] = min(ms, best.get(name, ms))
        rows.append({"case": f"{w}x{h} -> {ow}x{oh}", "ms": best})
    peers_hwc = ["Pillow", "Pillow-SIMD", "torchvision channels_last"]
    targets = sorted({n.split()[1] for r in rows for n in r["ms"] if n.startswith("loom ")})
    print(f"torch {torch.__version__}, torchvision {torchvision.__version__}, Pillow {PIL.__version__}, "
          f"Pillow-SIMD {getattr(args, 'simd_version', 'not run')}; one thread; ms, best of {args.rounds} rounds")
    for r in rows:
        print(f"\n{r['case']}")
        for name in sorted(r["ms"]):
            print(f"  {name:<34}{r['ms'][name]:9.3f}")
        for t in targets:
            hwc = r["ms"][f"loom {t} HWC default"]
            exact = r["ms"][f"loom {t} HWC pillow_exact"]
            chw = r["ms"][f"loom {t} CHW default"]
            ratios = [f"{p} {r['ms'][p] / hwc:.2f}" for p in peers_hwc if p in r["ms"]]
            print(f"  {t}: HWC vs " + ", ".join(ratios) + f"; pillow_exact / default {exact / hwc:.2f}; "
                  f"CHW vs torchvision CHW {r['ms']['torchvision CHW'] / chw:.2f}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"machine": benchlib.machine_info(), "torch": torch.__version__,
                       "torchvision": torchvision.__version__, "pillow": PIL.__version__,
                       "pillow_simd": getattr(args, "simd_version", None), "rows": rows}, f, indent=1)
    if args.plot:
        plot(rows, targets, peers_hwc, args.plot)


def plot(rows, targets, peers_hwc, path):
    """Grouped bars for AVX3 and AVX2 (the targets the issue names): per case, the ratio of each SIMD peer
    to loom's time (1 = equal; dashed: 1.2). Plain Pillow (5-8x) is left to the printed table."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    targets = [t for t in ("AVX3", "AVX2") if t in targets]
    fig, axes = plt.subplots(1, len(targets), figsize=(6 * len(targets), 4), squeeze=False)
    for ax, t in zip(axes[0], targets):
        labels = [r["case"].replace(" -> ", "\n-> ") for r in rows]
        series = [(p, [r["ms"][p] / r["ms"][f"loom {t} HWC default"] for r in rows]) for p in peers_hwc
                  if p in rows[0]["ms"] and p != "Pillow"]
        series.append(("torchvision CHW / loom CHW",
                       [r["ms"]["torchvision CHW"] / r["ms"][f"loom {t} CHW default"] for r in rows]))
        width = 0.8 / len(series)
        for i, (name, values) in enumerate(series):
            ax.bar(np.arange(len(rows)) + i * width, values, width, label=name)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.axhline(1.2, color="gray", linestyle="--", linewidth=0.8)
        ax.set_xticks(np.arange(len(rows)) + 0.4 - width / 2, labels, fontsize=8)
        ax.set_title(f"loom {t}: peer time / loom time (> 1: loom faster)")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
