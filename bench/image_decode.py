#!/usr/bin/python3
"""Single-thread image decode: loom vs Pillow vs OpenCV, on the same bytes, in the same run.

Run with Debian's Python: /usr/bin/python3 (python3-pil 9.4, python3-opencv 4.6, python3-numpy).

    /usr/bin/python3 bench/image_decode.py --loom-bench build/bench/loom_bench_image_decode \
        [--media ../shared/media] [--json out.json] [--min-time 0.2] [--rounds 3] [--warmup 0.5]

Inputs, in groups:
  jpeg       every file of <media>/images/jpeg
  jpeg-large generated at set-up time into a temporary folder: synthetic 1920x1080 and 4000x3000
             JPEGs (smooth pattern plus noise, quality 90, 4:2:0), deleted afterwards
  png        every file of <media>/images/png
  png-large  one generated 1920x1080 RGB PNG (zlib level 6)
  other      every file of <media>/images/other: WebP (still and animated: the first frame), GIF, TIFF
             and BMP (Debian's Pillow 9.4 reads neither AVIF nor HEIF, so those are skipped)
--groups picks some of them (default: all). Files that Pillow cannot open or that loom rejects are
skipped (and listed).

What is timed, per file, with the encoded bytes already in memory: after --warmup seconds of untimed
calls (the first decodes of a large image into fresh memory pay page faults; this measures the
steady state), the median of N calls, N chosen so that the calls take >= --min-time seconds; the
tools take turns, --rounds times, and the best (lowest) median of each tool counts, which filters
out bursts of load on a shared machine:
  loom    decode_image(mode=RGB, uint8) from a memory ByteSource, in HWC (the peers' layout) and CHW,
          timed inside the C++ program loom_bench_image_decode (no Python overhead)
  Pillow  np.asarray(Image.open(io.BytesIO(b)).convert('RGB'))
  OpenCV  cv2.imdecode(np.frombuffer(b, np.uint8), cv2.IMREAD_COLOR) with cv2.setNumThreads(1)
All three produce an H x W x 3 uint8 array (OpenCV in BGR order).
The ratios Pillow/loom and OpenCV/loom are time ratios: > 1 means loom is faster.
"""

import argparse
import contextlib
import glob
import io
import json
import math
import os
import subprocess
import sys
import tempfile
import warnings

import cv2
import numpy as np
from PIL import Image

import benchlib

DEFAULT_MEDIA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "media")
LARGE_JPEG_SIZES = [(1920, 1080), (1920, 1080), (4000, 3000), (4000, 3000)]


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--loom-bench", required=True, help="path of the loom_bench_image_decode program")
    p.add_argument("--media", default=DEFAULT_MEDIA, help="the shared media folder (default: %(default)s)")
    p.add_argument("--json", help="also write the results as JSON here (read by plot.py)")
    p.add_argument("--min-time", type=float, default=0.2, help="seconds of repetitions per file, tool and round")
    p.add_argument("--rounds", type=int, default=3, help="rounds per file; the best median of each tool counts")
    p.add_argument("--warmup", type=float, default=0.5, help="seconds of untimed decodes before timing")
    p.add_argument("--groups", default="jpeg,jpeg-large,png,png-large,other",
                   help="comma-separated groups to run (default: %(default)s)")
    return p.parse_args()


def list_inputs(media, tmp, groups):
    """[(group, path)] of the shared files and the generated large ones, for the groups asked for."""
    def shared(folder):
        return sorted(glob.glob(os.path.join(media, "images", folder, "*")))
    inputs = []
    if "jpeg" in groups:
        inputs += [("jpeg", p) for p in shared("jpeg")]
    if "jpeg-large" in groups:
        inputs += [("jpeg-large", p) for p in benchlib.write_test_jpegs(tmp, LARGE_JPEG_SIZES, quality=90)]
    if "png" in groups:
        inputs += [("png", p) for p in shared("png")]
    if "png-large" in groups:
        inputs.append(("png-large", benchlib.write_test_png(os.path.join(tmp, "gen_1920x1080.png"), 1920, 1080)))
    if "other" in groups:
        inputs += [("other", p) for p in shared("other")]
    return inputs


def pillow_decode(data):
    return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))


def opencv_decode(data):
    return cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)


@contextlib.contextmanager
def stderr_silenced():
    """Sends fd 2 to /dev/null: OpenCV's libpng prints a warning on every decode of some files."""
    sys.stderr.flush()
    saved, devnull = os.dup(2), os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    try:
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


def pillow_can_open(data):
    try:
        pillow_decode(data)
        return True
    except Exception:  # noqa: BLE001 -- any failure means "skip this file"
        return False


def loom_times(loom_bench, path, min_time, warmup):
    """The JSON line of loom_bench_image_decode for one file (has "error" when loom rejects it)."""
    out = subprocess.run([loom_bench, "--min-time", str(min_time), "--warmup", str(warmup), "--mode", "rgb", path],
                         capture_output=True, text=True, check=False)
    lines = out.stdout.strip().splitlines()
    if not lines:
        return {"file": path, "error": f"no output (exit {out.returncode}): {out.stderr.strip()}"}
    return json.loads(lines[-1])


def best_of_rounds(loom_bench, path, data, args, opencv_ok):
    """Per tool, the best (lowest) of `rounds` medians; the tools take turns within each round.

    loom starts a new process each round and warms up each time; the Python peers warm up in the
    first round only (this process keeps its state).
    """
    loom_hwc, loom_chw, pillow, opencv = [], [], [], []
    for r in range(args.rounds):
        warmup = args.warmup if r == 0 else 0.0
        loom = loom_times(loom_bench, path, args.min_time, args.warmup)
        loom_hwc.append(loom["hwc_s"])
        loom_chw.append(loom["chw_s"])
        pillow.append(benchlib.median_seconds(lambda: pillow_decode(data), args.min_time, warmup=warmup))
        if opencv_ok:
            with stderr_silenced():
                opencv.append(benchlib.median_seconds(lambda: opencv_decode(data), args.min_time, warmup=warmup))
    return {"loom_s": min(loom_hwc), "loom_chw_s": min(loom_chw), "pillow_s": min(pillow),
            "opencv_s": min(opencv) if opencv else None}


def bench_one(loom_bench, group, path, args):
    """Times one file with the three tools; returns a result dict, or a skip reason string."""
    with open(path, "rb") as f:
        data = f.read()
    if not pillow_can_open(data):
        return "Pillow cannot open it"
    first = loom_times(loom_bench, path, 0.0, 0.0)  # checks that loom takes it, and gives the size
    if "error" in first:
        return "loom rejects it: " + first["error"]
    result = {"group": group, "file": os.path.basename(path), "width": first["width"],
              "height": first["height"], "bytes": len(data)}
    with stderr_silenced():
        opencv_ok = opencv_decode(data) is not None
    result.update(best_of_rounds(loom_bench, path, data, args, opencv_ok))
    return result


def geomean(values):
    values = [v for v in values if v]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def summarize(results):
    """Per group: total times (sum over files) and the geometric mean of per-file ratios."""
    groups = {}
    for name in dict.fromkeys(r["group"] for r in results):
        rows = [r for r in results if r["group"] == name]
        both = [r for r in rows if r["opencv_s"] is not None]  # OpenCV totals over the files it decodes
        groups[name] = {
            "files": len(rows),
            "megapixels": sum(r["width"] * r["height"] for r in rows) / 1e6,
            "loom_s": sum(r["loom_s"] for r in rows),
            "loom_chw_s": sum(r["loom_chw_s"] for r in rows),
            "pillow_s": sum(r["pillow_s"] for r in rows),
            "opencv_s": sum(r["opencv_s"] for r in both),
            "loom_s_opencv_files": sum(r["loom_s"] for r in both),
            "pillow_over_loom_total": sum(r["pillow_s"] for r in rows) / sum(r["loom_s"] for r in rows),
            "opencv_over_loom_total": (sum(r["opencv_s"] for r in both) / sum(r["loom_s"] for r in both)) if both else None,
            "pillow_over_loom_geomean": geomean([r["pillow_s"] / r["loom_s"] for r in rows]),
            "opencv_over_loom_geomean": geomean([r["opencv_s"] / r["loom_s"] for r in both]),
            "chw_over_hwc_total": sum(r["loom_chw_s"] for r in rows) / sum(r["loom_s"] for r in rows),
        }
    return groups


def fmt_ratio(x):
    return "  n/a" if x is None else f"{x:5.2f}"


def fmt_ms(seconds):
    return "    n/a" if seconds is None else f"{seconds * 1e3:7.3f}"


def print_table(results, groups, skipped):
    print(f"{'group':<10} {'file':<44} {'size':>9} {'KiB':>6} {'loom':>7} {'loomCHW':>7} {'Pillow':>7} "
          f"{'OpenCV':>7} {'Pil/loom':>8} {'CV/loom':>7}")
    for r in results:
        cv_ratio = r["opencv_s"] / r["loom_s"] if r["opencv_s"] else None
        print(f"{r['group']:<10} {r['file'][:44]:<44} {str(r['width']) + 'x' + str(r['height']):>9} "
              f"{r['bytes'] / 1024:6.0f} {fmt_ms(r['loom_s'])} {fmt_ms(r['loom_chw_s'])} {fmt_ms(r['pillow_s'])} "
              f"{fmt_ms(r['opencv_s'])} {fmt_ratio(r['pillow_s'] / r['loom_s']):>8} {fmt_ratio(cv_ratio):>7}")
    print("(times in ms per decode, median; ratios > 1: loom faster)\n")
    print(f"{'group':<10} {'files':>5} {'MPix':>6} {'loom ms':>8} {'CHW ms':>8} {'Pillow ms':>9} {'OpenCV ms':>9} "
          f"{'Pil/loom':>8} {'CV/loom':>7} {'Pil/loom geo':>12} {'CV/loom geo':>11}")
    for name, g in groups.items():
        print(f"{name:<10} {g['files']:>5} {g['megapixels']:6.2f} {g['loom_s'] * 1e3:8.2f} {g['loom_chw_s'] * 1e3:8.2f} "
              f"{g['pillow_s'] * 1e3:9.2f} {g['opencv_s'] * 1e3:9.2f} {fmt_ratio(g['pillow_over_loom_total']):>8} "
              f"{fmt_ratio(g['opencv_over_loom_total']):>7} {fmt_ratio(g['pillow_over_loom_geomean']):>12} "
              f"{fmt_ratio(g['opencv_over_loom_geomean']):>11}")
    print("(totals: sum over the group's files of the per-decode medians; geo: geometric mean of per-file ratios)")
    for path, why in skipped:
        print(f"skipped {path}: {why}")


def main():
    args = parse_args()
    cv2.setNumThreads(1)
    warnings.simplefilter("ignore")  # Pillow's warnings about odd test files
    results, skipped = [], []
    with tempfile.TemporaryDirectory(prefix="loom-bench-decode-") as tmp:
        for group, path in list_inputs(args.media, tmp, set(args.groups.split(","))):
            outcome = bench_one(args.loom_bench, group, path, args)
            if isinstance(outcome, str):
                skipped.append((os.path.relpath(path, args.media) if group in ("jpeg", "png", "other") else path, outcome))
            else:
                results.append(outcome)
                print(f"  {group}/{outcome['file']}", file=sys.stderr)
    if not results:
        sys.exit("no file could be timed")
    groups = summarize(results)
    print_table(results, groups, skipped)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"machine": benchlib.machine_info(), "min_time": args.min_time, "rounds": args.rounds,
                       "warmup": args.warmup, "files": results,
                       "groups": groups, "skipped": [{"file": p, "why": w} for p, w in skipped]}, f, indent=1)


if __name__ == "__main__":
    main()
