"""Reference for tests/audio/save_test.cc (MP3, Opus, AAC written through FFmpeg): ffprobe's view of the
file and PyAV's decode of it.

params: {"file": loom's output, "codec": the codec name ffprobe should report}
out_probe: [codec matches (1/0), sample_rate, channels, stream bit_rate (-1 when ffprobe has none),
            format bit_rate (-1 when none)]
out_samples: [channels, frames] float32, every frame of the first audio stream decoded by PyAV
out_rate: [PyAV's sample rate]
"""
import json
import subprocess

import av
import numpy as np

from refutil import params, save

p = params()
probe = json.loads(subprocess.run(
    ["ffprobe", "-v", "error", "-print_format", "json", "-show_streams", "-show_format", p["file"]],
    check=True, capture_output=True, text=True).stdout)
stream = probe["streams"][0]
save("probe", np.array([int(stream["codec_name"] == p["codec"]), int(stream["sample_rate"]), int(stream["channels"]),
                        int(stream.get("bit_rate", -1)), int(probe["format"].get("bit_rate", -1))], dtype=np.int64))
with av.open(p["file"]) as container:
    s = container.streams.audio[0]
    chunks = []
    for frame in container.decode(s):
        a = frame.to_ndarray()
        if not frame.format.is_planar:
            a = a.reshape(-1, frame.layout.nb_channels if hasattr(frame.layout, "nb_channels") else len(frame.layout.channels)).T
        chunks.append(a.astype(np.float32))
    save("samples", np.concatenate(chunks, axis=1))
    save("rate", np.array([s.rate], dtype=np.int64))
