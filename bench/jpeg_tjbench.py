#!/usr/bin/python3
"""Large JPEG decode: loom against libjpeg-turbo's own benchmark, tjbench, on the same files.

Run with Debian's Python (/usr/bin/python3; numpy and Pillow make the files) with tjbench on the path
(Debian's libjpeg-turbo-progs, the same libjpeg-turbo 2.1.5 that loom links):

    /usr/bin/python3 bench/jpeg_tjbench.py --loom-bench build/bench/loom_bench_image_decode \\
        [--rounds 3] [--seconds 2] [--json out.json]

Inputs: synthetic 1920x1080 and 4000x3000 JPEGs (benchlib.write_test_jpegs: a smooth pattern plus
noise, quality 90, 4:2:0), written to a temporary folder. Per file and round, one thread each:
  tjbench FILE -rgb -benchtime S -warmup 1: TurboJPEG's decompress into one RGB buffer reused by
          every call (accurate DCT and fancy upsampling, libjpeg's defaults, as loom); its frame rate
          is read from its report
  loom    loom_bench_image_decode --layout hwc: decode_image (a new tensor per call, from loom's
          tensor cache) and with --into decode_image_into one reused tensor; median of the calls
The tools take turns in each round; the best round of each counts. Ratio = tjbench ms / loom ms
(> 1: loom is faster).
"""
import argparse
import json
import re
import subprocess
import sys
import tempfile

import benchlib

SIZES = [(1920, 1080), (4000, 3000)]


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--loom-bench", required=True, help="path of the loom_bench_image_decode program")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--seconds", type=float, default=2.0, help="seconds of timed calls per tool and round")
    p.add_argument("--json", help="also write the results as JSON here")
    return p.parse_args()


def tjbench_ms(path, seconds):
    out = subprocess.run(["tjbench", path, "-rgb", "-benchtime", str(seconds), "-warmup", "1"],
                         capture_output=True, text=True, check=True).stdout
    fps = re.search(r"Decompress\s+--> Frame rate:\s+([0-9.]+) fps", out)
    if not fps:
        sys.exit(f"cannot read tjbench's report:\n{out}")
    return 1e3 / float(fps.group(1))


def loom_ms(bench, path, seconds, into):
    cmd = [bench, "--layout", "hwc", "--min-time", str(seconds), "--mode", "rgb", path] + (["--into"] if into else [])
    line = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.splitlines()[-1])
    return line["hwc_s"] * 1e3


def main():
    args = parse_args()
    results = []
    with tempfile.TemporaryDirectory(prefix="loom-bench-tj-") as tmp:
        for path, (w, h) in zip(benchlib.write_test_jpegs(tmp, SIZES, quality=90), SIZES):
            times = {"tjbench": [], "loom": [], "loom_into": []}
            for _ in range(args.rounds):
                times["tjbench"].append(tjbench_ms(path, args.seconds))
                times["loom"].append(loom_ms(args.loom_bench, path, args.seconds, into=False))
                times["loom_into"].append(loom_ms(args.loom_bench, path, args.seconds, into=True))
            best = {tool: min(t) for tool, t in times.items()}
            results.append({"size": f"{w}x{h}", **{f"{tool}_ms": ms for tool, ms in best.items()}})
    print(f"{'size':>10} {'tjbench ms':>10} {'loom ms':>8} {'into ms':>8} {'tj/loom':>8} {'tj/into':>8}")
    for r in results:
        print(f"{r['size']:>10} {r['tjbench_ms']:10.2f} {r['loom_ms']:8.2f} {r['loom_into_ms']:8.2f} "
              f"{r['tjbench_ms'] / r['loom_ms']:8.2f} {r['tjbench_ms'] / r['loom_into_ms']:8.2f}")
    print("(best of the rounds; ratios > 1: loom is faster)")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"machine": benchlib.machine_info(), "rounds": args.rounds, "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
