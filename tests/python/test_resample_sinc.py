"""loom.audio.resample(engine="sinc") against torchaudio.functional.resample (Debian's torchaudio 0.13,
whose kernel math is that of torchaudio 2.11: only the method names changed, 'sinc_interpolation' and
'kaiser_window' becoming 'sinc_interp_hann' and 'sinc_interp_kaiser', and loom takes both).

Tolerances: torchaudio builds its kernel in the waveform's dtype. With float32 (what users run) its
taps carry float32 rounding of the scaled time, 1e-5 to 2e-5 of full scale on the outputs; loom builds
the taps in float64 and rounds them once, so it is checked within 3e-5 of torchaudio's float32 result and
within 1e-6 of torchaudio's float64 one (the same float32 input, upcast: the exact filter). Shapes equal
exactly: ceil(frames * new / orig).

torchaudio runs in a spawned worker, as in test_audio.py (importing it initialises libsox).
"""
import multiprocessing

import numpy as np
import pytest
import torch

import loom

OLD_NAMES = {"sinc_interp_hann": "sinc_interpolation", "sinc_interp_kaiser": "kaiser_window"}
RATES = [(44100, 16000), (48000, 44100), (16000, 48000), (8000, 22050), (44100, 44100)]
# (lowpass_filter_width, rolloff, resampling_method, beta)
FILTERS = [(6, 0.99, "sinc_interp_hann", None), (6, 0.99, "sinc_interp_kaiser", None),
           (3, 0.8, "sinc_interp_hann", None), (16, 1.0, "sinc_interp_kaiser", 8.0)]
LENGTHS = [1, 7, 50, 9001]  # the first three shorter than every kernel here


def _resample_worker(cases):
    import torchaudio.functional as F
    out = []
    for x, orig, new, width, rolloff, method, beta in cases:
        kwargs = dict(lowpass_filter_width=width, rolloff=rolloff, resampling_method=OLD_NAMES[method], beta=beta)
        x = torch.from_numpy(x)
        out.append((F.resample(x, orig, new, **kwargs).numpy(), F.resample(x.double(), orig, new, **kwargs).numpy()))
    return out


def torchaudio_resample(cases):
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        return pool.apply(_resample_worker, (cases,))


def test_sinc_engine_matches_torchaudio():
    rng = np.random.default_rng(16)
    cases = []
    for orig, new in RATES:
        for width, rolloff, method, beta in FILTERS:
            for n in LENGTHS:
                channels = 1 + len(cases) % 3
                x = rng.uniform(-1, 1, (channels, n)).astype(np.float32)
                cases.append((x, orig, new, width, rolloff, method, beta))
    wants = torchaudio_resample(cases)
    worst32 = worst64 = 0.0
    for (x, orig, new, width, rolloff, method, beta), (want32, want64) in zip(cases, wants):
        got = loom.audio.resample(torch.from_numpy(x), orig, new, engine="sinc", lowpass_filter_width=width,
                                  rolloff=rolloff, resampling_method=method, beta=beta).numpy()
        label = (orig, new, width, rolloff, method, beta, x.shape)
        assert got.shape == want32.shape == (x.shape[0], -(-x.shape[1] * new // orig)), label
        if orig == new:
            assert np.array_equal(got, x), label
        worst32 = max(worst32, float(np.abs(got - want32).max()))
        worst64 = max(worst64, float(np.abs(got.astype(np.float64) - want64).max()))
        assert np.abs(got - want32).max() <= 3e-5, label
        assert np.abs(got.astype(np.float64) - want64).max() <= 1e-6, label
    # The float32 reference is the looser one: its own kernel rounding, not loom's.
    assert worst64 < worst32


def test_sinc_engine_on_real_audio(media):
    whole, rate = loom.audio.load(str(media / "audio" / "exo_bear.flac"))  # 48 kHz stereo
    [(want32, want64)] = torchaudio_resample([(whole.numpy(), rate, 16000, 6, 0.99, "sinc_interp_hann", None)])
    got = loom.audio.resample(whole, rate, 16000, engine="sinc")
    assert got.shape == want32.shape
    assert np.abs(got.numpy() - want32).max() <= 3e-5
    assert np.abs(got.numpy().astype(np.float64) - want64).max() <= 1e-6
    # 1-D in, 1-D out; the old method names; beta=None is torchaudio's default beta.
    assert torch.equal(loom.audio.resample(whole[0], rate, 16000, engine="sinc"), got[0])
    kaiser = loom.audio.resample(whole, rate, 16000, engine="sinc", resampling_method="sinc_interp_kaiser")
    assert torch.equal(loom.audio.resample(whole, rate, 16000, engine="sinc", resampling_method="kaiser_window",
                                           beta=14.769656459379492), kaiser)
    assert not torch.equal(kaiser, got)


def test_sinc_engine_rejects_bad_arguments():
    x = torch.zeros(1, 100)
    with pytest.raises(loom.InvalidInputError, match="lowpass_filter_width must be positive"):
        loom.audio.resample(x, 44100, 16000, engine="sinc", lowpass_filter_width=0)
    for rolloff in [0.0, -0.5, 1.5, float("nan")]:
        with pytest.raises(loom.InvalidInputError, match="rolloff must be in"):
            loom.audio.resample(x, 44100, 16000, engine="sinc", rolloff=rolloff)
    with pytest.raises(loom.InvalidInputError, match="beta must be finite"):
        loom.audio.resample(x, 44100, 16000, engine="sinc", resampling_method="sinc_interp_kaiser",
                            beta=float("inf"))
    with pytest.raises(loom.InvalidInputError, match="Kaiser window overflows"):
        loom.audio.resample(x, 44100, 16000, engine="sinc", resampling_method="sinc_interp_kaiser", beta=1e4)
    with pytest.raises(ValueError, match="resampling_method"):
        loom.audio.resample(x, 44100, 16000, engine="sinc", resampling_method="linear")
    with pytest.raises(ValueError, match="engine must be 'soxr', 'sox' or 'sinc'"):
        loom.audio.resample(x, 44100, 16000, engine="torchaudio")
    with pytest.raises(loom.InvalidInputError, match="NaN"):
        loom.audio.resample(torch.tensor([[0.0, float("inf")]]), 44100, 16000, engine="sinc")
    with pytest.raises(loom.InvalidInputError, match="positive"):
        loom.audio.resample(x, 44100, 0, engine="sinc")
