"""Reference for tests/audio/save_test.cc: soundfile reads the file loom wrote, and writes the same input
with the same format and subtype itself, then reads that back.

inputs: samples [frames, channels] (float32)
params: {"file": loom's output, "format": soundfile format, "subtype": soundfile subtype, "rate": Hz,
         "dtype": dtype to read with}
out_loom: loom's file as read by soundfile; out_soundfile: soundfile's own file read back;
out_info: [samplerate, channels, frames]; out_format: [1 if sf.info matches format and subtype else 0]
"""
import os
import tempfile

import numpy as np
import soundfile as sf

from refutil import load, params, save

p = params()
x = load("samples")
info = sf.info(p["file"])
save("info", np.array([info.samplerate, info.channels, info.frames], dtype=np.int64))
save("format", np.array([int(info.format == p["format"] and info.subtype == p["subtype"])], dtype=np.int64))
save("loom", sf.read(p["file"], dtype=p["dtype"], always_2d=True)[0])
with tempfile.TemporaryDirectory() as d:
    own = os.path.join(d, "own." + p["format"].lower())
    sf.write(own, x, p["rate"], format=p["format"], subtype=p["subtype"])
    save("soundfile", sf.read(own, dtype=p["dtype"], always_2d=True)[0])
