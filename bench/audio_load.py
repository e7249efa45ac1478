#!/usr/bin/python3
"""Audio load, one thread: loom::audio::load vs soundfile, PyAV and torchaudio 0.13 on the same files.

Run with Debian's Python: /usr/bin/python3 (python3-soundfile, python3-av, python3-torchaudio, sox, ffmpeg).

    /usr/bin/python3 bench/audio_load.py --loom-bench build/bench/loom_bench_audio_load [--json out.json]
        [--media /work/shared/media/audio] [--no-generated]

Files: 60 s of 44.1 kHz stereo (tones plus noise, numpy seed 0) made at set-up time in a temporary folder
(never committed): WAV s16 and f32 and FLAC s16 and s24 by sox, MP3 (libmp3lame 192k) and AAC in M4A (FFmpeg
aac 192k) by ffmpeg; then every file in --media (short real files; their times are dominated by opening).
Every result is float32 in [-1, 1]:
  loom       loom_bench_audio_load (C++): load(path) (normalize = true), [channels, frames] (loom's default,
             "cf") and, separately, channels_first = false, [frames, channels] ("cl").
  soundfile  for the files loom decodes with libsndfile (WAV/AIFF/AU/FLAC/Ogg PCM, float, u-law, A-law,
             Vorbis): soundfile.read(path, dtype='float32') -> [frames, channels] (its natural layout, timed
             against loom cl), and the same plus np.ascontiguousarray(x.T) -> [channels, frames] (timed
             against loom cf).
  PyAV       for the rest (MP3, AAC, Opus, ADPCM, ...): every frame of the first audio stream decoded
             (thread_count 1), frame.to_ndarray() concatenated to [channels, frames] float32 (integer
             formats scaled as loom does), timed against loom cf.
  torchaudio torchaudio.load(path) (its default sox_io backend, float32 [channels, frames]) with
             torch.set_num_threads(1), against loom cf; "-" where it cannot read the file.
Each time is the median of enough runs to take 0.2 s after 0.1 s of warm-up; ratios are peer / loom
(> 1: loom is faster).
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

import av
import numpy as np
import soundfile

import benchlib

SR, SECONDS = 44100, 60
SNDFILE_FORMATS = {"WAV", "WAVEX", "RF64", "W64", "AIFF", "AU", "CAF", "FLAC", "OGG"}
SNDFILE_SUBTYPES = {"PCM_S8", "PCM_16", "PCM_24", "PCM_32", "PCM_U8", "FLOAT", "DOUBLE", "ULAW", "ALAW", "VORBIS"}


def make_files(folder):
    """The generated 60 s 44.1 kHz stereo files; returns their paths."""
    rng = np.random.default_rng(0)
    t = np.arange(SR * SECONDS) / SR
    x = np.stack([0.3 * np.sin(2 * np.pi * 440 * t) + 0.1 * np.sin(2 * np.pi * 3000 * t),
                  0.3 * np.sin(2 * np.pi * 554 * t + 1) + 0.1 * np.sin(2 * np.pi * 1500 * t)], axis=1)
    x += 0.05 * rng.standard_normal(x.shape)
    raw = os.path.join(folder, "master.f32")
    x.astype(np.float32).tofile(raw)
    src = ["sox", "-V1", "-t", "raw", "-r", str(SR), "-c", "2", "-e", "floating-point", "-b", "32", raw]
    paths = []
    for name, fmt in [("gen_s16.wav", ["-e", "signed-integer", "-b", "16"]),
                      ("gen_f32.wav", ["-e", "floating-point", "-b", "32"]),
                      ("gen_s16.flac", ["-b", "16"]), ("gen_s24.flac", ["-b", "24"])]:
        path = os.path.join(folder, name)
        subprocess.run(src + fmt + [path], check=True)
        paths.append(path)
    for name, codec in [("gen.mp3", ["-c:a", "libmp3lame", "-b:a", "192k"]), ("gen.m4a", ["-c:a", "aac", "-b:a", "192k"])]:
        path = os.path.join(folder, name)
        subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-i", paths[0]] + codec + [path], check=True)
        paths.append(path)
    os.remove(raw)
    return paths


def soundfile_serves(path):
    try:
        info = soundfile.info(path)
    except Exception:  # noqa: BLE001 - not a libsndfile format
        return False
    return info.format in SNDFILE_FORMATS and info.subtype in SNDFILE_SUBTYPES


def pyav_load(path):
    with av.open(path) as container:
        stream = container.streams.audio[0]
        stream.thread_count = 1
        parts = []
        for frame in container.decode(stream):
            a = frame.to_ndarray()
            if not frame.format.is_planar:
                a = a.reshape(-1, len(frame.layout.channels)).T
            parts.append(a)
    x = np.concatenate(parts, axis=1)
    if x.dtype == np.float32:
        return x
    if x.dtype == np.uint8:
        return (x.astype(np.float32) - 128) / 128
    if x.dtype.kind == "i":
        return (x / float(2 ** (8 * x.dtype.itemsize - 1))).astype(np.float32)
    return x.astype(np.float32)


def loom_times(bench, paths, channels_last):
    cmd = [bench] + (["--channels-last"] if channels_last else []) + paths
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return {r["file"]: r for r in map(json.loads, out.splitlines())}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--loom-bench", required=True)
    parser.add_argument("--media", default="/work/shared/media/audio")
    parser.add_argument("--no-generated", action="store_true")
    parser.add_argument("--json")
    args = parser.parse_args()
    av.logging.set_level(av.logging.ERROR)  # PyAV's libav* warnings (timestamps, bitrate estimates)
    try:
        import torch
        import torchaudio
        torch.set_num_threads(1)
        try:
            torchaudio.utils.ffmpeg_utils.set_log_level(16)  # AV_LOG_ERROR for torchaudio's own FFmpeg
        except Exception:  # noqa: BLE001 - older or FFmpeg-less torchaudio builds
            pass
    except ImportError:
        torchaudio = None

    with tempfile.TemporaryDirectory(prefix="loom-audio-bench-") as tmp:
        paths = [] if args.no_generated else make_files(tmp)
        if args.media and os.path.isdir(args.media):
            paths += sorted(p for p in glob.glob(os.path.join(args.media, "*")) if os.path.isfile(p))
        cf = loom_times(args.loom_bench, paths, channels_last=False)
        cl = loom_times(args.loom_bench, paths, channels_last=True)
        results = []
        head = (f"{'file':<34} {'C':>2} {'frames':>8} {'loom cf':>8} {'loom cl':>8} {'peer':<9} {'peer':>8} "
                f"{'peer cf':>8} {'torchaud':>8} {'like':>6} {'cf':>6} {'ta/cf':>6}")
        print(head)
        print(f"{'':<34} {'':>2} {'':>8} {'ms':>8} {'ms':>8} {'':<9} {'ms':>8} {'ms':>8} {'ms':>8} "
              f"{'ratio':>6} {'ratio':>6} {'ratio':>6}")
        for path in paths:
            name = os.path.basename(path)
            a, b = cf.get(path, {}), cl.get(path, {})
            if "ms" not in a or "ms" not in b:
                print(f"{name:<34} loom failed: {a.get('error') or b.get('error')}")
                continue
            row = {"file": name, "generated": path.startswith(tmp), "channels": a["channels"], "frames": a["frames"],
                   "sample_rate": a["sample_rate"], "loom_cf_ms": a["ms"], "loom_cl_ms": b["ms"]}
            if soundfile_serves(path):
                row["peer"] = "soundfile"
                row["peer_ms"] = benchlib.median_seconds(lambda: soundfile.read(path, dtype="float32"), warmup=0.1) * 1e3
                row["peer_cf_ms"] = benchlib.median_seconds(
                    lambda: np.ascontiguousarray(soundfile.read(path, dtype="float32")[0].T), warmup=0.1) * 1e3
                row["like_ratio"] = row["peer_ms"] / row["loom_cl_ms"]  # [frames, channels] both
            else:
                row["peer"] = "pyav"
                try:
                    pyav_load(path)
                    row["peer_ms"] = row["peer_cf_ms"] = benchlib.median_seconds(lambda: pyav_load(path),
                                                                                 warmup=0.1) * 1e3
                    row["like_ratio"] = row["peer_ms"] / row["loom_cf_ms"]  # [channels, frames] both
                except Exception as e:  # noqa: BLE001 - reported, not fatal
                    row["peer_error"] = repr(e)
            if "peer_cf_ms" in row:
                row["cf_ratio"] = row["peer_cf_ms"] / row["loom_cf_ms"]
            if torchaudio is not None:
                try:
                    torchaudio.load(path)
                    row["torchaudio_ms"] = benchlib.median_seconds(lambda: torchaudio.load(path), warmup=0.1) * 1e3
                    row["torchaudio_ratio"] = row["torchaudio_ms"] / row["loom_cf_ms"]
                except Exception as e:  # noqa: BLE001 - torchaudio cannot read every file
                    row["torchaudio_error"] = repr(e).splitlines()[0][:200]
            results.append(row)

            def f(key, spec):
                return format(row[key], spec) if key in row else "-"

            print(f"{name[:34]:<34} {row['channels']:>2} {row['frames']:>8} {row['loom_cf_ms']:>8.2f} "
                  f"{row['loom_cl_ms']:>8.2f} {row.get('peer', ''):<9} {f('peer_ms', '8.2f'):>8} "
                  f"{f('peer_cf_ms', '8.2f'):>8} {f('torchaudio_ms', '8.2f'):>8} {f('like_ratio', '6.2f'):>6} "
                  f"{f('cf_ratio', '6.2f'):>6} {f('torchaudio_ratio', '6.2f'):>6}")
            sys.stdout.flush()
    if args.json:
        try:
            machine = benchlib.machine_info()
        except ImportError:
            machine = {}
        machine.update({"soundfile": soundfile.__version__, "libsndfile": soundfile.__libsndfile_version__,
                        "pyav": av.__version__,
                        "torchaudio": getattr(torchaudio, "__version__", None) if torchaudio else None})
        with open(args.json, "w") as out:
            json.dump({"machine": machine, "results": results}, out, indent=1)


if __name__ == "__main__":
    main()
