"""Reference decode for tests/audio/load_test.cc: soundfile (libsndfile) for the formats loom decodes with
libsndfile, PyAV (every frame of one audio stream, concatenated) for the rest.

params: {"file": path, "normalize": bool, "stream": index of the audio stream for PyAV (default: the first)}
out_samples: [frames, channels]; out_rate: [sample_rate]; out_backend: [0 soundfile | 1 pyav]
"""
import wave

import numpy as np
import soundfile as sf

from refutil import params, save

SF_FORMATS = {"WAV", "WAVEX", "RF64", "W64", "AIFF", "AU", "CAF", "FLAC", "OGG"}
SF_SUBTYPES = {"PCM_S8", "PCM_16", "PCM_24", "PCM_32", "PCM_U8", "FLOAT", "DOUBLE", "ULAW", "ALAW", "VORBIS"}
SF_NATIVE = {"PCM_S8": "int16", "PCM_16": "int16", "ULAW": "int16", "ALAW": "int16", "PCM_24": "int32",
             "PCM_32": "int32", "FLOAT": "float32", "VORBIS": "float32", "DOUBLE": "float64"}


def with_soundfile(path, normalize):
    info = sf.info(path)
    if normalize:
        data, rate = sf.read(path, dtype="float32", always_2d=True)
    elif info.subtype == "PCM_U8":
        # soundfile has no uint8; the wave module returns the stored bytes.
        with wave.open(path, "rb") as w:
            raw = np.frombuffer(w.readframes(w.getnframes()), dtype=np.uint8)
            data, rate = raw.reshape(-1, w.getnchannels()), w.getframerate()
    else:
        data, rate = sf.read(path, dtype=SF_NATIVE[info.subtype], always_2d=True)
    return data, rate


def with_pyav(path, normalize, stream_index):
    import av
    with av.open(path) as container:
        stream = container.streams.audio[0] if stream_index is None else container.streams[stream_index]
        channels = stream.codec_context.channels
        chunks = []
        for frame in container.decode(stream):
            a = frame.to_ndarray()
            a = a.T if frame.format.is_planar else a.reshape(-1, channels)
            chunks.append(a)
        rate = stream.codec_context.sample_rate
    data = np.concatenate(chunks, axis=0)
    if normalize:
        scale = {np.dtype("uint8"): None, np.dtype("int16"): 32768.0, np.dtype("int32"): 2147483648.0}
        if data.dtype == np.uint8:
            data = (data.astype(np.float32) - np.float32(128)) / np.float32(128)
        elif data.dtype in scale:
            data = data.astype(np.float32) / np.float32(scale[data.dtype])
        else:
            data = data.astype(np.float32)
    return data, rate


def main():
    p = params()
    path = p["file"]
    try:
        info = sf.info(path)
        use_sf = info.format in SF_FORMATS and info.subtype in SF_SUBTYPES
    except RuntimeError:
        use_sf = False
    data, rate = with_soundfile(path, p["normalize"]) if use_sf else with_pyav(path, p["normalize"], p.get("stream"))
    save("samples", data)
    save("rate", np.array([rate], dtype=np.int64))
    save("backend", np.array([0 if use_sf else 1], dtype=np.int64))


main()
