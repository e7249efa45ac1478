"""Reference for tests/video/encoder_test.cc: ffprobe and PyAV read the file loom's VideoEncoder wrote.

params: {"file": path, "decode": decode the video frames with PyAV,
         "src_colorspace": None or a PyAV colorspace name ("ITU601", "ITU709") for the YUV -> RGB
                           conversion (None: PyAV's default, BT.601),
         "decode_audio": decode the first audio stream with PyAV}
out_video: int64 [frames counted by ffprobe (-count_frames), width, height, avg_frame_rate num, den,
                  r_frame_rate num, den]
out_tags: uint8 bytes of "codec_name|pix_fmt|color_space|color_transfer|color_primaries|color_range|format_name|
          audio codec_name (empty without audio)"
out_audio (when the file has audio): float64 [sample_rate, channels, duration from ffprobe (stream, else
           format), samples decoded by PyAV (-1 unless decode_audio)]
out_frames (decode): uint8 [N, H, W, 3] RGB frames from PyAV
out_samples (decode_audio): float32 [channels, samples] from PyAV
"""
import json
import subprocess

import av
import numpy as np

from refutil import params, save

p = params()
path = p["file"]
probe = json.loads(subprocess.run(
    ["ffprobe", "-v", "error", "-count_frames", "-show_streams", "-show_format", "-of", "json", path],
    check=True, capture_output=True).stdout)
video = [s for s in probe["streams"] if s["codec_type"] == "video"][0]


def ratio(text):
    num, den = text.split("/")
    return int(num), int(den)


save("video", np.array([int(video["nb_read_frames"]), video["width"], video["height"],
                        *ratio(video["avg_frame_rate"]), *ratio(video["r_frame_rate"])], dtype=np.int64))
tags = "|".join(str(video.get(k, "")) for k in ("codec_name", "pix_fmt", "color_space", "color_transfer",
                                                "color_primaries", "color_range"))
audio = [s for s in probe["streams"] if s["codec_type"] == "audio"]
tags += "|" + probe["format"]["format_name"] + "|" + (audio[0]["codec_name"] if audio else "")
save("tags", np.frombuffer(tags.encode(), dtype=np.uint8))
if audio:
    a = audio[0]
    duration = float(a.get("duration", probe["format"]["duration"]))
    decoded = -1
    if p.get("decode_audio"):
        with av.open(path) as c:
            chunks = [f.to_ndarray() for f in c.decode(audio=0)]
        # Planar formats give [C, n]; packed ones [1, n * C].
        channels = int(a["channels"])
        chunks = [x.reshape(-1, channels).T if x.shape[0] != channels else x for x in chunks]
        samples = np.concatenate(chunks, axis=1).astype(np.float32)
        if np.issubdtype(chunks[0].dtype, np.integer):
            samples /= float(np.iinfo(chunks[0].dtype).max) + 1
        decoded = samples.shape[1]
        save("samples", samples)
    save("audio", np.array([int(a["sample_rate"]), int(a["channels"]), duration, decoded], dtype=np.float64))

if p.get("decode"):
    kwargs = {"format": "rgb24"}
    if p.get("src_colorspace"):
        kwargs["src_colorspace"] = p["src_colorspace"]
    with av.open(path) as c:
        frames = [f.to_ndarray(**kwargs) for f in c.decode(video=0)]
    save("frames", np.stack(frames))
