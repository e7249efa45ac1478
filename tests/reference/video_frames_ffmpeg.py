"""Frames of one video stream converted to RGB24 by the ffmpeg CLI, the reference for loom's
VideoDecoder pixels.

params: file, stream (absolute stream index), indices (frame numbers in presentation order, any order,
repeats allowed), sws_flags (e.g. "bilinear"), optional height/width (resize in the same swscale pass),
optional autorotate (true: ffmpeg turns the frames as the display matrix says, its default).
Writes out_frames: uint8 [len(unique indices), H, W, 3] for the sorted unique indices.

The select filter's n counts decoded frames in output (presentation) order, which is what loom's frame
index means. Rotation is not applied (-noautorotate) unless asked for, as loom's decoder does not apply
it unless asked for (DecoderOptions::apply_rotation).
"""
import subprocess

import numpy as np

from refutil import params, save

p = params()
wanted = sorted(set(p["indices"]))
expr = "+".join("eq(n\\,%d)" % i for i in wanted)
vf = "select=" + expr
if "width" in p:
    vf += ",scale=%d:%d:flags=%s" % (p["width"], p["height"], p["sws_flags"])
rotate = [] if p.get("autorotate") else ["-noautorotate"]
cmd = ["ffmpeg", "-v", "error", *rotate, "-i", p["file"], "-map", "0:%d" % p["stream"], "-vf", vf,
       "-vsync", "0", "-sws_flags", p["sws_flags"], "-pix_fmt", "rgb24", "-f", "rawvideo", "-"]
raw = subprocess.run(cmd, check=True, stdout=subprocess.PIPE).stdout
h, w = p["out_height"], p["out_width"]
frames = np.frombuffer(raw, dtype=np.uint8)
if frames.size != len(wanted) * h * w * 3:
    raise SystemExit("ffmpeg returned %d bytes, expected %d frames of %dx%d" % (frames.size, len(wanted), w, h))
save("frames", frames.reshape(len(wanted), h, w, 3))
