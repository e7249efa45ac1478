"""Reference for tests/audio/{functional,spectral}_test.cc: torchaudio 0.13 (Debian's python3-torchaudio).

params.json: {"wav": optional path, "cases": [{"op": ..., ...}, ...]}. The signal is samples.npy
(float32 [channels, frames]) or, when "wav" is given, that file decoded with soundfile to float32
[channels, frames], which is also written back as out_input.npy so that loom filters the same samples.
A case with "float64": true runs torchaudio on the samples converted to float64 (the exact answer
for IIR filters whose poles sit close to the unit circle, where torchaudio's float32 recursion drifts).
Case i's result goes to out_<i>.npy (float32; complex spectra as [..., 2]). Coefficient tensors for
lfilter come as a_<i>.npy / b_<i>.npy.
"""
import os

import numpy as np
import soundfile
import torch
import torchaudio
import torchaudio.functional as F
import torchaudio.transforms as T

from refutil import FOLDER, load, params, save

torch.set_num_threads(1)
WINDOWS = {"hann": torch.hann_window, "hamming": torch.hamming_window, "rect": torch.ones}


def spectrogram_kwargs(c):
    kw = dict(n_fft=c.get("n_fft", 400), win_length=c.get("win_length"), hop_length=c.get("hop_length"),
              pad=c.get("pad", 0), window_fn=WINDOWS[c.get("window", "hann")], power=c.get("power", 2.0),
              normalized=c.get("normalized", False), center=c.get("center", True),
              pad_mode=c.get("pad_mode", "reflect"), onesided=c.get("onesided", True))
    if "periodic" in c and c["window"] != "rect":
        kw["wkwargs"] = {"periodic": c["periodic"]}
    return kw


def run(i, c, x):
    op = c["op"]
    if op == "gain":
        return F.gain(x, c["gain_db"])
    if op == "mix_down":
        return x.mean(0, keepdim=True)
    if op == "fade":
        return T.Fade(c["fade_in"], c["fade_out"], c["shape"])(x)
    if op == "lfilter":
        a = torch.from_numpy(load(f"a_{i}"))
        b = torch.from_numpy(load(f"b_{i}"))
        return F.lfilter(x, a, b, clamp=c.get("clamp", True), batching=c.get("batching", True))
    if op == "biquad":
        return F.biquad(x, *c["coeffs"])
    if op == "lowpass":
        return F.lowpass_biquad(x, c["sr"], c["freq"], c["Q"])
    if op == "highpass":
        return F.highpass_biquad(x, c["sr"], c["freq"], c["Q"])
    if op == "bandpass":
        return F.bandpass_biquad(x, c["sr"], c["freq"], c["Q"], c.get("const_skirt_gain", False))
    if op == "equalizer":
        return F.equalizer_biquad(x, c["sr"], c["freq"], c["gain"], c["Q"])
    if op == "overdrive":
        return F.overdrive(x, c["gain"], c["colour"])
    if op == "spectrogram":
        s = T.Spectrogram(**spectrogram_kwargs(c))(x)
        return torch.view_as_real(s) if s.is_complex() else s
    if op == "fbanks":
        return F.melscale_fbanks(c["n_freqs"], c["f_min"], c["f_max"], c["n_mels"], c["sr"], c.get("norm"),
                                 c.get("mel_scale", "htk"))
    if op == "melspectrogram":
        kw = spectrogram_kwargs(c)
        del kw["onesided"]
        return T.MelSpectrogram(sample_rate=c["sr"], f_min=c.get("f_min", 0.0), f_max=c.get("f_max"),
                                n_mels=c.get("n_mels", 128), norm=c.get("norm"),
                                mel_scale=c.get("mel_scale", "htk"), **kw)(x)
    if op == "mfcc":
        kw = spectrogram_kwargs(c)
        del kw["onesided"]
        melkwargs = dict(f_min=c.get("f_min", 0.0), f_max=c.get("f_max"), n_mels=c.get("n_mels", 128),
                         norm=c.get("norm"), mel_scale=c.get("mel_scale", "htk"), **kw)
        return T.MFCC(sample_rate=c["sr"], n_mfcc=c["n_mfcc"], norm=c.get("dct_norm", "ortho"),
                      log_mels=c.get("log_mels", False), melkwargs=melkwargs)(x)
    if op == "amplitude_to_db":
        return T.AmplitudeToDB(c["stype"], c.get("top_db"))(x.abs())
    raise ValueError(op)


def main():
    p = params()
    if p.get("wav"):
        data, _ = soundfile.read(p["wav"], dtype="float32", always_2d=True)
        x = np.ascontiguousarray(data.T)
        save("input", x)
    elif os.path.exists(os.path.join(FOLDER, "samples.npy")):
        x = load("samples")
    else:
        x = np.zeros((1, 1), np.float32)
    x = torch.from_numpy(x)
    for i, c in enumerate(p["cases"]):
        xi = x.clone().double() if c.get("float64") else x.clone()
        save(str(i), run(i, c, xi).numpy().astype(np.float32))


if __name__ == "__main__":
    main()
