#!/usr/bin/python3
"""Spectrogram, one thread: loom::audio::spectrogram vs torchaudio 0.13 (torch.stft), same signals.

Run with Debian's Python: /usr/bin/python3 (python3-torchaudio).

    /usr/bin/python3 bench/audio_spectrogram.py --loom-bench build/bench/loom_bench_audio_spectrogram [--json out.json]

Signals (uniform noise in [-0.5, 0.5], seed 0; an FFT's time does not depend on the values):
  10 s of 16 kHz mono ([1, 160000]) and 60 s of 44.1 kHz stereo ([2, 2646000]).
For n_fft 400 and 1024 with torchaudio.transforms.Spectrogram's defaults (win_length n_fft, hop n_fft // 2,
periodic Hann window, power 2, center with reflect padding, onesided):
  loom     loom_bench_audio_spectrogram (C++): spectrogram() on the float32 [channels, frames] tensor,
           making its FFT plan inside every call, as users call it.
  torch    torchaudio.transforms.Spectrogram(n_fft)(waveform) with torch.set_num_threads(1), inference mode
           (the module, and so its window, is built once outside the timing).
Each time is the median of enough runs to take 0.2 s after a warm-up; the ratio is torch time / loom time
(> 1: loom is faster).
"""
import argparse
import json
import subprocess
import tempfile

import numpy as np
import torch
import torchaudio

import benchlib

SIGNALS = [("10 s 16 kHz mono", 1, 16000 * 10), ("60 s 44.1 kHz stereo", 2, 44100 * 60)]
N_FFTS = [400, 1024]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--loom-bench", required=True)
    parser.add_argument("--json")
    args = parser.parse_args()
    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    results = []
    print(f"{'signal':<22} {'n_fft':>5} {'loom ms':>9} {'torch ms':>9} {'torch/loom':>10}")
    for name, channels, frames in SIGNALS:
        x = rng.uniform(-0.5, 0.5, size=(channels, frames)).astype(np.float32)
        with tempfile.NamedTemporaryFile(suffix=".f32") as raw:
            x.tofile(raw.name)
            out = subprocess.run([args.loom_bench, raw.name, str(channels), str(frames)] + [str(n) for n in N_FFTS],
                                 check=True, capture_output=True, text=True).stdout
        loom_ms = {json.loads(line)["n_fft"]: json.loads(line)["ms"] for line in out.splitlines()}
        waveform = torch.from_numpy(x)
        for n_fft in N_FFTS:
            transform = torchaudio.transforms.Spectrogram(n_fft=n_fft)
            with torch.inference_mode():
                torch_ms = benchlib.median_seconds(lambda: transform(waveform), warmup=0.1) * 1e3
            ratio = torch_ms / loom_ms[n_fft]
            print(f"{name:<22} {n_fft:>5} {loom_ms[n_fft]:>9.2f} {torch_ms:>9.2f} {ratio:>10.2f}")
            results.append({"signal": name, "channels": channels, "frames": frames, "n_fft": n_fft,
                            "loom_ms": loom_ms[n_fft], "torch_ms": torch_ms, "ratio": ratio})
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"torch": torch.__version__, "torchaudio": torchaudio.__version__, "results": results}, f,
                      indent=1)


if __name__ == "__main__":
    main()
