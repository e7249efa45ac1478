#!/usr/bin/python3
"""`loom convert --resize 256` vs Pillow doing the same job, one thread, on large JPEGs.

Run with Debian's Python: /usr/bin/python3 (python3-pil 9.4, python3-numpy).

    /usr/bin/python3 bench/convert_resize.py --loom build/cli/loom [--count 24] [--rounds 3] \
        [--json out.json]

Set-up: --count synthetic JPEGs (smooth pattern plus noise, quality 90, 4:2:0) in a temporary
folder, a third each 4000x3000, 3000x2000 and 1920x1080; deleted afterwards.

The job, per file: decode, resize so that the shorter side is 256 (torchvision's rule: the longer
side becomes int(256 * long / short)) with an antialiased bilinear filter, encode JPEG quality 75
(4:2:0), write. Timed as wall time of the whole folder:
  loom             loom convert DIR -o OUT --resize 256 --format jpg -j 1 -q --overwrite
                   (decodes with libjpeg DCT scaling to the smallest M/8 size that covers the target)
  Pillow draft     Image.open; im.draft('RGB', target) (libjpeg DCT scaling 1/2, 1/4 or 1/8 to the
                   smallest size that covers the target); im.convert('RGB').resize(target,
                   Image.BILINEAR); save(quality=75) -- a single-thread Python loop
  Pillow draft process  the same loop as a command (`python3 convert_resize.py --pillow-job SRC OUT`):
                   like loom's, its time includes starting the interpreter and importing Pillow
  Pillow no draft  the same without draft(): full-size decode, for context
  loom all cores   loom convert with -j 0 (every core), for context
loom's time includes starting the process; its start-up alone (best of 5 `loom version`, which loads the
commands library as every command does) is
printed too, with the ratio it leaves. The Pillow loop runs inside this already started Python.
They take turns --rounds times (default 3); the best wall time of each counts. The CPU time (user +
system, of this process and of the loom child) is printed beside it as a cross-check that is less
sensitive to other load on the machine; it leaves out time spent waiting (loom fsyncs every output
file, Pillow does not). The ratios are time ratios: > 1 means loom is faster.
The outputs are checked: same sizes, and the mean absolute difference between loom's and Pillow
draft's pixels is printed (both use libjpeg-turbo and Pillow's resampling arithmetic: expect ~0).
"""

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
from PIL import Image

import benchlib

SIZES = [(4000, 3000), (3000, 2000), (1920, 1080)]


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--loom", help="path of the loom CLI (required unless --pillow-job)")
    p.add_argument("--pillow-job", nargs=2, metavar=("SRC", "OUT"),
                   help="internal: run the Pillow draft job on SRC into OUT and exit (the 'Pillow draft "
                        "process' way, timed like a command)")
    p.add_argument("--count", type=int, default=24, help="number of generated JPEGs (default: %(default)s)")
    p.add_argument("--rounds", type=int, default=3, help="rounds; the best time of each way counts")
    p.add_argument("--json", help="also write the results as JSON here (read by plot.py)")
    args = p.parse_args()
    if not args.pillow_job and not args.loom:
        p.error("--loom is required")
    return args


def target_size(width, height, shorter=256):
    """torchvision Resize(shorter) with one number: (width, height) of the output."""
    if width <= height:
        return shorter, int(shorter * height / width)
    return int(shorter * width / height), shorter


def run_loom(loom, src_dir, out_dir, jobs=1):
    subprocess.run([loom, "convert", src_dir, "-o", out_dir, "--resize", "256", "--format", "jpg",
                    "-j", str(jobs), "-q", "--overwrite"], check=True)


def loom_startup_seconds(loom, runs=5):
    """Best wall time of `loom version`: process start, loading the commands library (dynamic linking),
    static initializers."""
    return min(wall_seconds(lambda: subprocess.run([loom, "version"], capture_output=True, check=True))
               for _ in range(runs))


def pillow_convert_one(path, out_path, draft):
    with Image.open(path) as im:
        target = target_size(*im.size)
        if draft:
            im.draft("RGB", target)
        im.convert("RGB").resize(target, Image.BILINEAR).save(out_path, quality=75)


def run_pillow(paths, out_dir, draft):
    for path in paths:
        out_path = os.path.join(out_dir, os.path.splitext(os.path.basename(path))[0] + ".jpg")
        pillow_convert_one(path, out_path, draft)


def run_pillow_process(src_dir, out_dir):
    """The Pillow draft job as a command, like `loom convert`: interpreter start and imports count."""
    subprocess.run([sys.executable, os.path.abspath(__file__), "--pillow-job", src_dir, out_dir], check=True)


def wall_seconds(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def _children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def wall_and_cpu_seconds(fn):
    """(wall, cpu) seconds of fn(); cpu counts this process plus the child processes it waited for."""
    c0, k0, t0 = time.process_time(), _children_cpu(), time.perf_counter()
    fn()
    wall = time.perf_counter() - t0
    return wall, (time.process_time() - c0) + (_children_cpu() - k0)


def compare_outputs(paths, loom_dir, pillow_dir):
    """Checks that both wrote every file at the same size; returns the mean |loom - Pillow| pixel."""
    diffs = []
    for path in paths:
        name = os.path.splitext(os.path.basename(path))[0] + ".jpg"
        with Image.open(path) as src, Image.open(os.path.join(loom_dir, name)) as a, \
                Image.open(os.path.join(pillow_dir, name)) as b:
            expected = target_size(*src.size)
            if a.size != expected or b.size != expected:
                sys.exit(f"{name}: sizes differ: loom {a.size}, Pillow {b.size}, expected {expected}")
            diffs.append(np.abs(np.asarray(a, np.int16) - np.asarray(b, np.int16)).mean())
    return float(np.mean(diffs))


def main():
    args = parse_args()
    with tempfile.TemporaryDirectory(prefix="loom-bench-convert-") as tmp:
        src = os.path.join(tmp, "src")
        sizes = [SIZES[i % len(SIZES)] for i in range(args.count)]
        paths = benchlib.write_test_jpegs(src, sizes, quality=90)
        megapixels = sum(w * h for w, h in sizes) / 1e6
        megabytes = sum(os.path.getsize(p) for p in paths) / 1e6
        outs = {name: os.path.join(tmp, name)
                for name in ("loom", "pillow_draft", "pillow_draft_proc", "pillow_nodraft", "loom_all_cores")}
        for d in outs.values():
            os.makedirs(d)
        jobs = {
            "loom": lambda: run_loom(args.loom, src, outs["loom"]),
            "pillow_draft": lambda: run_pillow(paths, outs["pillow_draft"], draft=True),
            "pillow_draft_proc": lambda: run_pillow_process(src, outs["pillow_draft_proc"]),
            "pillow_nodraft": lambda: run_pillow(paths, outs["pillow_nodraft"], draft=False),
            "loom_all_cores": lambda: run_loom(args.loom, src, outs["loom_all_cores"], jobs=0),
        }
        times = {name: [] for name in jobs}
        cpu = {name: [] for name in jobs}
        for r in range(args.rounds):
            for name, job in jobs.items():
                wall, cpu_s = wall_and_cpu_seconds(job)
                times[name].append(wall)
                cpu[name].append(cpu_s)
            print(f"  round {r + 1}: " + ", ".join(f"{n} {t[-1]:.3f} s" for n, t in times.items()), file=sys.stderr)
        startup = loom_startup_seconds(args.loom)
        mean_abs_diff = compare_outputs(paths, outs["loom"], outs["pillow_draft"])
        shutil.rmtree(src)

    best = {name: min(t) for name, t in times.items()}
    best_cpu = {name: min(t) for name, t in cpu.items()}
    result = {
        "files": args.count, "sizes": [f"{w}x{h}" for w, h in SIZES], "megapixels": megapixels,
        "megabytes": megabytes, "rounds": args.rounds, "times_s": times, "best_s": best,
        "cpu_s": cpu, "best_cpu_s": best_cpu,
        "pillow_draft_over_loom": best["pillow_draft"] / best["loom"],
        "pillow_draft_process_over_loom": best["pillow_draft_proc"] / best["loom"],
        "pillow_nodraft_over_loom": best["pillow_nodraft"] / best["loom"],
        "pillow_draft_over_loom_cpu": best_cpu["pillow_draft"] / best_cpu["loom"],
        "loom_startup_s": startup,
        "pillow_draft_over_loom_without_startup": best["pillow_draft"] / (best["loom"] - startup),
        "mean_abs_diff_loom_vs_pillow_draft": mean_abs_diff,
    }
    print(f"{args.count} JPEGs ({megapixels:.1f} Mpix, {megabytes:.1f} MB) -> shorter side 256, JPEG q75, one thread")
    print(f"{'way':<16} {'best s':>8} {'ms/image':>9} {'images/s':>9} {'time / loom':>11} {'CPU s':>7} {'CPU / loom':>10}")
    for name, t in best.items():
        c = best_cpu[name]
        print(f"{name:<16} {t:8.3f} {t / args.count * 1e3:9.1f} {args.count / t:9.1f} {t / best['loom']:11.2f} "
              f"{c:7.3f} {c / best_cpu['loom']:10.2f}")
    print(f"loom start-up (best `loom --version`): {startup * 1e3:.1f} ms; without it loom takes "
          f"{(best['loom'] - startup):.3f} s, Pillow draft / loom = {result['pillow_draft_over_loom_without_startup']:.2f}")
    print(f"mean |loom - Pillow draft| per pixel and channel: {mean_abs_diff:.3f} (0..255)")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"machine": benchlib.machine_info(), "convert": result}, f, indent=1)


def pillow_job(src_dir, out_dir):
    paths = sorted(os.path.join(src_dir, f) for f in os.listdir(src_dir))
    run_pillow(paths, out_dir, draft=True)


if __name__ == "__main__":
    if "--pillow-job" in sys.argv:
        pillow_job(*parse_args().pillow_job)
    else:
        main()
