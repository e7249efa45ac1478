#!/usr/bin/python3
"""Video decode to RGB: loom vs the ffmpeg CLI vs PyAV, on the same files and thread counts, in the same run.

Run with Debian's Python: /usr/bin/python3 (python3-av 10) and the ffmpeg CLI (with libx264) on PATH.

    /usr/bin/python3 bench/video_decode.py --loom-bench build/bench/loom_bench_video_decode \
        [--media ../shared/media] [--threads 1 2] [--reps 3] [--json out.json]

Inputs: <media>/video/nasa_13013.mp4 (two h264 streams; the 480x270 one, 390 frames, B-frames, that loom
picks as the best stream, is the one every tool decodes) and a long-GOP file generated at set-up time into a temporary folder (deleted afterwards): 1280x720,
30 s at 30 fps (900 frames), libx264 -preset veryfast -crf 23, one keyframe every 300 frames (-g 300,
no scene-cut keyframes), B-frames.

Workloads, each timed from opening the file to the last frame (loom's exact-mode packet scan counts):
  sequential  every frame to uint8 RGB:
                loom    VideoDecoder (num_threads=T, NHWC), get_frames_in_range in batches of 8 frames
                ffmpeg  `ffmpeg -threads T -filter_threads T -i FILE -f rawvideo -pix_fmt rgb24 -` piped to
                        /dev/null (-filter_threads: the CLI's scale filter otherwise converts to RGB with one
                        slice thread per core, whatever -threads says)
                PyAV    codec_context.thread_count = T, frame.to_ndarray(format='rgb24') for every frame
  first100    TorchCodec's "first 100 frames": loom get_frames_in_range(0, 100); PyAV decodes the first
              100 frames with to_ndarray
  random10    TorchCodec's "10 random frames": 10 frame indices drawn with a fixed seed (sorted, the same
              for every tool): loom get_frames_at(indices) (exact index: each GOP decoded at most once);
              PyAV, per frame: container.seek(pts, backward=True, any_frame=False, stream=s) to the
              keyframe before it, then decode until the frame's pts, to_ndarray
The frame pts for PyAV come from one untimed demux pass (PyAV has no frame index of its own).
Each tool runs once untimed, then --reps times; the median counts. Ratios peer/loom: > 1 means loom is
faster. The same T (FFmpeg decoding threads) for every tool; PyAV uses thread_type = 'AUTO' (frame and
slice threads, as loom and the ffmpeg CLI do).
"""

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

import av

import benchlib

DEFAULT_MEDIA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "media")
SHARED_FILES = ["nasa_13013.mp4"]
SEED = 1234


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--loom-bench", required=True, help="path of the loom_bench_video_decode program")
    p.add_argument("--media", default=DEFAULT_MEDIA, help="the shared media folder (default: %(default)s)")
    p.add_argument("--threads", type=int, nargs="+", default=[1, 2], help="decoding thread counts")
    p.add_argument("--reps", type=int, default=3, help="timed repetitions per tool; the median counts")
    p.add_argument("--long-gop", help="use this file instead of generating the long-GOP video")
    p.add_argument("--json", help="also write the results as JSON here")
    return p.parse_args()


def frame_pts(path, stream):
    """pts of every frame of stream `stream`, in presentation order (one demux pass)."""
    with av.open(path) as c:
        s = c.streams[stream]
        return sorted(p.pts for p in c.demux(s) if p.pts is not None)


def median_of(fn, reps):
    fn()  # untimed
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def ffmpeg_sequential(path, stream, threads):
    with open(os.devnull, "wb") as null:
        subprocess.run(["ffmpeg", "-v", "error", "-nostdin", "-threads", str(threads), "-filter_threads", str(threads), "-i", path, "-map", f"0:{stream}",
                        "-f", "rawvideo", "-pix_fmt", "rgb24", "-"], stdout=null, check=True)


def pyav_open(path, stream, threads):
    c = av.open(path)
    s = c.streams[stream]
    s.thread_type = "AUTO"
    s.codec_context.thread_count = threads
    return c, s


def pyav_first(path, stream, threads, limit=None):
    c, s = pyav_open(path, stream, threads)
    n = 0
    with c:
        for frame in c.decode(s):
            frame.to_ndarray(format="rgb24")
            n += 1
            if limit is not None and n == limit:
                break
    return n


def pyav_random(path, stream, threads, pts_list):
    c, s = pyav_open(path, stream, threads)
    with c:
        for pts in pts_list:
            c.seek(pts, backward=True, any_frame=False, stream=s)
            for frame in c.decode(s):
                if frame.pts >= pts:
                    frame.to_ndarray(format="rgb24")
                    break


def loom_run(bench, workload, path, threads, reps, indices=None):
    """The JSON line of loom_bench_video_decode (ms, stream, frames)."""
    cmd = [bench, "--workload", workload, "--threads", str(threads), "--reps", str(reps)]
    if indices is not None:
        cmd += ["--indices", ",".join(map(str, indices))]
    out = subprocess.run(cmd + [path], capture_output=True, text=True, check=False)
    lines = out.stdout.strip().splitlines()
    if not lines:
        raise RuntimeError(f"loom_bench_video_decode: no output (exit {out.returncode}): {out.stderr.strip()}")
    r = json.loads(lines[-1])
    if "error" in r:
        raise RuntimeError(f"loom_bench_video_decode: {r['error']}")
    return r


def main():
    args = parse_args()
    results = {"machine": benchlib.machine_info(), "pyav": av.__version__, "rows": []}
    with tempfile.TemporaryDirectory(prefix="loom-video-bench-") as tmp:
        files = [os.path.join(args.media, "video", f) for f in SHARED_FILES]
        files = [f for f in files if os.path.exists(f)]
        files.append(args.long_gop or benchlib.make_long_gop(tmp))
        rng = random.Random(SEED)
        print(f"{'workload':<11} {'file':<24} {'T':>2} {'frames':>6} {'loom ms':>9} {'ffmpeg ms':>10} "
              f"{'PyAV ms':>9} {'ffmpeg/loom':>11} {'PyAV/loom':>9}")
        for path in files:
            stream = loom_run(args.loom_bench, "random", path, 1, 1, [0])["stream"]
            pts = frame_pts(path, stream)
            n = len(pts)
            indices = sorted(rng.sample(range(n), 10))
            for threads in args.threads:
                for workload in ("sequential", "first100", "random10"):
                    loom_workload = "random" if workload == "random10" else workload
                    r = loom_run(args.loom_bench, loom_workload, path, threads, args.reps,
                                 indices if workload == "random10" else None)
                    loom = r["ms"] / 1e3
                    ffmpeg = None
                    if workload == "sequential":
                        ffmpeg = median_of(lambda: ffmpeg_sequential(path, stream, threads), args.reps)
                        pyav = median_of(lambda: pyav_first(path, stream, threads), args.reps)
                        frames = n
                        if r["frames"] != n:
                            raise RuntimeError(f"{path}: loom decoded {r['frames']} frames, PyAV's demuxer found {n}")
                    elif workload == "first100":
                        pyav = median_of(lambda: pyav_first(path, stream, threads, 100), args.reps)
                        frames = min(n, 100)
                    else:
                        pyav = median_of(lambda: pyav_random(path, stream, threads, [pts[i] for i in indices]), args.reps)
                        frames = len(indices)
                    row = {"workload": workload, "file": os.path.basename(path), "threads": threads,
                           "frames": frames, "loom_ms": loom * 1e3, "pyav_ms": pyav * 1e3,
                           "ffmpeg_ms": None if ffmpeg is None else ffmpeg * 1e3,
                           "pyav_over_loom": pyav / loom,
                           "ffmpeg_over_loom": None if ffmpeg is None else ffmpeg / loom}
                    if workload == "random10":
                        row["indices"] = indices
                    results["rows"].append(row)
                    ff = f"{ffmpeg * 1e3:10.1f}" if ffmpeg is not None else f"{'-':>10}"
                    ffr = f"{ffmpeg / loom:11.2f}" if ffmpeg is not None else f"{'-':>11}"
                    print(f"{workload:<11} {os.path.basename(path)[:24]:<24} {threads:>2} {frames:>6} "
                          f"{loom * 1e3:9.1f} {ff} {pyav * 1e3:9.1f} {ffr} {pyav / loom:9.2f}", flush=True)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
