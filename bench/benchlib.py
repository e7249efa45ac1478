"""Shared helpers of the loom benchmark scripts (image_decode.py, convert_resize.py, plot.py).

Needs Debian's Python and packages: /usr/bin/python3 with python3-numpy and python3-pil.

- timing: median_seconds() warms up, then repeats a call until the repetitions take at least
  `min_time` seconds (at least 5 runs) and returns the median of one call, as the C++ bench
  loom_bench_image_decode does;
- test images: synthetic_rgb() makes a smooth pattern plus noise (photo-like for a JPEG encoder:
  smooth areas and fine texture), write_test_jpegs() saves such images at set-up time into a
  temporary folder. Generated media are never committed;
- make_long_gop(): the long-GOP 720p H.264 video of the video benchmarks (video_decode.py,
  newest_peers.py);
- machine_info(): CPU model, cores, AVX-512, date and library versions, stored with every result;
- loom_bench_args() and run_loom_bench_on_image(): the command line and the C++ bench run shared by
  the scripts that time one loom_bench_* program on synthetic images (resize.py, geometry.py,
  noise_normalize.py).
"""

import argparse
import datetime
import json
import math
import os
import platform
import subprocess
import tempfile
import time

import numpy as np
from PIL import Image, features


def median_seconds(fn, min_time=0.2, min_reps=5, warmup=0.0):
    """Median wall time of one fn() call, over enough calls to fill min_time seconds.

    Untimed calls come first for `warmup` seconds (at least two calls), as in loom_bench_image_decode.
    """
    spent, calls = 0.0, 0
    while calls < 2 or spent < warmup:
        t0 = time.perf_counter()
        fn()
        spent += time.perf_counter() - t0
        calls += 1
    t0 = time.perf_counter()
    fn()
    estimate = max(time.perf_counter() - t0, 1e-7)
    reps = int(min(max(math.ceil(min_time / estimate), min_reps), 100000))
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    times.sort()
    mid = len(times) // 2
    return times[mid] if len(times) % 2 else 0.5 * (times[mid - 1] + times[mid])


def synthetic_rgb(width, height, seed=0, noise_sigma=6.0):
    """H x W x 3 uint8: smooth color gradients and waves plus Gaussian noise (deterministic)."""
    rng = np.random.default_rng(seed)
    x = (np.arange(width, dtype=np.float32) / width)[None, :]  # 1 x W, broadcast against H x 1
    y = (np.arange(height, dtype=np.float32) / height)[:, None]
    phase = rng.uniform(0, 2 * np.pi, size=3)
    img = np.empty((height, width, 3), dtype=np.float32)
    for c in range(3):
        wave = np.sin(2 * np.pi * (3 + c) * x + phase[c]) * np.cos(2 * np.pi * (2 + c) * y)
        ramp = (x if c != 1 else y) * 120.0
        img[:, :, c] = 60.0 + ramp + 60.0 * wave
    img += noise_sigma * rng.standard_normal(size=img.shape, dtype=np.float32)
    return np.clip(img, 0, 255).astype(np.uint8)


def write_test_jpegs(folder, sizes, quality=90, prefix="gen"):
    """Saves one synthetic JPEG per (width, height) in `sizes` into `folder`; returns the paths."""
    os.makedirs(folder, exist_ok=True)
    paths = []
    for i, (w, h) in enumerate(sizes):
        path = os.path.join(folder, f"{prefix}_{i:02d}_{w}x{h}.jpg")
        Image.fromarray(synthetic_rgb(w, h, seed=i)).save(path, quality=quality)
        paths.append(path)
    return paths


def write_test_png(path, width, height, seed=0):
    """Saves one synthetic RGB PNG (zlib level 6, Pillow's default) and returns its path."""
    Image.fromarray(synthetic_rgb(width, height, seed=seed, noise_sigma=2.0)).save(path)
    return path


def _run(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, check=False).stdout
    except OSError:
        return ""


def _cpu_model():
    for line in _run(["lscpu"]).splitlines():
        if line.startswith("Model name:"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def _cpu_flags():
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def make_long_gop(folder):
    """A 1280x720 30 s H.264 video at 30 fps (900 frames) with one keyframe every 300 frames and B-frames
    (libx264 veryfast, crf 23), written into `folder` by the ffmpeg CLI; returns its path."""
    path = os.path.join(folder, "long_gop_720p_30s.mp4")
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30", "-t", "30",
                    "-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-g", "300", "-keyint_min", "300",
                    "-sc_threshold", "0", "-pix_fmt", "yuv420p", path], check=True)
    return path


def machine_info():
    """What a result needs to be read later: machine, date and library versions."""
    import cv2  # local: plot.py and convert_resize.py do not need OpenCV

    flags = _cpu_flags()
    return {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "avx2": "avx2" in flags,
        "avx512": sorted(f for f in flags if f.startswith("avx512")),
        "kernel": platform.release(),
        "python": platform.python_version(),
        "pillow": Image.__version__,
        "pillow_libjpeg_turbo": features.check_feature("libjpeg_turbo"),
        "pillow_zlib": features.version("zlib"),
        "opencv": cv2.__version__,
        "numpy": np.__version__,
        "torch": _version_of("torch"),
    }


def _version_of(module):
    """The version of an importable module, or None; imported only when a benchmark already did."""
    import sys

    return getattr(sys.modules.get(module), "__version__", None)


def loom_bench_args(description, program):
    """Parses --loom-bench (the path of `program`, required) and --json (optional output path)."""
    p = argparse.ArgumentParser(description=description.split("\n")[0])
    p.add_argument("--loom-bench", required=True, help=f"path of {program}")
    p.add_argument("--json", help="also write the results as JSON here")
    return p.parse_args()


def run_loom_bench_on_image(bench, image, *extra):
    """Runs `bench RAW W H *extra` on `image` (H x W x 3 uint8, saved raw to a temporary file) and
    returns its output lines, one JSON object each, as dicts."""
    with tempfile.NamedTemporaryFile(suffix=".rgb") as raw:
        raw.write(image.tobytes())
        raw.flush()
        h, w, _ = image.shape
        out = subprocess.run([bench, raw.name, str(w), str(h), *extra], capture_output=True, text=True,
                             check=True).stdout
    return [json.loads(line) for line in out.splitlines()]
