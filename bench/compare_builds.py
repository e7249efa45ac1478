"""Two loom builds side by side, in one sitting: did a change that should not change speed keep it?

    /usr/bin/python3 bench/compare_builds.py BEFORE_BUILD AFTER_BUILD [--media DIR] [--rounds N] [--plot PNG]

Runs the C++ benchmarks of both build trees (bench/loom_bench_image_decode, loom_bench_resize,
loom_bench_video_decode, loom_bench_audio_load) and `loom convert` of large JPEGs on the same inputs, alternating BEFORE and AFTER for N
rounds (default 3) so that machine noise hits both alike, and prints one Markdown table: the median
over rounds of each build's time and after/before (1.00 = same; below 1 = AFTER is faster). --plot
writes the ratios as a bar chart (python3-matplotlib). Inputs:
JPEG/PNG files of ../shared/media (or --media), a 1920x1080 photo-like JPEG and PNG, a 1280x720 and a
1920x1080 H.264 clip and a 60 s stereo WAV made here with Pillow, ffmpeg and numpy. Needs Debian's
/usr/bin/python3 (python3-pil, python3-numpy) and the ffmpeg CLI. Takes a few minutes; keep the
machine quiet.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import wave

import numpy as np
from PIL import Image


def parse_args():
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("before")
    p.add_argument("after")
    p.add_argument("--media", default=os.path.join(here, "..", "..", "shared", "media"))
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--plot", help="write the after/before ratios as a PNG bar chart here")
    return p.parse_args()


def plot(path, labels, ratios):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 0.28 * len(labels) + 1.2))
    y = range(len(labels))
    ax.barh(y, ratios, color=["tab:green" if r <= 1.05 else "tab:red" for r in ratios])
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_yticks(list(y), labels, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("after / before time (below 1: after is faster)")
    ax.set_title("Same benchmarks, two builds, one sitting")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def make_inputs(media, tmp):
    photo = Image.open(os.path.join(media, "images", "jpeg", "flower.jpg")).convert("RGB")
    big = photo.resize((1920, 1080), Image.BICUBIC)
    inputs = {"jpeg": [os.path.join(media, "images", "jpeg", n) for n in ("flower.jpg", "hopper.jpg")],
              "png": []}
    big.save(os.path.join(tmp, "photo_1080p.jpg"), quality=90)
    big.save(os.path.join(tmp, "photo_1080p.png"))
    inputs["jpeg"].append(os.path.join(tmp, "photo_1080p.jpg"))
    inputs["png"].append(os.path.join(tmp, "photo_1080p.png"))
    raw = os.path.join(tmp, "photo_1080p.rgb")
    np.asarray(big, dtype=np.uint8).tofile(raw)
    inputs["raw"] = (raw, 1920, 1080)
    inputs["video"] = [os.path.join(media, "video", "nasa_13013.mp4")]
    for w, h, seconds in ((1280, 720, 10), (1920, 1080, 5)):
        clip = os.path.join(tmp, f"clip_{h}p.mp4")
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"testsrc2=size={w}x{h}:rate=30",
                        "-t", str(seconds), "-c:v", "libx264", "-pix_fmt", "yuv420p", "-g", "60", clip], check=True)
        inputs["video"].append(clip)
    wav = os.path.join(tmp, "stereo_60s.wav")
    t = np.arange(48000 * 60) / 48000.0
    pcm = (np.stack([np.sin(2 * np.pi * 440 * t), np.sin(2 * np.pi * 660 * t)], axis=1) * 20000).astype("<i2")
    with wave.open(wav, "wb") as w:
        w.setnchannels(2)
        w.setsampwidth(2)
        w.setframerate(48000)
        w.writeframes(pcm.tobytes())
    inputs["audio"] = [wav]
    # `loom convert` from files: four 4000x3000 JPEGs of about 4 MB (files are read, not mapped, since
    # issue 15: this is where that shows).
    folder = os.path.join(tmp, "convert_in")
    os.makedirs(folder)
    large = photo.resize((4000, 3000), Image.BICUBIC)
    for i in range(4):
        large.save(os.path.join(folder, f"{i}.jpg"), quality=95)
    inputs["convert"] = folder
    return inputs


def json_lines(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def measure(build, inputs):
    """{(group, case): milliseconds} for one run of every benchmark of `build`."""
    bench = os.path.join(build, "bench")
    times = {}
    for rec in json_lines([os.path.join(bench, "loom_bench_image_decode"), *inputs["jpeg"], *inputs["png"]]):
        name = os.path.basename(rec["file"])
        times[("image decode HWC", name)] = rec["hwc_s"] * 1e3
        times[("image decode CHW", name)] = rec["chw_s"] * 1e3
    raw, w, h = inputs["raw"]
    for rec in json_lines([os.path.join(bench, "loom_bench_resize"), raw, str(w), str(h), "224x224", "512x288"]):
        if rec.get("target") in ("AVX3", "AVX2") or rec.get("dtype") == "float32":
            label = rec.get("target") or "float32 CHW"
            times[(f"resize {label}", f"{rec['in']} -> {rec['out']}")] = rec["ms"]
    for workload in ("sequential", "random"):
        for rec in json_lines([os.path.join(bench, "loom_bench_video_decode"), "--workload", workload, "--reps", "3",
                               *inputs["video"]]):
            times[(f"video {workload} NHWC", os.path.basename(rec["file"]))] = rec["ms"]
    for rec in json_lines([os.path.join(bench, "loom_bench_audio_load"), *inputs["audio"]]):
        times[("audio load float32 [C, N]", os.path.basename(rec["file"]))] = rec["ms"]
    for case, extra in (("convert -j 1, ms per image", ["--format", "jpg"]),
                        ("convert -j 1 --resize 256, ms per image", ["--format", "jpg", "--resize", "256"])):
        with tempfile.TemporaryDirectory() as out:
            start = time.perf_counter()
            subprocess.run([os.path.join(build, "cli", "loom"), "convert", inputs["convert"], "-o", out, "-j", "1",
                            "-q", *extra], check=True)
            times[(case, "4000x3000 JPEG")] = (time.perf_counter() - start) * 1e3 / 4
    return times


def main():
    args = parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        inputs = make_inputs(args.media, tmp)
        runs = {"before": [], "after": []}
        for r in range(args.rounds):
            for which in ("before", "after"):
                print(f"round {r + 1}/{args.rounds}: {which}", file=sys.stderr)
                runs[which].append(measure(getattr(args, which), inputs))
    keys = [k for k in runs["before"][0] if all(k in m for m in runs["before"] + runs["after"])]
    print("| benchmark | input | before ms | after ms | after/before |")
    print("|---|---|---:|---:|---:|")
    ratios = []
    for key in keys:
        b = statistics.median(m[key] for m in runs["before"])
        a = statistics.median(m[key] for m in runs["after"])
        ratios.append(a / b)
        print(f"| {key[0]} | {key[1]} | {b:.3f} | {a:.3f} | {a / b:.2f} |")
    geo = float(np.exp(np.mean(np.log(ratios))))
    print(f"\n{len(keys)} cases, geometric mean after/before {geo:.3f}")
    if args.plot:
        plot(args.plot, [f"{k[0]}: {k[1]}" for k in keys], ratios)


if __name__ == "__main__":
    main()
