"""Video and audio encoders after torchcodec.encoders.

VideoEncoder(frames, *, frame_rate) encodes uint8 RGB frames [N, 3, H, W]; AudioEncoder(samples, *,
sample_rate) encodes float32 samples [channels, samples]. Both have to_file(dest, **options) and
to_tensor(format, **options) (the encoded bytes as a 1-D uint8 tensor). Files are written atomically.
Differences from TorchCodec: no to_file_like (write the bytes of to_tensor instead).
"""

from ._loom import encoders as _native

VideoEncoder = _native.VideoEncoder
AudioEncoder = _native.AudioEncoder

__all__ = ["AudioEncoder", "VideoEncoder"]
