"""The plain records loom.decoders, loom.samplers and loom.audio return, after TorchCodec's and
torchaudio's dataclasses. The native extension builds them; nothing here decodes.
"""

import dataclasses
from typing import Any, Iterator, List, Optional


@dataclasses.dataclass
class Frame:
    """One frame, as torchcodec.Frame: data (uint8 [3, H, W], or [H, W, 3] for dimension_order="NHWC"),
    pts_seconds and duration_seconds (floats, on the stream's clock). Unpacks as (data, pts, duration)."""

    data: Any
    pts_seconds: float
    duration_seconds: float

    def __iter__(self) -> Iterator[Any]:
        return iter((self.data, self.pts_seconds, self.duration_seconds))


@dataclasses.dataclass
class FrameBatch:
    """Frames, as torchcodec.FrameBatch: data (uint8 [N, 3, H, W] or [N, H, W, 3]; the samplers add a
    clip dimension in front), pts_seconds and duration_seconds (float64, data's leading dimensions).
    Indexing and iteration go over the first dimension, giving Frames (or FrameBatches for clips)."""

    data: Any
    pts_seconds: Any
    duration_seconds: Any

    def __len__(self) -> int:
        return len(self.data)

    def __getitem__(self, key):
        data, pts, duration = self.data[key], self.pts_seconds[key], self.duration_seconds[key]
        if pts.ndim == 0:
            return Frame(data, float(pts), float(duration))
        return FrameBatch(data, pts, duration)

    def __iter__(self) -> Iterator[Any]:
        for i in range(len(self)):
            yield self[i]


@dataclasses.dataclass
class AudioSamples:
    """Decoded audio, as torchcodec.AudioSamples: data (float32 [channels, samples]), pts_seconds (the
    time of the first sample, counted from the first decoded sample), duration_seconds and sample_rate
    (Hz)."""

    data: Any
    pts_seconds: float
    duration_seconds: float
    sample_rate: int


@dataclasses.dataclass
class VideoStreamMetadata:
    """The decoded video stream, after torchcodec's VideoStreamMetadata.

    Header fields are None where the header does not say. begin/end_stream_seconds come from the frame
    index in seek_mode="exact" (first pts; last pts + duration) and from the header in "approximate";
    num_frames, duration_seconds and average_fps are what the decoder uses (exact: counted and measured
    from the index, as TorchCodec's properties; approximate: from the header). Sizes are the coded
    picture's (rotation is reported, not applied)."""

    stream_index: int
    codec: str
    container: str
    width: int
    height: int
    pixel_format: str
    color_space: str
    color_range: str
    color_primaries: str
    rotation: float
    bit_rate: Optional[int]
    duration_seconds_from_header: Optional[float]
    average_fps_from_header: Optional[float]
    num_frames_from_header: Optional[int]
    num_frames_from_content: Optional[int]
    begin_stream_seconds: float
    end_stream_seconds: float
    num_frames: int
    duration_seconds: float
    average_fps: Optional[float]
    key_frame_indices: List[int]


@dataclasses.dataclass
class AudioStreamMetadata:
    """The decoded audio stream, after torchcodec's AudioStreamMetadata. sample_rate and num_channels
    are the decoded stream's (before any conversion the decoder was asked for). codec, sample_format,
    bit_rate and duration_seconds_from_header come from probing the file: None for sources in memory
    and where the header does not say; num_frames_from_header is None where it is not known before
    decoding."""

    stream_index: Optional[int]
    codec: Optional[str]
    sample_format: Optional[str]
    bit_rate: Optional[int]
    duration_seconds_from_header: Optional[float]
    sample_rate: int
    num_channels: int
    num_frames_from_header: Optional[int]


@dataclasses.dataclass
class AudioMetaData:
    """torchaudio.info's record: sample_rate (Hz), num_frames (samples per channel from the header; 0
    when unknown), num_channels, bits_per_sample (0 for compressed codecs without a fixed width) and
    encoding (torchaudio's words: "PCM_S", "PCM_U", "PCM_F", "ULAW", "ALAW", "FLAC", "MP3", "VORBIS",
    "OPUS", "AAC", ...)."""

    sample_rate: int
    num_frames: int
    num_channels: int
    bits_per_sample: int
    encoding: str
