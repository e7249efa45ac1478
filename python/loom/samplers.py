"""Clip samplers after torchcodec.samplers: clips_at_random_indices, clips_at_regular_indices,
clips_at_random_timestamps and clips_at_regular_timestamps, with TorchCodec's arguments and defaults.

Each returns a FrameBatch: data uint8 [num_clips, num_frames_per_clip, 3, H, W] (or ... H, W, 3 for an
"NHWC" decoder), pts_seconds and duration_seconds float64 [num_clips, num_frames_per_clip]. Every frame of
every clip is decoded in one batch (each GOP at most once). policy ("repeat_last", "wrap", "error")
decides what replaces frames past the end of the video.

Randomness (the random samplers): loom's generator is keyed by a 64-bit seed (splitmix64: one seed gives
the same clips on any platform), so they take a keyword-only seed. seed=None draws one from torch's
default generator when torch is importable (torch.manual_seed then reproduces the clips, as it does
TorchCodec's), else from Python's random module. The clips for a given torch seed are not TorchCodec's:
the numbers come from a different generator.
"""

import random as _random

from ._loom import samplers as _native


def _resolve_seed(seed):
    if seed is not None:
        return int(seed) & (2**64 - 1)
    try:
        import torch
    except ImportError:
        return _random.getrandbits(64)
    return int(torch.randint(0, 2**62, ()).item())


def clips_at_random_indices(decoder, *, num_clips=1, num_frames_per_clip=1, num_indices_between_frames=1,
                            sampling_range_start=0, sampling_range_end=None, policy="repeat_last", seed=None):
    """num_clips clips of num_frames_per_clip frames num_indices_between_frames apart, starting at indices
    drawn uniformly from [sampling_range_start, sampling_range_end) (negative: from the end; None: the
    last start whose clip fits). seed: see the module docstring."""
    return _native.clips_at_random_indices(decoder, _resolve_seed(seed), num_clips, num_frames_per_clip,
                                           num_indices_between_frames, sampling_range_start, sampling_range_end,
                                           policy)


def clips_at_regular_indices(decoder, *, num_clips=1, num_frames_per_clip=1, num_indices_between_frames=1,
                             sampling_range_start=0, sampling_range_end=None, policy="repeat_last"):
    """As clips_at_random_indices, with starts evenly spaced over the range (torch.linspace truncated to
    integers, as TorchCodec)."""
    return _native.clips_at_regular_indices(decoder, num_clips, num_frames_per_clip, num_indices_between_frames,
                                            sampling_range_start, sampling_range_end, policy)


def clips_at_random_timestamps(decoder, *, num_clips=1, num_frames_per_clip=1, seconds_between_frames=None,
                               sampling_range_start=None, sampling_range_end=None, policy="repeat_last",
                               seed=None):
    """num_clips clips starting at times drawn uniformly from [sampling_range_start, sampling_range_end)
    (None: the stream's begin, and the last start whose clip fits); each frame is the one played at its
    sampling time, seconds_between_frames apart (None: 1 / average_fps). seed: see the module docstring."""
    return _native.clips_at_random_timestamps(decoder, _resolve_seed(seed), num_clips, num_frames_per_clip,
                                              seconds_between_frames, sampling_range_start, sampling_range_end,
                                              policy)


def clips_at_regular_timestamps(decoder, *, seconds_between_clip_starts, num_frames_per_clip=1,
                                seconds_between_frames=None, sampling_range_start=None, sampling_range_end=None,
                                policy="repeat_last"):
    """A clip every seconds_between_clip_starts seconds from sampling_range_start, strictly before
    sampling_range_end (so the range decides the number of clips); frames as clips_at_random_timestamps."""
    return _native.clips_at_regular_timestamps(decoder, seconds_between_clip_starts, num_frames_per_clip,
                                               seconds_between_frames, sampling_range_start, sampling_range_end,
                                               policy)


__all__ = [
    "clips_at_random_indices",
    "clips_at_random_timestamps",
    "clips_at_regular_indices",
    "clips_at_regular_timestamps",
]
