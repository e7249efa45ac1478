"""Every decoded frame of one video stream as PyAV (FFmpeg's decoder) sees it, and ffprobe's count.

params: file, stream (absolute stream index), optional bt601_index (default 0).
Writes out_pts (float64 frame.pts * time_base, in decoding output = presentation order),
out_count_pyav and out_count_ffprobe (int64 scalars: decoded frames per PyAV and `ffprobe -count_frames`),
out_bt601_frame (uint8 [H, W, 3]: frame bt601_index through PyAV's default to_ndarray('rgb24'), which uses
swscale's default BT.601 matrix whatever the stream says; used to show that the matrix matters).
"""
import json
import subprocess

import av
import numpy as np

from refutil import params, save

p = params()
with av.open(p["file"], metadata_errors="ignore") as c:
    s = c.streams[p["stream"]]
    pts = []
    chosen = None
    for frame in c.decode(s):
        if len(pts) == p.get("bt601_index", 0):
            chosen = frame.to_ndarray(format="rgb24")
        pts.append(float(frame.pts * s.time_base))
save("pts", np.array(pts, dtype=np.float64))
save("count_pyav", np.array(len(pts), dtype=np.int64))
save("bt601_frame", chosen)
out = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", str(p["stream"]),
                      "-show_entries", "stream=nb_read_frames", "-of", "json", p["file"]],
                     check=True, stdout=subprocess.PIPE).stdout
save("count_ffprobe", np.array(int(json.loads(out)["streams"][0]["nb_read_frames"]), dtype=np.int64))
