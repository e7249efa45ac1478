"""Video and audio decoders after torchcodec.decoders.

VideoDecoder(source, *, stream_index=None, dimension_order="NCHW", seek_mode="exact",
num_ffmpeg_threads=1, device="cpu") and AudioDecoder(source, *, stream_index=None, sample_rate=None,
num_channels=None), with TorchCodec's methods and return types (Frame, FrameBatch, AudioSamples,
VideoStreamMetadata, AudioStreamMetadata). source is a path, bytes-like, or a 1-D uint8 tensor of encoded
bytes.

Differences from TorchCodec: decoding runs on the CPU only; a VideoDecoder's metadata also holds
container, colour and key-frame fields; AudioDecoder times count from the first decoded sample and it
converts rates with libsoxr (see the class docstrings). Decoders pickle as their source and
options (a decoder opened from memory pickles its bytes) and reopen in the unpickling process, so they
cross os.fork() and multiprocessing with any start method.
"""

from ._loom import decoders as _native
from ._media_types import (
    AudioSamples,
    AudioStreamMetadata,
    Frame,
    FrameBatch,
    VideoStreamMetadata,
)

VideoDecoder = _native.VideoDecoder
AudioDecoder = _native.AudioDecoder


def _reopen_video_decoder(source, options):
    """Unpickling: opens the VideoDecoder that was pickled (its source and options)."""
    return VideoDecoder(source, **options)


def _reopen_audio_decoder(source, options):
    """Unpickling: opens the AudioDecoder that was pickled (its source and options)."""
    return AudioDecoder(source, **options)


__all__ = [
    "AudioDecoder",
    "AudioSamples",
    "AudioStreamMetadata",
    "Frame",
    "FrameBatch",
    "VideoDecoder",
    "VideoStreamMetadata",
]
