"""loom's Python API against the newest PyPI peers in one process: WAV load and resampling against
TorchCodec, python-soxr and torchaudio, video decode in both seek modes against TorchCodec (and PyAV).

Benchmarks only (CI never runs it). The peers are not packaged by Debian: run it with the benchmark
venv's Python (bench/setup_loader_peers.sh makes it), with the build tree's loom on the path:

    PYTHONPATH=build/python /tmp/bench-venv/bin/python bench/newest_peers.py \\
        [--media /work/shared/media] [--long-gop FILE] [--rounds 5] [--json out.json] [--plot out.png] \\
        [--workloads wav,resample,video]

Workloads, one thread (num_ffmpeg_threads=1 for both video decoders), the same files for both:
  wav         loom.audio.load(path) vs torchcodec.decoders.WavDecoder(path).get_all_samples(): 60 s of
              44.1 kHz stereo s16, s24 and float32 (sox, made at set-up), float32 [channels, frames];
              the samples are checked equal first. TorchCodec's tensor is a strided view of the
              interleaved samples (strides (1, channels)), loom's is contiguous: "torchcodec
              contiguous" adds .contiguous(), the same result as loom's.
  resample    the s16 file's samples 44.1 -> 16 kHz: loom.audio.resample (libsoxr, quality 'high') vs
              soxr.resample(x, 44100, 16000, 'HQ') (python-soxr: the same values, checked) and
              torchaudio.functional.resample (its own windowed sinc; torch.set_num_threads(1)); and
              loom.audio.resample(engine='sinc') (torchaudio's filter: its values within 3e-5, checked)
              vs torchaudio.functional.resample, the same work.
  sequential  every frame, NCHW uint8, in batches of 8 (get_frames_in_range) from a fresh decoder.
  random10    get_frames_at(10 sorted indices drawn with a fixed seed) from a fresh decoder.
Video files: shared/media/video/nasa_13013.mp4 (480x270, 390 frames, B-frames); made at set-up, a 1280x720
30 s long-GOP H.264 file (-g 300, B-frames) and a 1920x1080 5 s H.264 file (B-frames); in "exact" and
"approximate" seek mode; exact-mode sequential also against PyAV (the same stream, thread_count 1,
to_ndarray('rgb24') per frame; PyAV's wheel bundles its own, newer FFmpeg). Every time is the best of
--rounds rounds (each round's time the median of its runs), the libraries alternating within each
round; ratio = peer / loom (> 1: loom is faster).
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time

import av
import numpy as np
import soxr
import torch
import torchaudio
import torchcodec
from torchcodec.decoders import VideoDecoder as TcVideoDecoder
from torchcodec.decoders import WavDecoder

import loom
import loom.audio
import loom.decoders

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402


def make_wavs(folder):
    paths = {}
    for name, args in {"s16": ["-b", "16"], "s24": ["-b", "24"], "f32": ["-e", "floating-point", "-b", "32"]}.items():
        path = os.path.join(folder, f"stereo_60s_{name}.wav")
        subprocess.run(["sox", "-n", "-r", "44100", "-c", "2", *args, path, "synth", "60", "sine", "440", "pinknoise",
                        "vol", "0.5"], check=True)
        paths[f"wav {name} 60 s stereo"] = path
    return paths


def alternate(calls, rounds):
    """Best round's seconds of each named call (a round's time: the median of its runs), the calls taking
    turns within every round: on a shared machine a round that another tenant slowed counts for no one."""
    times = {name: [] for name in calls}
    for r in range(rounds):
        order = list(calls) if r % 2 == 0 else list(reversed(calls))
        for name in order:
            times[name].append(benchlib.median_seconds(calls[name], min_time=0.3, warmup=0.05))
    return {name: min(t) for name, t in times.items()}


def make_1080p(folder):
    """A 1920x1080 5 s H.264 video at 30 fps (150 frames, B-frames, libx264 veryfast crf 20)."""
    path = os.path.join(folder, "h264_1080p_5s.mp4")
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30", "-t", "5",
                    "-c:v", "libx264", "-preset", "veryfast", "-crf", "20", "-pix_fmt", "yuv420p", path], check=True)
    return path


def pyav_sequential(path):
    with av.open(path) as container:
        # The stream loom and TorchCodec decode (av_find_best_stream): nasa_13013.mp4's first video
        # stream is a 320x180 one, its best the 480x270 one.
        stream = container.streams.best("video")
        stream.thread_count = 1
        for frame in container.decode(stream):
            frame.to_ndarray(format="rgb24")


def video_calls(path, mode, workload, indices):
    def loom_call():
        d = loom.decoders.VideoDecoder(path, seek_mode=mode)
        if workload == "random10":
            return d.get_frames_at(indices)
        for start in range(0, len(d), 8):
            d.get_frames_in_range(start, min(start + 8, len(d)))

    def torchcodec_call():
        d = TcVideoDecoder(path, seek_mode=mode, num_ffmpeg_threads=1)
        if workload == "random10":
            return d.get_frames_at(indices)
        n = d.metadata.num_frames
        for start in range(0, n, 8):
            d.get_frames_in_range(start, min(start + 8, n))

    calls = {"loom": loom_call, "torchcodec": torchcodec_call}
    if workload == "sequential" and mode == "exact":
        calls["pyav"] = lambda: pyav_sequential(path)
    return calls


def plot(rows, info, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels, ratios, colors = [], [], []
    palette = {"torchcodec": "#d62728", "torchcodec contiguous": "#8c564b", "pyav": "#9467bd",
               "python-soxr": "#2ca02c", "torchaudio": "#ff7f0e"}
    for r in rows:
        for peer in [k for k in r if k not in ("workload", "file", "mode", "loom")]:
            mode = "" if r["mode"] == "-" else f", {r['mode']}"
            labels.append(f"{r['workload']}: {r['file']}{mode} vs {peer}")
            ratios.append(r[peer] / r["loom"])
            colors.append(palette.get(peer, "gray"))
    fig, ax = plt.subplots(figsize=(9, 0.32 * len(labels) + 1.2))
    ax.barh(range(len(labels)), ratios, color=colors)
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_yticks(range(len(labels)), labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("peer time / loom time (> 1: loom is faster)")
    ax.set_title(f"loom vs the newest peers, one thread\n{info['cpu']}, {info['date']}", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--media", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "media"))
    p.add_argument("--long-gop", help="the long-GOP video (default: made in a temporary folder)")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--json")
    p.add_argument("--plot", help="a PNG of the ratios (docs/performance_peers.png)")
    p.add_argument("--workloads", default="wav,resample,video",
                   help="comma-separated groups to run (default: %(default)s)")
    args = p.parse_args()
    groups = set(args.workloads.split(","))
    torch.set_num_threads(1)
    loom.set_output_type("torch")
    rows = []
    info = {"date": time.strftime("%Y-%m-%d %H:%M %Z"), "cpu": benchlib._cpu_model(),
            "avx512": any(f.startswith("avx512") for f in benchlib._cpu_flags()), "torch": torch.__version__,
            "torchcodec": torchcodec.__version__, "load": os.getloadavg()[0]}
    print(json.dumps(info))
    with tempfile.TemporaryDirectory() as tmp:
        wavs = make_wavs(tmp)
        for name, path in wavs.items() if "wav" in groups else ():
            a, _ = loom.audio.load(path)
            b = WavDecoder(path).get_all_samples().data
            assert torch.equal(a, b), f"{name}: loom and TorchCodec disagree"
            t = alternate({"loom": lambda: loom.audio.load(path),
                           "torchcodec": lambda: WavDecoder(path).get_all_samples(),
                           "torchcodec contiguous": lambda: WavDecoder(path).get_all_samples().data.contiguous()},
                          args.rounds)
            rows.append({"workload": "wav", "file": name, "mode": "-", **t})
            print(json.dumps(rows[-1]), flush=True)
        if "resample" in groups:
            x, rate = loom.audio.load(wavs["wav s16 60 s stereo"])
            xt = np.ascontiguousarray(x.numpy().T)  # python-soxr takes [frames, channels]
            assert np.array_equal(loom.audio.resample(x, rate, 16000).numpy(), soxr.resample(xt, rate, 16000, "HQ").T)
            t = alternate({"loom": lambda: loom.audio.resample(x, rate, 16000),
                           "python-soxr": lambda: soxr.resample(xt, rate, 16000, "HQ"),
                           "torchaudio": lambda: torchaudio.functional.resample(x, rate, 16000)}, args.rounds)
            rows.append({"workload": "resample", "file": "60 s stereo 44.1 -> 16 kHz", "mode": "-", **t})
            print(json.dumps(rows[-1]), flush=True)
            sinc = loom.audio.resample(x, rate, 16000, engine="sinc")
            assert float((sinc - torchaudio.functional.resample(x, rate, 16000)).abs().max()) <= 3e-5
            t = alternate({"loom": lambda: loom.audio.resample(x, rate, 16000, engine="sinc"),
                           "torchaudio": lambda: torchaudio.functional.resample(x, rate, 16000)}, args.rounds)
            rows.append({"workload": "resample sinc", "file": "60 s stereo 44.1 -> 16 kHz", "mode": "-", **t})
            print(json.dumps(rows[-1]), flush=True)
        if "video" in groups:
            videos = {"nasa 480x270 (390)": os.path.join(args.media, "video", "nasa_13013.mp4"),
                      "long GOP 720p (900)": args.long_gop or benchlib.make_long_gop(tmp),
                      "1080p (150)": make_1080p(tmp)}
            for name, path in videos.items():
                n = len(loom.decoders.VideoDecoder(path))
                indices = sorted(random.Random(0).sample(range(n), 10))
                for mode in ("exact", "approximate"):
                    for workload in ("sequential", "random10"):
                        t = alternate(video_calls(path, mode, workload, indices), args.rounds)
                        rows.append({"workload": workload, "file": name, "mode": mode, **t})
                        print(json.dumps(rows[-1]), flush=True)
    print("\n| workload | file | seek mode | loom ms | peer | peer ms | peer / loom |\n|---|---|---|---:|---|---:|---:|")
    for r in rows:
        for peer in [k for k in r if k not in ("workload", "file", "mode", "loom")]:
            print(f"| {r['workload']} | {r['file']} | {r['mode']} | {r['loom'] * 1e3:.1f} | {peer} | {r[peer] * 1e3:.1f} | "
                  f"{r[peer] / r['loom']:.2f} |")
    if args.plot:
        plot(rows, info, args.plot)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": info, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
