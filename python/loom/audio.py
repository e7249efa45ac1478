"""Audio load, save and info after torchaudio (torchaudio.load, torchaudio.save, torchaudio.info), and
resample after torchaudio.functional.resample.

The same names, arguments and return values: load gives (waveform, sample_rate), info an
AudioMetaData(sample_rate, num_frames, num_channels, bits_per_sample, encoding). loom decodes with
libsndfile (WAV, AIFF, AU, CAF, FLAC, Ogg/Vorbis: soundfile's values) and FFmpeg (MP3, AAC, Opus,
ADPCM, video containers: PyAV's values), and encodes with libsndfile and FFmpeg, writing files
atomically. Each function's docstring lists where it differs from torchaudio.
"""

from ._loom import audio as _native
from ._media_types import AudioMetaData

load = _native.load
save = _native.save
info = _native.info
resample = _native.resample

__all__ = ["AudioMetaData", "info", "load", "resample", "save"]
